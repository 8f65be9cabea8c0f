"""Running statistics: rolling mean/std with a ring buffer, exponentially weighted variance, online covariance, z-scores.
Streaming-analytics code for sensor and market data.
"""
import numpy as np
from numba import njit, prange


@njit
def rolling_mean_std(x, window):
    n = x.shape[0]
    mean = np.full(n, np.nan)
    std = np.full(n, np.nan)
    buf = np.zeros(window)
    s = 0.0
    s2 = 0.0
    for i in range(n):
        old = buf[i % window]
        buf[i % window] = x[i]
        s += x[i] - old
        s2 += x[i] * x[i] - old * old
        if i >= window - 1:
            m = s / window
            mean[i] = m
            std[i] = np.sqrt(max(s2 / window - m * m, 0.0))
    return mean, std


@njit
def ewm_mean_var(x, alpha):
    n = x.shape[0]
    mean = np.empty(n)
    var = np.empty(n)
    m = x[0]
    v = 0.0
    for i in range(n):
        d = x[i] - m
        incr = alpha * d
        m = m + incr
        v = (1.0 - alpha) * (v + d * incr)
        mean[i] = m
        var[i] = v
    return mean, var


@njit
def online_covariance(X):
    n, d = X.shape
    mean = np.zeros(d)
    C = np.zeros((d, d))
    for k in range(n):
        delta = X[k] - mean
        mean += delta / (k + 1)
        delta2 = X[k] - mean
        C += np.outer(delta, delta2)
    if n > 1:
        C /= n - 1
    return mean, C


@njit(parallel=True)
def rolling_zscore_cols(X, window):
    n, m = X.shape
    Z = np.zeros((n, m))
    for j in prange(m):
        mean, std = rolling_mean_std(X[:, j], window)
        for i in range(window - 1, n):
            Z[i, j] = (X[i, j] - mean[i]) / std[i] if std[i] > 0 else 0.0
    return Z


@njit
def cummax_drawup(x):
    out = np.empty_like(x)
    best = -np.inf
    for i in range(x.shape[0]):
        if x[i] > best:
            best = x[i]
        out[i] = x[i] - best
    return out


KPC_CASES = {
    "rolling_mean_std": {
        "args": {"x": ("n",), "window": {"kind": "scalar", "value": "w"}},
        "sizes": [{"n": 1, "w": 1}, {"n": 20, "w": 5}, {"n": 2000000, "w": 50}],
        "layouts": ["C", "strided"],
        "rtol": 1e-6,
        "atol": 1e-7,
    },
    "ewm_mean_var": {
        "args": {"x": ("n",), "alpha": {"kind": "scalar", "value": 0.05}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 2000000}],
        "rtol": {"float64": 1e-9, "float32": 1e-4},
        "atol": {"float64": 1e-10, "float32": 1e-5},
    },
    "online_covariance": {
        "args": {"X": ("n", "d")},
        "sizes": [{"n": 1, "d": 1}, {"n": 5, "d": 3}, {"n": 30000, "d": 8}],
        "layouts": ["C", "F"],
        "rtol": 1e-8,
        "atol": 1e-10,
    },
    "rolling_zscore_cols": {
        "args": {"X": ("n", "m"), "window": {"kind": "scalar", "value": "w"}},
        "sizes": [{"n": 3, "m": 1, "w": 2}, {"n": 50000, "m": 16, "w": 30}],
        "rtol": 1e-5,
        "atol": 1e-6,
    },
    "cummax_drawup": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 4000000}],
    },
}
