"""Searches of sorted data, as binning, sampling and resampling kernels write them.

Exercises: `np.searchsorted` of an array of values and of one value (in a loop, inside a
`prange` body, into a cumulative sum bound in a loop and read twice), side 'left' and 'right', on sorted data with ties, on integer data searched
with floats, on unsorted data (Numba starts each search of an array from the previous result,
and kpc's results are Numba's), on keys holding NaN (sorted last), and of a 2-D array of
values; `np.digitize` with increasing and decreasing bins, `right=True`, one value and arrays;
`np.interp` of an array and of one value, points outside the samples (the ends are held), NaN
points, a 2-D array of points, integer samples; `np.append` of an array and a scalar, of two
arrays of other ranks and dtypes (flattened, promoted as Numba: a Python int appended to an int32
array gives int64), and `np.concatenate` of 1-D parts, in run-length and segment-sum kernels;
`np.unique` of floats with NaN (one NaN kept), of integers with many repeats, of a matrix and of
an empty array, and counts by `np.searchsorted` into it; `np.kron` of matrices (C and F order), of vectors, and of a vector by a matrix, applied to a
vector with `@` (an integer by a float matrix, whose result has the first operand's dtype in
Numba, not NumPy's, is checked in tests/backend/test_array_functions.py). Numba's errors (bins neither increasing nor
decreasing, empty or mismatched samples) are checked in tests/backend/test_searches.py.
"""
import numpy as np
from numba import njit, prange


@njit
def bin_positions(edges, x):
    left = np.searchsorted(edges, x)
    right = np.searchsorted(edges, x, side="right")
    return left, right, (right - left).sum()


@njit
def inverse_cdf_sample(w, u):
    cdf = np.cumsum(w)
    out = np.empty(u.shape[0], dtype=np.int64)
    for i in range(u.shape[0]):
        out[i] = np.searchsorted(cdf, u[i] * cdf[-1], side="right")
    return out


@njit
def seeds_by_cdf(w, u):
    # k-means++ seeding: a cumulative sum bound in a loop and read twice (computed once)
    picked = np.empty(u.shape[0], dtype=np.int64)
    d = w.copy()
    for c in range(u.shape[0]):
        cdf = np.cumsum(d)
        idx = min(np.searchsorted(cdf, u[c] * cdf[-1]), d.shape[0] - 1)
        picked[c] = idx
        d = np.minimum(d, np.abs(w - w[idx]))
    return picked


@njit(parallel=True)
def parallel_lookup(edges, x):
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in prange(x.shape[0]):
        out[i] = np.searchsorted(edges, x[i]) + np.searchsorted(edges, x[i], side="right")
    return out


@njit
def search_unsorted(a, v):
    return np.searchsorted(a, v), np.searchsorted(a, v, side="right")


@njit
def search_scaled(a, v):
    return np.searchsorted(a, v * 0.5), np.searchsorted(a, 2), np.searchsorted(v, v[::-1], side="right")


@njit
def search_grid(edges, grid):
    return np.searchsorted(edges, grid)


@njit
def bucketize(x, bins):
    return np.digitize(x, bins), np.digitize(x, bins, True), np.digitize(x, bins[::-1]), \
        np.digitize(x, bins[::-1], right=True)


@njit(parallel=True)
def bucket_counts(x, bins):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in prange(x.shape[0]):
        out[i] = np.digitize(x[i], bins) - np.digitize(x[i] * 2.0, bins, True)
    return out


@njit
def resample(t_old, y_old, t_new):
    return np.interp(t_new, t_old, y_old)


@njit
def interp_points(t_old, y_old, t):
    out = np.empty(t.shape[0])
    for i in range(t.shape[0]):
        out[i] = np.interp(t[i] * 1.5, t_old, y_old)
    return out, np.interp(0.25, t_old, y_old), np.interp(t_old[0], t_old, y_old)


@njit
def interp_grid(t_old, y_old, grid):
    return np.interp(grid, t_old, y_old * 2)


@njit
def run_lengths(x):
    n = x.shape[0]
    change = np.empty(n, dtype=np.bool_)
    change[0] = True
    change[1:] = x[1:] != x[:-1]
    starts = np.nonzero(change)[0]
    return x[starts], np.diff(np.append(starts, n))


@njit
def append_mixed(a, m):
    return np.append(a, 7), np.append(a, 2.5), np.append(a[::2], m), np.append(m, a * 2)


@njit
def segment_sums(keys, values):
    # keys sorted: one segment per run of equal keys
    csum = np.concatenate((np.zeros(1), np.cumsum(values)))
    starts = np.concatenate((np.zeros(1, dtype=np.int64), np.flatnonzero(np.diff(keys)) + 1))
    ends = np.append(starts[1:], keys.shape[0])
    return starts, csum[ends] - csum[starts]


@njit
def distinct(x):
    u = np.unique(x)
    return u, u.shape[0], np.unique(x[::-1] * 2)


@njit
def value_counts(x):
    u = np.unique(x)
    counts = np.zeros(u.shape[0], dtype=np.int64)
    for i in np.searchsorted(u, x):
        counts[i] += 1
    return u, counts


@njit
def distinct_cells(m):
    return np.unique(m)


@njit
def kron_blocks(A, B):
    return np.kron(A, B), np.kron(B, A)


@njit
def kron_apply(A, B, x):
    return np.kron(A, B) @ x


@njit
def kron_vectors(a, b, M):
    return np.kron(a, b), np.kron(a, M), np.kron(M, b * 2.0)


KPC_CASES = {
    "bin_positions": {
        "args": {"edges": {"kind": "array", "shape": ("m",), "values": "sorted"},
                 "x": ("n",)},
        "dtypes": ["float64", "float32", "int64", "int32"],
        "sizes": [{"m": 0, "n": 3}, {"m": 1, "n": 0}, {"m": 9, "n": 40}, {"m": 200, "n": 5000}],
        "layouts": ["C", "strided"],
    },
    "seeds_by_cdf": {
        "args": {"w": {"kind": "array", "shape": ("m",), "low": 0.0, "high": 1.0},
                 "u": {"kind": "array", "shape": ("n",), "low": 0.0, "high": 1.0}},
        "sizes": [{"m": 1, "n": 1}, {"m": 17, "n": 5}, {"m": 3000, "n": 9}],
    },
    "inverse_cdf_sample": {
        "args": {"w": {"kind": "array", "shape": ("m",), "low": 0.0, "high": 1.0},
                 "u": {"kind": "array", "shape": ("n",), "low": 0.0, "high": 1.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"m": 1, "n": 4}, {"m": 17, "n": 50}, {"m": 1000, "n": 2000}],
        "layouts": ["C", "strided"],
    },
    "parallel_lookup": {
        "args": {"edges": {"kind": "array", "shape": ("m",), "values": "sorted"}, "x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"m": 5, "n": 3}, {"m": 64, "n": 3000}],
        "layouts": ["C", "strided"],
    },
    "search_unsorted": {
        "args": {"a": ("m",), "v": ("n",)},
        "dtypes": ["float64", "int64", "int16"],
        "sizes": [{"m": 1, "n": 1}, {"m": 13, "n": 30}, {"m": 300, "n": 700}],
        "layouts": ["C", "strided"],
    },
    "search_scaled": {
        "args": {"a": {"kind": "array", "shape": ("m",), "values": "sorted"},
                 "v": {"kind": "array", "shape": ("n",), "values": "nan"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"m": 1, "n": 1}, {"m": 30, "n": 64}, {"m": 500, "n": 900}],
    },
    "search_grid": {
        "args": {"edges": {"kind": "array", "shape": ("m",), "values": "sorted"}, "grid": ("n", "k")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"m": 4, "n": 1, "k": 1}, {"m": 20, "n": 7, "k": 9}],
        "layouts": ["C", "F", "strided"],
    },
    "bucketize": {
        "args": {"x": ("n",), "bins": {"kind": "array", "shape": ("m",), "values": "sorted"}},
        "dtypes": ["float64", "int64", "float32"],
        "sizes": [{"n": 5, "m": 0}, {"n": 0, "m": 4}, {"n": 50, "m": 1}, {"n": 3000, "m": 33}],
        "layouts": ["C", "strided"],
    },
    "bucket_counts": {
        "args": {"x": ("n",), "bins": {"kind": "array", "shape": ("m",), "values": "sorted"}},
        "dtypes": ["float64", "int32"],
        "sizes": [{"n": 3, "m": 2}, {"n": 4000, "m": 17}],
    },
    "resample": {
        "args": {"t_old": {"kind": "array", "shape": ("m",), "values": "sorted"}, "y_old": ("m",),
                 "t_new": {"kind": "array", "shape": ("n",), "low": -1.2, "high": 1.2}},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"m": 1, "n": 5}, {"m": 2, "n": 9}, {"m": 4, "n": 30}, {"m": 300, "n": 5000}],
        "layouts": ["C", "strided"],
        "rtol": 1e-12,
        "atol": 1e-12,
    },
    "interp_points": {
        "args": {"t_old": {"kind": "array", "shape": ("m",), "values": "sorted"},
                 "y_old": {"kind": "array", "shape": ("m",), "values": "nan"}, "t": ("n",)},
        "dtypes": ["float64", "int32"],
        "sizes": [{"m": 1, "n": 3}, {"m": 6, "n": 40}, {"m": 100, "n": 1000}],
        "rtol": 1e-12,
        "atol": 1e-12,
    },
    "interp_grid": {
        "args": {"t_old": {"kind": "array", "shape": ("m",), "values": "sorted"}, "y_old": ("m",),
                 "grid": {"kind": "array", "shape": ("n", "k"), "values": "nan"}},
        "dtypes": ["float64", "int32"],
        "sizes": [{"m": 3, "n": 1, "k": 1}, {"m": 40, "n": 6, "k": 11}],
        "layouts": ["C", "F"],
        "rtol": 1e-12,
        "atol": 1e-12,
    },
    "run_lengths": {
        "args": {"x": {"kind": "index", "shape": ("n",), "high": 3}},
        "dtypes": ["int64"],
        "sizes": [{"n": 1}, {"n": 2}, {"n": 50}, {"n": 3000}],
        "layouts": ["C", "strided"],
    },
    "append_mixed": {
        "args": {"a": ("n",), "m": ("k", "j")},
        "dtypes": ["float64", "float32", "int32", "int64"],
        "sizes": [{"n": 0, "k": 0, "j": 2}, {"n": 1, "k": 1, "j": 1}, {"n": 9, "k": 3, "j": 4}],
        "layouts": ["C", "F", "strided"],
    },
    "segment_sums": {
        "args": {"keys": {"kind": "array", "shape": ("n",), "dtype": "int64", "values": "sorted"}, "values": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1}, {"n": 40}, {"n": 5000}],
        "layouts": ["C", "F"],  # Numba has no np.diff of a strided array
        "rtol": 1e-10,
        "atol": 1e-10,
    },
    "distinct": {
        "args": {"x": {"kind": "array", "shape": ("n",), "values": "nan"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 40}, {"n": 3000}],
        "layouts": ["C", "strided"],
    },
    "value_counts": {
        "args": {"x": {"kind": "index", "shape": ("n",), "low": -4, "high": "k"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 1, "k": 1}, {"n": 100, "k": 9}, {"n": 5000, "k": 300}],
        "layouts": ["C", "strided"],
    },
    "distinct_cells": {
        "args": {"m": ("n", "k")},
        "dtypes": ["int16", "float64", "bool"],
        "sizes": [{"n": 0, "k": 3}, {"n": 4, "k": 5}, {"n": 60, "k": 70}],
        "layouts": ["C", "F", "strided"],
    },
    "kron_blocks": {
        "args": {"A": ("n", "k"), "B": ("m", "j")},
        "dtypes": ["float64", "int64", "float32"],
        "sizes": [{"n": 1, "k": 1, "m": 1, "j": 1}, {"n": 2, "k": 3, "m": 4, "j": 2}, {"n": 0, "k": 3, "m": 2, "j": 2},
                  {"n": 30, "k": 20, "m": 8, "j": 9}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-12, "float32": 1e-6},
        "atol": {"float64": 1e-12, "float32": 1e-6},
    },
    "kron_apply": {
        "args": {"A": ("n", "n"), "B": ("m", "m"), "x": ("n * m",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 3, "m": 4}, {"n": 24, "m": 24}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
        "atol": 1e-10,
    },
    "kron_vectors": {
        "args": {"a": ("n",), "b": ("m",), "M": ("k", "j")},
        "dtypes": ["float64", "int32"],
        "sizes": [{"n": 1, "m": 1, "k": 1, "j": 1}, {"n": 5, "m": 3, "k": 2, "j": 4}],
        "layouts": ["C"],
        "rtol": 1e-12,
        "atol": 1e-12,
    },
}
