"""Kernels that allocate and return new arrays.

Exercises: `np.empty`, `np.zeros`, `np.ones`, `np.empty_like` and
`np.zeros_like` inside kernels (shape from arguments, explicit dtypes),
a pairwise-distance matrix filled by a `prange` (the result is symmetric,
each row written by one iteration), and a moving average whose output is
shorter than its input.
"""
import math

import numpy as np
from numba import njit, prange


@njit(parallel=True)
def pairwise_distances(X):
    n, d = X.shape
    D = np.empty((n, n))
    for i in prange(n):
        for j in range(n):
            s = 0.0
            for k in range(d):
                t = X[i, k] - X[j, k]
                s += t * t
            D[i, j] = math.sqrt(s)
    return D


@njit
def moving_average(x, w):
    n = x.shape[0]
    m = max(n - w + 1, 0)
    out = np.zeros(m, dtype=np.float64)
    for i in range(m):
        acc = 0.0
        for k in range(w):
            acc += x[i + k]
        out[i] = acc / w
    return out


@njit
def indicator_and_counts(labels, nclasses):
    onehot = np.zeros((labels.shape[0], nclasses), dtype=np.int64)
    counts = np.zeros(nclasses, dtype=np.int64)
    for i in range(labels.shape[0]):
        onehot[i, labels[i]] = 1
        counts[labels[i]] += 1
    return onehot, counts


@njit
def padded(a, pad):
    n, m = a.shape
    out = np.ones((n + 2 * pad, m + 2 * pad), dtype=a.dtype)
    out[pad:pad + n, pad:pad + m] = a
    return out


@njit
def doubled(x):
    y = np.empty_like(x)
    z = np.zeros_like(x)
    for i in range(x.shape[0]):
        y[i] = 2 * x[i]
        z[i] = y[i] - x[i]
    return y, z


KPC_CASES = {
    "pairwise_distances": {
        "args": {"X": ("n", "d")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "d": 3}, {"n": 1, "d": 2}, {"n": 33, "d": 3}],
        "layouts": ["C", "F", "strided"],
    },
    "moving_average": {
        "args": {"x": ("n",), "w": {"kind": "scalar", "value": "w"}},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 0, "w": 3}, {"n": 2, "w": 3}, {"n": 7, "w": 1}, {"n": 100, "w": 5}],
        "layouts": ["C", "strided"],
    },
    "indicator_and_counts": {
        "args": {
            "labels": {"kind": "index", "shape": ("n",), "high": "k"},
            "nclasses": {"kind": "scalar", "value": "k"},
        },
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "k": 2}, {"n": 7, "k": 3}, {"n": 33, "k": 5}],
    },
    "padded": {
        "args": {"a": ("n", "m"), "pad": {"kind": "scalar", "value": "p"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0, "m": 0, "p": 1}, {"n": 3, "m": 4, "p": 0}, {"n": 7, "m": 5, "p": 2}],
        "layouts": ["C", "F", "strided"],
    },
    "doubled": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 0}, {"n": 7}],
    },
}
