"""Autocorrelation, cross-correlation lag search, Welch-free periodogram and zero crossings.
Time-series analysis utilities as written for sensor and neuroscience data.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def autocorr(x, maxlag):
    n = x.shape[0]
    xm = x - x.mean()
    denom = np.dot(xm, xm)
    ac = np.empty(maxlag + 1)
    for lag in prange(maxlag + 1):
        s = 0.0
        for i in range(n - lag):
            s += xm[i] * xm[i + lag]
        ac[lag] = s / denom
    return ac


@njit
def autocorr_np(x, maxlag):
    xm = x - np.mean(x)
    n = xm.shape[0]
    out = np.empty(maxlag + 1)
    var = np.sum(xm * xm)
    for lag in range(maxlag + 1):
        out[lag] = np.sum(xm[:n - lag] * xm[lag:]) / var
    return out


@njit(parallel=True)
def best_lag(a, b, maxlag):
    scores = np.zeros(2 * maxlag + 1)
    n = a.shape[0]
    for idx in prange(2 * maxlag + 1):
        lag = idx - maxlag
        s = 0.0
        for i in range(max(0, -lag), min(n, n - lag)):
            s += a[i] * b[i + lag]
        scores[idx] = s
    k = np.argmax(scores)
    return k - maxlag, scores[k]


@njit
def periodogram(x, freqs, fs):
    n = x.shape[0]
    t = np.arange(n) / fs
    P = np.empty(freqs.shape[0])
    for k in range(freqs.shape[0]):
        w = 2.0 * np.pi * freqs[k]
        c = np.sum(x * np.cos(w * t))
        s = np.sum(x * np.sin(w * t))
        P[k] = (c * c + s * s) / n
    return P


@njit
def zero_crossings(x):
    count = 0
    for i in range(1, x.shape[0]):
        if (x[i - 1] < 0.0) != (x[i] < 0.0):
            count += 1
    return count


KPC_CASES = {
    "autocorr": {
        "args": {"x": ("n",), "maxlag": {"kind": "scalar", "value": "L"}},
        "sizes": [{"n": 2, "L": 1}, {"n": 100, "L": 10}, {"n": 40000, "L": 100}],
        "layouts": ["C", "strided"],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "autocorr_np": {
        "args": {"x": ("n",), "maxlag": {"kind": "scalar", "value": "L"}},
        "sizes": [{"n": 2, "L": 1}, {"n": 100000, "L": 100}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "best_lag": {
        "args": {"a": ("n",), "b": ("n",), "maxlag": {"kind": "scalar", "value": "L"}},
        "sizes": [{"n": 3, "L": 1}, {"n": 20000, "L": 200}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "periodogram": {
        "args": {"x": ("n",), "freqs": {"kind": "array", "shape": ("f",), "low": 0.0, "high": 50.0},
                 "fs": {"kind": "scalar", "value": 100.0}},
        "sizes": [{"n": 1, "f": 1}, {"n": 10000, "f": 100}],
        "rtol": 1e-8,
        "atol": 1e-8,
    },
    "zero_crossings": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 6000000}],
        "layouts": ["C", "strided"],
    },
}
