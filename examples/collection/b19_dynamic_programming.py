"""Dynamic programming on integer arrays: Levenshtein edit distance, longest common subsequence, all-pairs edit distances and Floyd-Warshall shortest paths.
Bioinformatics and graph-algorithm code accelerated with Numba.
"""
import numpy as np
from numba import njit, prange


@njit
def edit_distance(a, b):
    n, m = a.shape[0], b.shape[0]
    D = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        D[i, 0] = i
    for j in range(m + 1):
        D[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[n, m]


@njit
def lcs_length(a, b):
    m = b.shape[0]
    prev = np.zeros(m + 1, dtype=np.int64)
    cur = np.zeros(m + 1, dtype=np.int64)
    for i in range(a.shape[0]):
        for j in range(1, m + 1):
            if a[i] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
            else:
                cur[j] = max(prev[j], cur[j - 1])
        prev, cur = cur, prev
    return prev[m]


@njit(parallel=True)
def all_pairs_edit(seqs):
    k = seqs.shape[0]
    out = np.zeros((k, k), dtype=np.int64)
    for i in prange(k):
        for j in range(k):
            out[i, j] = edit_distance(seqs[i], seqs[j])
    return out


@njit
def floyd_warshall(W):
    n = W.shape[0]
    D = W.copy()
    for i in range(n):
        D[i, i] = 0.0
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if D[i, k] + D[k, j] < D[i, j]:
                    D[i, j] = D[i, k] + D[k, j]
    return D


@njit
def floyd_warshall_numpy(W):
    D = W.copy()
    np.fill_diagonal(D, 0.0)
    for k in range(D.shape[0]):
        D = np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :])
    return D


KPC_CASES = {
    "edit_distance": {
        "args": {"a": {"kind": "index", "shape": ("n",), "high": 4},
                 "b": {"kind": "index", "shape": ("m",), "high": 4}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 30, "m": 45}],
    },
    "lcs_length": {
        "args": {"a": {"kind": "index", "shape": ("n",), "high": 4},
                 "b": {"kind": "index", "shape": ("m",), "high": 4}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 30, "m": 45}],
    },
    "all_pairs_edit": {
        "args": {"seqs": {"kind": "index", "shape": ("k", "L"), "high": 4}},
        "dtypes": ["int64"],
        "sizes": [{"k": 2, "L": 3}, {"k": 20, "L": 16}],
    },
    "floyd_warshall": {
        "args": {"W": {"kind": "array", "shape": ("n", "n"), "low": 0.1, "high": 10.0}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 30}],
    },
    "floyd_warshall_numpy": {
        "args": {"W": {"kind": "array", "shape": ("n", "n"), "low": 0.1, "high": 10.0}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 30}],
    },
}
