"""Prefix sums (serial, NumPy cumsum, two-pass blocked parallel scan) and counting (bincount, histogram).
Building blocks of sparse-matrix construction, radix sorts and particle binning.
"""
import numpy as np
from numba import njit, prange


@njit
def inclusive_scan(x):
    out = np.empty_like(x)
    if x.size == 0:
        return out
    out[0] = x[0]
    for i in range(1, x.size):
        out[i] = out[i - 1] + x[i]
    return out


@njit
def exclusive_scan(x):
    out = np.zeros_like(x)
    out[1:] = np.cumsum(x)[:-1]
    return out


@njit(parallel=True)
def blocked_scan(x, nblocks):
    n = x.shape[0]
    out = np.empty_like(x)
    bs = (n + nblocks - 1) // nblocks
    sums = np.zeros(nblocks + 1, dtype=x.dtype)
    for b in prange(nblocks):
        s = 0
        for i in range(b * bs, min((b + 1) * bs, n)):
            s += x[i]
            out[i] = s
        sums[b + 1] = s
    offsets = np.cumsum(sums)
    for b in prange(nblocks):
        for i in range(b * bs, min((b + 1) * bs, n)):
            out[i] += offsets[b]
    return out


@njit
def bincount_loop(labels, minlength):
    n = minlength
    if labels.size > 0:
        n = max(labels.max() + 1, minlength)
    counts = np.zeros(n, dtype=np.int64)
    for v in labels:
        counts[v] += 1
    return counts


@njit
def weighted_bincount(labels, weights):
    return np.bincount(labels, weights=weights)


@njit
def histogram_np(x, bins):
    counts, edges = np.histogram(x, bins, (-1.0, 1.0))
    return counts, edges


KPC_CASES = {
    "inclusive_scan": {
        "args": {"x": ("n",)},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 1000}],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-10},
        "atol": {"float64": 1e-10},
    },
    "exclusive_scan": {
        "args": {"x": ("n",)},
        "dtypes": ["int64"],
        "sizes": [{"n": 1}, {"n": 1000}],
    },
    "blocked_scan": {
        "args": {"x": ("n",), "nblocks": {"kind": "scalar", "value": "b"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 7, "b": 3}, {"n": 1000, "b": 8}],
    },
    "bincount_loop": {
        "args": {"labels": {"kind": "index", "shape": ("n",), "high": "k"},
                 "minlength": {"kind": "scalar", "value": "k"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "k": 3}, {"n": 500, "k": 10}],
    },
    "weighted_bincount": {
        "args": {"labels": {"kind": "index", "shape": ("n",), "high": "k"}, "weights": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "k": 3}, {"n": 500, "k": 10}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "histogram_np": {
        "args": {"x": ("n",), "bins": {"kind": "scalar", "value": "k"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 10, "k": 4}, {"n": 1000, "k": 20}],
    },
}
