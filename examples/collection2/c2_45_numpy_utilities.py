"""Small NumPy utilities as people factor them: allocation helpers taking a dtype with a default,
tuple-returning helpers unpacked into nested targets, rank-changing rebinding, per-row scratch arrays in prange.
"""
import numpy as np
from numba import njit, prange


@njit
def alloc(n, m, dtype=np.float64):
    return np.zeros((n, m), dtype=dtype)


@njit
def minmax(x):
    return x.min(), x.max()


@njit
def stats(x):
    return minmax(x), x.mean()


@njit
def normalize_rows(X):
    out = alloc(X.shape[0], X.shape[1])
    counts = alloc(X.shape[0], 1, np.int64)
    for i in range(X.shape[0]):
        (lo, hi), mu = stats(X[i])
        span = hi - lo
        if span == 0.0:
            continue
        out[i] = (X[i] - mu) / span
        counts[i, 0] = (X[i] > mu).sum()
    return out, counts


@njit
def flatten_features(T):
    # T: (n, c, h, w) -> (n, c*h*w) -> per-sample L2 norm
    x = T.copy()
    x = x.reshape(x.shape[0], -1)
    norms = np.sqrt((x * x).sum(axis=1))
    return x / np.maximum(norms, 1e-12).reshape(-1, 1)


@njit(parallel=True)
def row_topk_mean(X, k):
    n, m = X.shape
    out = np.empty(n)
    for i in prange(n):
        buf = np.empty(m)
        for j in range(m):
            buf[j] = X[i, j]
        buf.sort()
        out[i] = buf[m - k:].mean()
    return out


@njit
def histogram_entropy(x, nbins):
    p = np.histogram(x, nbins)[0] / x.shape[0]
    p = p[p > 0]
    return -(p * np.log(p)).sum()


KPC_CASES = {
    "normalize_rows": {
        "args": {"X": ("n", "m")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 4, "m": 5}, {"n": 50000, "m": 32}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "flatten_features": {
        "args": {"T": ("n", "c", "h", "w")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "c": 1, "h": 1, "w": 1}, {"n": 64, "c": 16, "h": 32, "w": 32}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-10, "float32": 1e-5},
        "atol": {"float64": 1e-12, "float32": 1e-6},
    },
    "row_topk_mean": {
        "args": {"X": ("n", "m"), "k": {"kind": "scalar", "value": "k"}},
        "sizes": [{"n": 1, "m": 1, "k": 1}, {"n": 5, "m": 6, "k": 2}, {"n": 20000, "m": 64, "k": 8}],
        "rtol": 1e-10,
    },
    "histogram_entropy": {
        "args": {"x": ("n",), "nbins": {"kind": "scalar", "value": "b"}},
        "sizes": [{"n": 1, "b": 1}, {"n": 30, "b": 5}, {"n": 2000000, "b": 128}],
        "rtol": 1e-10,
    },
}
