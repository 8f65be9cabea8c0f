"""Quantiles and robust location/scale: sorted-array quantiles, np.percentile/np.median, MAD, trimmed mean, quickselect.
Descriptive statistics as written in data-cleaning scripts.
"""
import numpy as np
from numba import njit, prange


@njit
def quantile_sorted(xs, q):
    # linear interpolation between order statistics, like NumPy's default
    pos = q * (xs.shape[0] - 1)
    lo = int(np.floor(pos))
    hi = min(lo + 1, xs.shape[0] - 1)
    frac = pos - lo
    return xs[lo] * (1.0 - frac) + xs[hi] * frac


@njit
def quantiles(x, qs):
    xs = np.sort(x)
    out = np.empty(qs.shape[0])
    for i in range(qs.shape[0]):
        out[i] = quantile_sorted(xs, qs[i])
    return out


@njit
def five_number_summary(x):
    return np.percentile(x, np.array([0.0, 25.0, 50.0, 75.0, 100.0]))


@njit
def median_abs_deviation(x):
    med = np.median(x)
    return np.median(np.abs(x - med)) * 1.4826


@njit
def trimmed_mean(x, proportion):
    xs = np.sort(x)
    n = xs.shape[0]
    k = int(proportion * n)
    if 2 * k >= n:
        raise ValueError("proportion too big")
    return xs[k:n - k].mean()


@njit
def quickselect(a, k):
    a = a.copy()
    lo, hi = 0, a.shape[0] - 1
    while True:
        if lo == hi:
            return a[lo]
        pivot = a[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return a[k]


@njit(parallel=True)
def column_medians(X):
    m = X.shape[1]
    out = np.empty(m)
    for j in prange(m):
        out[j] = np.median(X[:, j])
    return out


KPC_CASES = {
    "quantiles": {
        "args": {"x": ("n",), "qs": {"kind": "array", "shape": ("k",), "low": 0.0, "high": 1.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "k": 1}, {"n": 10, "k": 3}, {"n": 200000, "k": 9}],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-12, "float32": 1e-6},
    },
    "five_number_summary": {
        "args": {"x": ("n",)},
        "sizes": [{"n": 1}, {"n": 10}, {"n": 1000000}],
        "rtol": 1e-12,
    },
    "median_abs_deviation": {
        "args": {"x": ("n",)},
        "sizes": [{"n": 1}, {"n": 10}, {"n": 1000000}],
        "layouts": ["C", "strided"],
        "rtol": 1e-12,
    },
    "trimmed_mean": {
        "args": {"x": ("n",), "proportion": {"kind": "scalar", "value": 0.1}},
        "sizes": [{"n": 1}, {"n": 10}, {"n": 200000}],
        "rtol": 1e-10,
    },
    "quickselect": {
        "args": {"a": ("n",), "k": {"kind": "scalar", "value": "n // 2"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1}, {"n": 9}, {"n": 2000000}],
    },
    "column_medians": {
        "args": {"X": ("n", "m")},
        "sizes": [{"n": 1, "m": 1}, {"n": 4, "m": 3}, {"n": 10000, "m": 100}],
        "layouts": ["C", "F"],
        "rtol": 1e-12,
    },
}
