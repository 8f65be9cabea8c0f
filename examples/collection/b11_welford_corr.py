"""Running mean/variance by Welford's algorithm (per column in parallel) and correlation matrices by hand and with np.corrcoef.
Typical of streaming-statistics helpers and feature-engineering code.
"""
import numpy as np
from numba import njit, prange


@njit
def welford(x):
    n = 0
    mean = 0.0
    M2 = 0.0
    for v in x:
        n += 1
        delta = v - mean
        mean += delta / n
        M2 += delta * (v - mean)
    var = M2 / (n - 1) if n > 1 else np.nan
    return mean, var


@njit(parallel=True)
def column_stats(X):
    n, d = X.shape
    means = np.empty(d)
    variances = np.empty(d)
    for j in prange(d):
        m, v = welford(X[:, j])
        means[j] = m
        variances[j] = v
    return means, variances


@njit
def corr_matrix(X):
    # rows are observations, columns are variables
    n = X.shape[0]
    Xc = X - X.sum(axis=0) / n
    cov = Xc.T @ Xc / (n - 1)
    std = np.sqrt(np.diag(cov))
    return cov / np.outer(std, std)


@njit
def corr_numpy(X):
    return np.corrcoef(X.T)


KPC_CASES = {
    "welford": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 2}, {"n": 500}],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-5},
    },
    "column_stats": {
        "args": {"X": ("n", "d")},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "d": 2}, {"n": 200, "d": 7}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "corr_matrix": {
        "args": {"X": ("n", "d")},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "d": 3}, {"n": 100, "d": 8}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "corr_numpy": {
        "args": {"X": ("n", "d")},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "d": 3}, {"n": 100, "d": 8}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
}
