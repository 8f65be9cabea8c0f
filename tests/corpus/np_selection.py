"""Order statistics on data a selection has to get right: ties, infinities, many quantiles of one copy.

Exercises: `np.median`, `np.percentile` and `np.quantile` (kpc selects the items they read, as
Numba's `_select`, instead of sorting a copy) on sizes past the insertion-sort cut-off of 15,
odd and even; data with many ties (`np.floor` of a scaled array, integers of a small range);
infinities at both ends with q = 0, q = 100 and interpolated q (NumPy's infinity rules); an
array of q in no particular order, each q selected in the same copy after the one before;
the median of each column inside a `prange` loop (a per-thread copy).
"""
import numpy as np
from numba import njit, prange


@njit
def median_of_ties(x):
    y = np.floor(x * 5.0)
    return np.median(y), np.median(y[1:]), np.median(y[::3]), np.percentile(y, 37.0), np.quantile(y, 0.91)


@njit
def integer_medians(k):
    return np.median(k), np.median(k[1:]), np.percentile(k, 50.0), np.percentile(k, 12.5)


@njit
def quantiles_in_turn(x, qs):
    # the q are in no order and repeat: each selection starts from what the one before left
    return np.percentile(x, qs), np.quantile(x, qs[::-1] / 100.0), np.median(np.abs(x - np.median(x)))


@njit
def infinite_ends(x, qs):
    y = x.copy()
    for i in range(0, y.shape[0], 7):
        y[i] = np.inf
    for i in range(3, y.shape[0], 11):
        y[i] = -np.inf
    return np.percentile(y, qs), np.percentile(y, 0.0), np.percentile(y, 100.0), np.median(y)


@njit(parallel=True)
def column_medians_prange(X):
    out = np.empty(X.shape[1])
    for j in prange(X.shape[1]):
        out[j] = np.median(X[:, j]) + np.percentile(X[:, j], 90.0)
    return out


KPC_CASES = {
    "median_of_ties": {
        "args": {"x": ("n",)},
        "sizes": [{"n": 1}, {"n": 16}, {"n": 17}, {"n": 999}, {"n": 1000}],
        "layouts": ["C", "strided"],
        "rtol": 1e-12,
    },
    "integer_medians": {
        "args": {"k": {"kind": "array", "shape": ("n",), "low": 0, "high": 6}},
        "dtypes": ["int64", "int32"],
        "sizes": [{"n": 2}, {"n": 31}, {"n": 500}, {"n": 501}],
        "rtol": 1e-12,
    },
    "quantiles_in_turn": {
        "args": {"x": ("n",), "qs": {"kind": "array", "shape": ("k",), "low": 0.0, "high": 100.0}},
        "sizes": [{"n": 1, "k": 1}, {"n": 40, "k": 5}, {"n": 3000, "k": 12}],
        "rtol": 1e-12,
    },
    "infinite_ends": {
        # qs between 30 and 70 never interpolate next to an infinity (n = 1, or n >= 20: y holds
        # about a tenth of infinities at each end), where Numba gives the infinity and NumPy nan;
        # 0 and 100 pick the infinities themselves
        "args": {"x": ("n",), "qs": {"kind": "array", "shape": ("k",), "low": 30.0, "high": 70.0}},
        "sizes": [{"n": 1, "k": 3}, {"n": 20, "k": 4}, {"n": 777, "k": 9}],
        "rtol": 1e-12,
    },
    "column_medians_prange": {
        "args": {"X": ("n", "m")},
        "sizes": [{"n": 1, "m": 1}, {"n": 30, "m": 7}, {"n": 301, "m": 16}],
        "layouts": ["C", "F"],
        "rtol": 1e-12,
    },
}
