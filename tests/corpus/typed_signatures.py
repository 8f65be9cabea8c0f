"""Kernels compiled eagerly from explicit signature strings.

Exercises: `@njit("f8(f8[:, :])")` (the array type has layout `A`, so C,
F and strided inputs are all accepted), a float32-only signature whose
accumulator is declared `np.float32`, an int64 signature, a list of two
signatures on one kernel, and a `void` signature for an in-place kernel.
"""
import numpy as np
from numba import njit


@njit("f8(f8[:, :])")
def frobenius_norm(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j] * a[i, j]
    return np.sqrt(s)


@njit("f4(f4[:], f4[:])")
def dot32(x, y):
    acc = np.float32(0.0)
    for i in range(x.shape[0]):
        acc += x[i] * y[i]
    return acc


@njit("i8(i8[:])")
def sum_of_squares(x):
    s = 0
    for v in x:
        s += v * v
    return s


@njit(["f8(f8[:])", "f4(f4[:])"])
def trapezoid(y):
    n = y.shape[0]
    if n < 2:
        return 0.0
    s = 0.5 * (y[0] + y[n - 1])
    for i in range(1, n - 1):
        s += y[i]
    return s


@njit("void(f8[:], f8)")
def scale_inplace(x, factor):
    for i in range(x.shape[0]):
        x[i] *= factor


KPC_CASES = {
    "frobenius_norm": {
        "args": {"a": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 0, "m": 0}, {"n": 1, "m": 1}, {"n": 7, "m": 33}],
        "layouts": ["C", "F", "strided"],
    },
    "dot32": {
        "args": {"x": ("n",), "y": ("n",)},
        "dtypes": ["float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "sum_of_squares": {
        "args": {"x": ("n",)},
        "dtypes": ["int64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "trapezoid": {
        "args": {"y": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 2}, {"n": 33}],
        "layouts": ["C", "strided"],
    },
    "scale_inplace": {
        "args": {"x": ("n",), "factor": {"kind": "scalar", "value": -2.5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 0}, {"n": 7}],
        "writes": ["x"],
        "layouts": ["C", "strided"],
    },
}
