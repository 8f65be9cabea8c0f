"""Minimum and maximum reductions written the ways scientists write them.

Exercises: `lo = min(lo, v)` / `hi = max(hi, v)` reductions in a `prange`
starting from `np.inf`; the `if v < lo: lo = v` style in a serial loop
(a compiler must recognise it as a min reduction before parallelising);
integer extrema seeded from `x[0]`; an arg-min that carries the index
along with the value (ties resolved to the first index); a per-row max
written to an output array.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def float_extrema(x):
    lo = np.inf
    hi = -np.inf
    for i in prange(x.shape[0]):
        lo = min(lo, x[i])
        hi = max(hi, x[i])
    return lo, hi


@njit
def int_extrema(x):
    lo = x[0]
    hi = x[0]
    for i in range(1, x.shape[0]):
        v = x[i]
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


@njit
def argmin(x):
    best = x[0]
    where = 0
    for i in range(1, len(x)):
        if x[i] < best:
            best = x[i]
            where = i
    return where, best


@njit(parallel=True)
def row_max(a, out):
    for i in prange(a.shape[0]):
        m = a[i, 0]
        for j in range(1, a.shape[1]):
            m = max(m, a[i, j])
        out[i] = m


KPC_CASES = {
    "float_extrema": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "int_extrema": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": -1000, "high": 1000}},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 1}, {"n": 2}, {"n": 33}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "argmin": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": -5, "high": 5}},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 1}, {"n": 7}, {"n": 100}],
    },
    "row_max": {
        "args": {"a": ("n", "m"), "out": ("n",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 0, "m": 1}, {"n": 1, "m": 1}, {"n": 7, "m": 5}, {"n": 33, "m": 17}],
        "writes": ["out"],
        "layouts": ["C", "F", "strided"],
    },
}
