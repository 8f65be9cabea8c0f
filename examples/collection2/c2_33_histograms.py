"""Histograms: uniform bins by arithmetic, np.histogram, 2-D histograms, weighted and parallel per-thread histograms.
Binning code from particle physics and imaging notebooks.
"""
import numpy as np
from numba import njit, prange


@njit
def hist_uniform(x, nbins, lo, hi):
    counts = np.zeros(nbins, dtype=np.int64)
    scale = nbins / (hi - lo)
    for v in x:
        if v < lo or v >= hi:
            continue
        b = int((v - lo) * scale)
        if b == nbins:
            b -= 1
        counts[b] += 1
    return counts


@njit
def hist_numpy(x, nbins):
    counts, edges = np.histogram(x, bins=nbins)
    centers = 0.5 * (edges[1:] + edges[:-1])
    return counts, centers


@njit
def hist2d(x, y, nx, ny):
    H = np.zeros((nx, ny), dtype=np.int64)
    xmin, xmax = x.min(), x.max()
    ymin, ymax = y.min(), y.max()
    for k in range(x.shape[0]):
        i = int((x[k] - xmin) / (xmax - xmin) * nx) if xmax > xmin else 0
        j = int((y[k] - ymin) / (ymax - ymin) * ny) if ymax > ymin else 0
        H[min(i, nx - 1), min(j, ny - 1)] += 1
    return H


@njit(parallel=True)
def hist_parallel(x, nbins, lo, hi):
    nchunks = 8
    local = np.zeros((nchunks, nbins), dtype=np.int64)
    n = x.shape[0]
    chunk = (n + nchunks - 1) // nchunks
    for c in prange(nchunks):
        for k in range(c * chunk, min(n, (c + 1) * chunk)):
            v = x[k]
            if lo <= v < hi:
                b = min(int((v - lo) / (hi - lo) * nbins), nbins - 1)
                local[c, b] += 1
    return local.sum(axis=0)


@njit
def weighted_hist_digitize(x, w, edges):
    idx = np.searchsorted(edges, x, side="right") - 1
    out = np.zeros(edges.shape[0] - 1)
    for k in range(x.shape[0]):
        b = idx[k]
        if 0 <= b < out.shape[0]:
            out[b] += w[k]
    return out


KPC_CASES = {
    "hist_uniform": {
        "args": {"x": ("n",), "nbins": {"kind": "scalar", "value": "b"},
                 "lo": {"kind": "scalar", "value": -0.8}, "hi": {"kind": "scalar", "value": 0.8}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "b": 4}, {"n": 50, "b": 7}, {"n": 4000000, "b": 100}],
        "layouts": ["C", "strided"],
    },
    "hist_numpy": {
        "args": {"x": ("n",), "nbins": {"kind": "scalar", "value": "b"}},
        "sizes": [{"n": 1, "b": 3}, {"n": 50, "b": 7}, {"n": 2000000, "b": 64}],
        "rtol": 1e-12,
    },
    "hist2d": {
        "args": {"x": ("n",), "y": ("n",), "nx": {"kind": "scalar", "value": "a"}, "ny": {"kind": "scalar", "value": "b"}},
        "sizes": [{"n": 1, "a": 2, "b": 3}, {"n": 100, "a": 5, "b": 4}, {"n": 2000000, "a": 64, "b": 64}],
    },
    "hist_parallel": {
        "args": {"x": ("n",), "nbins": {"kind": "scalar", "value": "b"},
                 "lo": {"kind": "scalar", "value": -1.0}, "hi": {"kind": "scalar", "value": 1.0}},
        "sizes": [{"n": 0, "b": 2}, {"n": 37, "b": 5}, {"n": 4000000, "b": 256}],
    },
    "weighted_hist_digitize": {
        "args": {"x": ("n",), "w": ("n",),
                 "edges": {"kind": "array", "shape": ("e",), "values": "sorted", "low": -0.9, "high": 0.9}},
        "sizes": [{"n": 1, "e": 2}, {"n": 60, "e": 6}, {"n": 300000, "e": 65}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
}
