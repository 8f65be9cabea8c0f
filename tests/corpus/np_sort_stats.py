"""Sorts and order statistics, as data-analysis and image kernels write them.

Exercises: `np.sort` of a 1-D array, of a 2-D array (each row), of an expression and of a
small window inside a loop (a median filter), `a.sort()` of an array and of rows of a view; `np.argsort` with Numba's default order and with
`kind="mergesort"` (integer data with many ties: the order of equal keys is compared too; the
default order of ties is Numba's quicksort, not NumPy's, and is checked against Numba in
tests/backend/test_order_routines.py);
`np.median` of a whole array, of columns and of a window filled in a loop (odd and even sizes,
integers: the middle pair's mean); `np.percentile` / `np.quantile` with one q and an array of
q, of integer data, inside an expression and on data holding NaNs (q outside its range, Numba's
ValueError, is checked in tests/backend/test_order_routines.py); `np.corrcoef` of a matrix, of two 1-D arrays and of one 1-D array (a scalar
in Numba), with variables in columns (`rowvar=False`, written or passed); `np.histogram(x, nbins)[0]` read inside an expression.
"""
import numpy as np
from numba import njit, prange


@njit
def sort_copy(x):
    s = np.sort(x)
    return s, s[-1] - s[0]


@njit
def sort_in_place(x, m):
    x.sort()
    m[1:].sort()
    return x[0] + m[-1, -1]


@njit
def sort_rows_of(m):
    return np.sort(m)


@njit
def sort_expression(x):
    return np.sort(x * -2.0 + 1.0)[: x.shape[0] // 2 + 1]


@njit
def argsort_default(x):
    return np.argsort(x)


@njit
def argsort_stable(x):
    order = np.argsort(x, kind="mergesort")
    return order, x[order]


@njit
def argsort_rows_stable(m):
    idx = np.empty((m.shape[0], m.shape[1]), dtype=np.int64)
    for i in range(m.shape[0]):
        idx[i] = np.argsort(m[i], kind="stable")
    return idx


@njit
def medians(x):
    return np.median(x), np.median(x[1:]), np.median(x[::2])


@njit
def column_medians(m):
    meds = np.empty(m.shape[1])
    for j in range(m.shape[1]):
        meds[j] = np.median(m[:, j])
    return meds - np.median(m)


@njit(parallel=True)
def median_filter3(img):
    h, w = img.shape
    out = np.zeros((h, w))
    for i in prange(1, h - 1):
        win = np.empty(9, dtype=img.dtype)
        for j in range(1, w - 1):
            for t in range(9):
                win[t] = img[i - 1 + t // 3, j - 1 + t % 3]
            out[i, j] = np.median(win)
    return out


@njit
def median_filter_wide(img):
    # a 3x5 window: 15 values, past the size where a sort stops being a plain insertion sort
    rows, cols = img.shape
    res = np.zeros_like(img)
    for r in range(1, rows - 1):
        for c in range(2, cols - 2):
            res[r, c] = np.sort(img[r - 1:r + 2, c - 2:c + 3].flatten())[7]
    return res


@njit
def percentiles(x, q):
    return np.percentile(x, q), np.percentile(x, 0.0), np.percentile(x, 100.0), np.quantile(x, q / 100.0)


@njit
def percentile_array(x, qs):
    return np.percentile(x, qs), np.quantile(x, qs / 100.0)


@njit
def percentile_stretch(img, lo_pct, hi_pct):
    lo = np.percentile(img, lo_pct)
    hi = np.percentile(img, hi_pct)
    return np.clip((img - lo) / (hi - lo + 1e-12), 0.0, 1.0)


@njit
def percentile_checked(x, q):
    return np.percentile(x, q)


@njit
def correlations(m):
    return np.corrcoef(m), np.corrcoef(m.T)


@njit
def correlation_pair(x, y):
    return np.corrcoef(x, y), np.corrcoef(x)


@njit
def column_correlations(X, Y, rowvar):
    return (np.corrcoef(X, rowvar=False), np.corrcoef(X, Y, rowvar=False), np.corrcoef(X, y=Y, rowvar=rowvar),
            np.corrcoef(X.T, None, True))


@njit
def histogram_peak(x, nbins):
    return np.histogram(x, nbins)[0].max(), np.histogram(x, nbins)[1][1]


KPC_CASES = {
    "sort_copy": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64", "float32"],
        "sizes": [{"n": 1}, {"n": 14}, {"n": 300}],
        "layouts": ["C", "strided"],
    },
    "sort_in_place": {
        "args": {"x": ("n",), "m": ("r", "c")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "r": 2, "c": 1}, {"n": 50, "r": 6, "c": 9}],
        "writes": ["x", "m"],
        "layouts": ["C", "F", "strided"],
    },
    "sort_rows_of": {
        "args": {"m": ("r", "c")},
        "dtypes": ["float64", "int32"],
        "sizes": [{"r": 1, "c": 1}, {"r": 5, "c": 40}],
        "layouts": ["C", "F", "strided"],
    },
    "sort_expression": {
        "args": {"x": {"kind": "array", "shape": ("n",), "values": "nan"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3}, {"n": 70}],
    },
    "argsort_default": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 13}, {"n": 500}],
        "layouts": ["C", "strided"],
    },
    "argsort_stable": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": 0, "high": 5}},
        "dtypes": ["int64", "float32"],
        "sizes": [{"n": 2}, {"n": 17}, {"n": 400}],
        "layouts": ["C", "strided"],
    },
    "argsort_rows_stable": {
        "args": {"m": {"kind": "array", "shape": ("r", "c"), "low": 0, "high": 3}},
        "dtypes": ["int64"],
        "sizes": [{"r": 2, "c": 3}, {"r": 30, "c": 25}],
        "layouts": ["C", "F"],
    },
    "medians": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64", "float32"],
        "sizes": [{"n": 2}, {"n": 9}, {"n": 200}],
        "layouts": ["C", "strided"],
        "rtol": 1e-12,
    },
    "column_medians": {
        "args": {"m": ("r", "c")},
        "dtypes": ["float64", "int32"],
        "sizes": [{"r": 2, "c": 3}, {"r": 40, "c": 10}],
        "layouts": ["C", "F"],
    },
    "median_filter3": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"h": 3, "w": 3}, {"h": 70, "w": 33}],
        "layouts": ["C", "F"],
    },
    "median_filter_wide": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"h": 3, "w": 5}, {"h": 29, "w": 33}],
        "layouts": ["C", "strided"],
    },
    "percentiles": {
        "args": {"x": ("n",), "q": {"kind": "scalar", "value": 37.5}},
        "dtypes": ["float64", "int64", "float32"],
        "sizes": [{"n": 1}, {"n": 2}, {"n": 11}, {"n": 500}],
        "layouts": ["C", "strided"],
        "rtol": 1e-12,
    },
    "percentile_array": {
        "args": {"x": ("n",), "qs": {"kind": "array", "shape": ("k",), "dtype": "float64", "low": 0, "high": 100}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "k": 3}, {"n": 40, "k": 7}],
        "rtol": 1e-12,
    },
    "percentile_stretch": {
        "args": {"img": ("h", "w"), "lo_pct": {"kind": "scalar", "value": 2.0},
                 "hi_pct": {"kind": "scalar", "value": 98.0}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"h": 2, "w": 2}, {"h": 30, "w": 41}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
    },
    "percentile_checked": {
        "args": {"x": {"kind": "array", "shape": ("n",), "values": "nan"}, "q": {"kind": "scalar", "value": "q"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "q": 100}, {"n": 9, "q": 50}, {"n": 1, "q": 0}],
    },
    "correlations": {
        "args": {"m": ("v", "k")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"v": 3, "k": 4}, {"v": 8, "k": 50}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "correlation_pair": {
        "args": {"x": ("k",), "y": ("k",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"k": 2}, {"k": 60}],
        "layouts": ["C", "strided"],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "column_correlations": {
        "args": {"X": ("n", "d"), "Y": ("n", "e"), "rowvar": {"kind": "scalar", "value": 0}},
        "sizes": [{"n": 2, "d": 2, "e": 2}, {"n": 9, "d": 3, "e": 2}, {"n": 40, "d": 5, "e": 4}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "histogram_peak": {
        "args": {"x": ("n",), "nbins": {"kind": "scalar", "value": "b"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 5, "b": 2}, {"n": 300, "b": 9}],
    },
}
