"""Prefix sums (scans) written as plain serial loops.

Exercises: the inclusive scan `s += x[i]; out[i] = s` with a plain
`range` (a compiler may turn it into a parallel_scan), an exclusive scan
that writes before it adds, a scan that returns its total, and a 2-D
row-wise cumulative sum into a freshly allocated array.
"""
import numpy as np
from numba import njit


@njit
def inclusive_scan(x, out):
    s = 0
    for i in range(x.shape[0]):
        s += x[i]
        out[i] = s


@njit
def exclusive_scan(x, out):
    s = 0
    for i in range(x.shape[0]):
        out[i] = s
        s += x[i]
    return s


@njit
def row_cumsum(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j]
            out[i, j] = s
    return out


KPC_CASES = {
    "inclusive_scan": {
        "args": {"x": ("n",), "out": ("n",)},
        "dtypes": ["float64", "int64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 33}, {"n": 100}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "exclusive_scan": {
        "args": {"x": ("n",), "out": ("n",)},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 100}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "row_cumsum": {
        "args": {"a": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "m": 5}, {"n": 1, "m": 1}, {"n": 7, "m": 33}],
        "layouts": ["C", "F", "strided"],
    },
}
