"""Generalized ufuncs made with Numba's ``@guvectorize``, as its documentation and public code write them.

Exercises: layouts ``(n),()->(n)`` (a scalar input broadcast over rows), ``(n)->()`` (a
scalar output written as ``res[0]``), ``(m,n),(n)->(m)`` (a matrix-vector product per
batch), ``(n),(n)->(n),()`` (two outputs), signatures as strings and as tuples of Numba types,
``target='parallel'`` and ``'cpu'``, a zero divisor (inf, nan: Numba's error_model='numpy'), ``writable_args`` (an input centred in place, contiguous or
strided), outputs passed as the last arguments (here) and allocated
by the call (``tests/backend/test_gufunc.py``, with broadcasting and ``out=``).
"""
import numpy as np
from numba import float32, float64, guvectorize


@guvectorize(["void(float64[:], float64, float64[:])", "void(float32[:], float32, float32[:])"], "(n),()->(n)",
             target="parallel")
def scaled(x, a, out):
    for i in range(x.shape[0]):
        out[i] = a * x[i]


@guvectorize([(float64[:], float64[:]), (float32[:], float32[:])], "(n)->()")
def norm2(x, res):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    res[0] = np.sqrt(s)


@guvectorize(["void(float64[:, :], float64[:], float64[:])"], "(m,n),(n)->(m)", target="parallel")
def matvec(a, v, out):
    for i in range(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j] * v[j]
        out[i] = s


@guvectorize(["void(float64[:], float64[:], float64[:], float64[:])"], "(n),(n)->(n),()")
def diff_and_distance(x, y, d, dist):
    s = 0.0
    for i in range(x.shape[0]):
        d[i] = x[i] - y[i]
        s += d[i] * d[i]
    dist[0] = np.sqrt(s)


@guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->(n)")
def per_unit(x, unit, out):
    # a gufunc's function runs with error_model='numpy' in Numba: x / 0.0 is inf or nan
    for i in range(x.shape[0]):
        out[i] = x[i] / unit


@guvectorize(["void(float64[:], float64[:])"], "(n)->()", writable_args=("x",))
def center_inplace(x, mean):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    mean[0] = s / x.shape[0]
    for i in range(x.shape[0]):
        x[i] -= mean[0]


KPC_CASES = {
    "scaled": {
        "args": {"x": ("b", "n"), "a": {"kind": "scalar", "value": 1.5}, "out": ("b", "n")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"b": 1, "n": 1}, {"b": 5, "n": 7}, {"b": 64, "n": 33}],
        "writes": ["out"],
    },
    "norm2": {
        "args": {"x": ("b", "n"), "res": ("b",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"b": 3, "n": 4}, {"b": 100, "n": 17}],
        "writes": ["res"],
        "rtol": {"float32": 1e-5},
    },
    "matvec": {
        "args": {"a": ("b", "m", "n"), "v": ("b", "n"), "out": ("b", "m")},
        "dtypes": ["float64"],
        "sizes": [{"b": 2, "m": 3, "n": 4}, {"b": 40, "m": 9, "n": 11}],
        "writes": ["out"],
    },
    "diff_and_distance": {
        "args": {"x": ("b", "n"), "y": ("b", "n"), "d": ("b", "n"), "dist": ("b",)},
        "dtypes": ["float64"],
        "sizes": [{"b": 6, "n": 5}],
        "writes": ["d", "dist"],
    },
    "per_unit": {
        "args": {"x": ("b", "n"), "unit": {"kind": "scalar", "value": 0.0}, "out": ("b", "n")},
        "dtypes": ["float64"],
        "sizes": [{"b": 3, "n": 5}],
        "writes": ["out"],
    },
    "center_inplace": {
        "args": {"x": ("b", "n"), "mean": ("b",)},
        "dtypes": ["float64"],
        "sizes": [{"b": 4, "n": 6}, {"b": 30, "n": 9}],
        "layouts": ["C", "F", "strided"],
        "writes": ["x", "mean"],
    },
}
