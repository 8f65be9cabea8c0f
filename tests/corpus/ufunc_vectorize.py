"""NumPy ufuncs made with Numba's ``@vectorize``, as its documentation and public code write them.

Exercises: a list of signatures with ``target='parallel'`` (float64 and float32 loops, called
with arrays of either, with Python floats, with int arrays that cast to the float64 loop),
``target='cpu'`` (the default) with an ``if``/``else`` body and math functions, a ufunc without
signatures typed at each call (Numba's ``DUFunc``), three inputs, scalars broadcast against
arrays, strided and Fortran-ordered views, and a ufunc called on arrays inside an
``@njit(parallel=True)`` kernel (a row broadcast against a matrix), a zero divisor (NumPy's
result, as Numba's ufunc gives). Calls with ``out=``, more
broadcasting shapes and the dtype rules: ``tests/backend/test_vectorize.py``.
"""
import math

import numpy as np
from numba import float32, float64, njit, vectorize


@vectorize(["float64(float64, float64)", "float32(float32, float32)"], target="parallel")
def rel_diff(x, y):
    return 2 * (x - y) / (x + y)


@vectorize([float64(float64, float64, float64), float32(float32, float32, float32)])
def smooth_step(x, lo, hi):
    if x <= lo:
        return 0.0
    if x >= hi:
        return 1.0
    t = (x - lo) / (hi - lo)
    return t * t * (3.0 - 2.0 * t)


@vectorize(nopython=True)
def gauss(x, mu, sigma):
    z = (x - mu) / sigma
    return math.exp(-0.5 * z * z) / (sigma * math.sqrt(2.0 * math.pi))


@vectorize(["int64(int64, int64)", "float64(float64, float64)"], target="parallel")
def clip_add(a, b):
    s = a + b
    if s > 100:
        return 100
    return s


@vectorize(["float64(float64, float64)"])
def rel_diff_cpu(x, y):
    return 2 * (x - y) / (x + y)


@vectorize(["int64(int64, int64)", "float64(float64, float64)"])
def split_units(a, b):
    # Numba compiles a ufunc with error_model='numpy': a zero divisor gives 0 or nan, no error
    return a // b * 1000 + a % b


@njit(parallel=True)
def scaled_rel_diff(x, y, s):
    # Numba types ufuncs of target='cpu' (and those without signatures) inside kernels
    return s * rel_diff_cpu(x, y) + gauss(y, 0.0, 1.0)


KPC_CASES = {
    "rel_diff": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": 1.0, "high": 2.0},
                 "y": {"kind": "array", "shape": ("n",), "low": 1.0, "high": 2.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 100}, {"n": 1000}],
        "layouts": ["C", "strided"],
    },
    "scaled_rel_diff": {
        "args": {"x": {"kind": "array", "shape": ("n", "m"), "low": 1.0, "high": 2.0},
                 "y": {"kind": "array", "shape": ("m",), "low": 1.0, "high": 2.0},
                 "s": {"kind": "scalar", "value": 0.5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 7, "m": 5}, {"n": 64, "m": 33}],
        "layouts": ["C", "F", "strided"],
    },
    "smooth_step": {
        "args": {"x": ("n", "m"), "lo": {"kind": "scalar", "value": -0.5}, "hi": {"kind": "scalar", "value": 0.5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "m": 4}, {"n": 40, "m": 31}],
        "layouts": ["C", "F", "strided"],
    },
    "gauss": {
        "args": {"x": ("n",), "mu": {"kind": "scalar", "value": 0.25}, "sigma": {"kind": "scalar", "value": 0.75}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 10}, {"n": 500}],
    },
    "split_units": {
        "args": {"a": {"kind": "array", "shape": ("n",), "low": -50, "high": 50},
                 "b": {"kind": "array", "shape": ("n",), "low": 0, "high": 3}},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 40}],
    },
    "clip_add": {
        "args": {"a": {"kind": "array", "shape": ("n",), "low": 0, "high": 80},
                 "b": {"kind": "array", "shape": ("n",), "low": 0, "high": 80}},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 50}, {"n": 333}],
    },
}
