"""Moving averages via cumsum, exponential smoothing (simple and Holt's linear), and a rolling mean over rows.
Time-series code from finance and sensor-processing repositories.
"""
import numpy as np
from numba import njit, prange


@njit
def moving_average(x, w):
    c = np.cumsum(x)
    out = np.empty(x.shape[0] - w + 1)
    out[0] = c[w - 1] / w
    out[1:] = (c[w:] - c[:-w]) / w
    return out


@njit(cache=True)
def ema(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


@njit
def holt_linear(x, alpha, beta):
    n = len(x)
    level = np.empty(n)
    trend = np.empty(n)
    level[0] = x[0]
    trend[0] = x[1] - x[0] if n > 1 else 0.0
    for t in range(1, n):
        level[t] = alpha * x[t] + (1 - alpha) * (level[t - 1] + trend[t - 1])
        trend[t] = beta * (level[t] - level[t - 1]) + (1 - beta) * trend[t - 1]
    return level, trend


@njit(parallel=True)
def rolling_mean_rows(X, w):
    n, m = X.shape
    out = np.full((n, m), np.nan)
    for i in prange(n):
        s = 0.0
        for j in range(m):
            s += X[i, j]
            if j >= w:
                s -= X[i, j - w]
            if j >= w - 1:
                out[i, j] = s / w
    return out


KPC_CASES = {
    "moving_average": {
        "args": {"x": ("n",), "w": {"kind": "scalar", "value": "w"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "w": 5}, {"n": 300, "w": 7}],
        "layouts": ["C", "strided"],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "ema": {
        "args": {"x": ("n",), "alpha": {"kind": "scalar", "value": 0.3}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 300}],
    },
    "holt_linear": {
        "args": {"x": ("n",), "alpha": {"kind": "scalar", "value": 0.5},
                 "beta": {"kind": "scalar", "value": 0.2}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 300}],
    },
    "rolling_mean_rows": {
        "args": {"X": ("n", "m"), "w": {"kind": "scalar", "value": "w"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 2, "m": 5, "w": 3}, {"n": 40, "m": 100, "w": 10}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
}
