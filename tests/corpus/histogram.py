"""Histograms with data-dependent scatter indices.

Exercises: `hist[idx[i]] += 1` inside a `prange` (a scatter update: the
Kokkos target needs an atomic; Numba itself does NOT make it atomic, so
the Numba reference runs single-threaded, see `serial_reference`),
binning of float data with `int(...)` truncation and clamping, a
weighted histogram with float increments.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def count_labels(idx, hist):
    for i in prange(idx.shape[0]):
        hist[idx[i]] += 1


@njit(parallel=True)
def histogram_uniform(x, lo, hi, nbins):
    hist = np.zeros(nbins, dtype=np.int64)
    width = (hi - lo) / nbins
    for i in prange(x.shape[0]):
        b = int((x[i] - lo) / width)
        if b < 0:
            b = 0
        elif b >= nbins:
            b = nbins - 1
        hist[b] += 1
    return hist


@njit(parallel=True)
def weighted_counts(idx, weights, out):
    for i in prange(idx.shape[0]):
        out[idx[i]] += weights[i]


KPC_CASES = {
    "count_labels": {
        "args": {
            "idx": {"kind": "index", "shape": ("n",), "high": "bins"},
            "hist": {"kind": "array", "shape": ("bins",), "dtype": "int64", "low": 0, "high": 5},
        },
        "sizes": [{"n": 0, "bins": 1}, {"n": 1, "bins": 1}, {"n": 33, "bins": 7}, {"n": 100, "bins": 4}],
        "dtypes": ["int64"],
        "writes": ["hist"],
        "layouts": ["C", "strided"],
        "serial_reference": True,
    },
    "histogram_uniform": {
        "args": {
            "x": {"kind": "array", "shape": ("n",), "low": -1.2, "high": 1.2},
            "lo": {"kind": "scalar", "value": -1.0},
            "hi": {"kind": "scalar", "value": 1.0},
            "nbins": {"kind": "scalar", "value": "bins"},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "bins": 3}, {"n": 7, "bins": 1}, {"n": 100, "bins": 10}],
        "serial_reference": True,
    },
    "weighted_counts": {
        "args": {
            "idx": {"kind": "index", "shape": ("n",), "high": "bins"},
            "weights": ("n",),
            "out": ("bins",),
        },
        "dtypes": ["float64"],
        "sizes": [{"n": 0, "bins": 2}, {"n": 33, "bins": 5}, {"n": 100, "bins": 3}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
        "serial_reference": True,
    },
}
