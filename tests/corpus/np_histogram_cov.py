"""Histograms and covariance matrices, as data-analysis kernels write them.

Exercises: `np.histogram` with a number of bins, over the data's own range and over a
given `range=(lo, hi)` (integer data: many values fall exactly on bin edges, and values
outside the range are skipped), and with an array of bin edges (sorted, repeated integer
edges, a single edge: no bins; the edges returned as given), unpacked (`h, e = ...`) and
returned as a pair; `np.cov` of the rows of a matrix and of its columns (`rowvar=False`),
with `bias` and `ddof`, and of two arrays (`np.cov(x, y)` of 1-D ones: the 2x2 matrix; of
a matrix and a 1-D or 2-D array: their rows stacked), float64 for every input dtype as in
Numba; `np.cov(x)` of one 1-D array (a 0-d array in Numba) read as a scalar: `[()]`, times a
scalar, under `np.sqrt`, with `ddof` and `bias`, and in a loop over the rows of a matrix
(a single observation: NaN, as Numba). Computed on the Kokkos target by the serial host routines of kpc_linalg.hpp.
"""
import numpy as np
from numba import njit


@njit
def histogram_auto(x, nbins):
    counts, edges = np.histogram(x, bins=nbins)
    return counts, edges, counts.sum()


@njit
def histogram_range(x, nbins):
    return np.histogram(x, nbins, range=(-5, 5))


@njit
def histogram_scaled(x):
    h, e = np.histogram(x * 3.0, bins=7, range=(-1.5, 2.0))
    return h * 2, e[1:] - e[:-1]


@njit
def histogram_given_edges(x, edges):
    h, e = np.histogram(x, edges)
    return h, e, h.sum()


@njit
def histogram_given_edges_sliced(x, edges):
    h, e = np.histogram(x * 2.0, bins=edges[1:])
    return h, e[-1] - e[0]


@njit
def covariance(m):
    return np.cov(m), np.cov(m, rowvar=False)


@njit
def covariance_options(m, ddof):
    return np.cov(m, bias=True), np.cov(m.T, ddof=ddof)


@njit
def covariance_pair(x, y):
    return np.cov(x, y), np.cov(x, y, bias=True)[0, 1]


@njit
def covariance_stacked(m, y, ddof):
    return np.cov(m, y), np.cov(m.T, y, rowvar=False, ddof=ddof), np.cov(m, m[::-1] * 2.0)


@njit
def variance_by_cov(x, ddof):
    var = np.cov(x)[()]
    sd = np.sqrt(np.cov(x, ddof=ddof))
    return var, sd, np.cov(x, bias=True) * 0.5, 2.0 - np.cov(x * 3.0)


@njit
def row_variances(m):
    out = np.empty(m.shape[0])
    for i in range(m.shape[0]):
        out[i] = np.cov(m[i])[()]
    return out, np.cov(m[:, 0], m[:, -1])


KPC_CASES = {
    "histogram_auto": {
        "args": {"x": ("n",), "nbins": {"kind": "scalar", "value": "b"}},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 6, "b": 1}, {"n": 50, "b": 7}, {"n": 1000, "b": 10}],
        "layouts": ["C", "strided"],
    },
    "histogram_range": {
        "args": {"x": ("n",), "nbins": {"kind": "scalar", "value": "b"}},
        "dtypes": ["int64", "float64", "float32"],
        "sizes": [{"n": 0, "b": 3}, {"n": 40, "b": 10}, {"n": 500, "b": 4}],
    },
    "histogram_scaled": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1}, {"n": 300}],
    },
    "histogram_given_edges": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": -8, "high": 8},
                 "edges": {"kind": "array", "shape": ("b",), "values": "sorted", "low": -6, "high": 6}},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 0, "b": 2}, {"n": 1, "b": 1}, {"n": 50, "b": 5}, {"n": 1000, "b": 12}],
        "layouts": ["C", "strided"],
    },
    "histogram_given_edges_sliced": {
        "args": {"x": ("n",),
                 "edges": {"kind": "array", "shape": ("b",), "values": "sorted", "low": -8, "high": 8,
                           "dtype": "float64"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 30, "b": 3}, {"n": 400, "b": 9}],
    },
    "covariance": {
        "args": {"m": ("v", "k")},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"v": 2, "k": 2}, {"v": 3, "k": 9}, {"v": 12, "k": 40}],
        "layouts": ["C", "F", "strided"],
        "rtol": 1e-12,
        "atol": 1e-14,
    },
    "covariance_options": {
        "args": {"m": ("v", "k"), "ddof": {"kind": "scalar", "value": "d"}},
        "dtypes": ["float64"],
        "sizes": [{"v": 4, "k": 6, "d": 0}, {"v": 5, "k": 30, "d": 2}],
        "rtol": 1e-12,
        "atol": 1e-14,
    },
    "covariance_pair": {
        "args": {"x": ("k",), "y": ("k",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"k": 2}, {"k": 9}, {"k": 300}],
        "layouts": ["C", "strided"],
        "rtol": 1e-12,
        "atol": 1e-14,
    },
    "covariance_stacked": {
        "args": {"m": ("v", "k"), "y": ("k",), "ddof": {"kind": "scalar", "value": "d"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"v": 2, "k": 3, "d": 0}, {"v": 4, "k": 25, "d": 2}],
        "layouts": ["C", "F"],
        "rtol": 1e-12,
        "atol": 1e-14,
    },
    "variance_by_cov": {
        "args": {"x": ("k",), "ddof": {"kind": "scalar", "value": "d"}},
        "dtypes": ["float64", "float32", "int64", "int16"],
        "sizes": [{"k": 1, "d": 0}, {"k": 2, "d": 1}, {"k": 9, "d": 2}, {"k": 500, "d": 0}],
        "layouts": ["C", "strided"],
        "rtol": 1e-12,
        "atol": 1e-14,
    },
    "row_variances": {
        "args": {"m": ("v", "k")},
        "dtypes": ["float64", "int32"],
        "sizes": [{"v": 1, "k": 1}, {"v": 3, "k": 2}, {"v": 40, "k": 30}],
        "layouts": ["C", "F", "strided"],
        "rtol": 1e-12,
        "atol": 1e-14,
    },
}
