"""Sort-and-scan idioms: run-length encoding, group-by sums via argsort, unique counts, segment means, moving sums by cumsum.
Pandas-free data wrangling in NumPy, jitted.
"""
import numpy as np
from numba import njit


@njit
def run_length_encode(x):
    n = x.shape[0]
    if n == 0:
        return np.empty(0, dtype=x.dtype), np.empty(0, dtype=np.int64)
    change = np.empty(n, dtype=np.bool_)
    change[0] = True
    change[1:] = x[1:] != x[:-1]
    starts = np.nonzero(change)[0]
    lengths = np.diff(np.append(starts, n))
    return x[starts], lengths


@njit
def groupby_sum(keys, values):
    order = np.argsort(keys, kind="mergesort")
    k = keys[order]
    v = values[order]
    boundaries = np.flatnonzero(np.diff(k)) + 1
    starts = np.concatenate((np.zeros(1, dtype=np.int64), boundaries))
    csum = np.concatenate((np.zeros(1), np.cumsum(v)))
    ends = np.append(starts[1:], k.shape[0])
    return k[starts], csum[ends] - csum[starts]


@njit
def unique_counts(x):
    u = np.unique(x)
    counts = np.zeros(u.shape[0], dtype=np.int64)
    idx = np.searchsorted(u, x)
    for i in idx:
        counts[i] += 1
    return u, counts


@njit
def moving_sum(x, w):
    c = np.cumsum(x)
    out = c[w - 1:].copy()
    out[1:] -= c[:-w]
    return out


@njit
def segment_means(values, seg_ids, nseg):
    sums = np.zeros(nseg)
    cnt = np.zeros(nseg)
    for i in range(values.shape[0]):
        sums[seg_ids[i]] += values[i]
        cnt[seg_ids[i]] += 1
    return np.where(cnt > 0, sums / np.maximum(cnt, 1), np.nan)


KPC_CASES = {
    "run_length_encode": {
        "args": {"x": {"kind": "index", "shape": ("n",), "high": "k"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "k": 1}, {"n": 1, "k": 2}, {"n": 30, "k": 2}, {"n": 4000000, "k": 2}],
    },
    "groupby_sum": {
        "args": {"keys": {"kind": "index", "shape": ("n",), "high": "k"}, "values": ("n",)},
        "sizes": [{"n": 1, "k": 1}, {"n": 30, "k": 4}, {"n": 200000, "k": 1000}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "unique_counts": {
        "args": {"x": {"kind": "index", "shape": ("n",), "high": "k"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 1, "k": 1}, {"n": 30, "k": 6}, {"n": 200000, "k": 5000}],
    },
    "moving_sum": {
        "args": {"x": ("n",), "w": {"kind": "scalar", "value": "w"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "w": 1}, {"n": 10, "w": 3}, {"n": 4000000, "w": 100}],
        "rtol": {"float64": 1e-8},
        "atol": {"float64": 1e-8},
    },
    "segment_means": {
        "args": {"values": ("n",), "seg_ids": {"kind": "index", "shape": ("n",), "high": "s"},
                 "nseg": {"kind": "scalar", "value": "s + 2"}},
        "sizes": [{"n": 0, "s": 1}, {"n": 20, "s": 5}, {"n": 4000000, "s": 1000}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
}
