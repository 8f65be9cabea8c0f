"""Pairwise Euclidean distances (parallel loops and the |x|^2 + |y|^2 - 2 x.y NumPy trick) and cosine similarity.
Ubiquitous in nearest-neighbour, clustering and kernel-method code.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True, fastmath=True)
def pairwise_euclidean(X):
    n = X.shape[0]
    D = np.empty((n, n))
    for i in prange(n):
        for j in range(n):
            s = 0.0
            for k in range(X.shape[1]):
                t = X[i, k] - X[j, k]
                s += t * t
            D[i, j] = np.sqrt(s)
    return D


@njit
def pairwise_numpy(X, Y):
    XX = np.sum(X ** 2, axis=1)
    YY = np.sum(Y ** 2, axis=1)
    D2 = XX.reshape(-1, 1) + YY.reshape(1, -1) - 2.0 * X @ Y.T
    return np.sqrt(np.maximum(D2, 0.0))


@njit
def cosine_similarity(X):
    norms = np.sqrt((X * X).sum(axis=1))
    Xn = X / norms[:, np.newaxis]
    return Xn @ Xn.T


@njit(parallel=True)
def nearest_neighbor(X, Y):
    # index of the nearest row of Y for every row of X, and its distance
    idx = np.empty(X.shape[0], dtype=np.int64)
    dist = np.empty(X.shape[0])
    for i in prange(X.shape[0]):
        d = np.sqrt(np.sum((Y - X[i]) ** 2, axis=1))
        j = np.argmin(d)
        idx[i] = j
        dist[i] = d[j]
    return idx, dist


KPC_CASES = {
    "pairwise_euclidean": {
        "args": {"X": ("n", "d")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 5, "d": 3}, {"n": 100, "d": 8}],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
        "atol": {"float64": 1e-10, "float32": 1e-4},
    },
    "pairwise_numpy": {
        "args": {"X": ("n", "d"), "Y": ("m", "d")},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "m": 4, "d": 3}, {"n": 60, "m": 70, "d": 8}],
        "rtol": 1e-9,
        "atol": 1e-6,
    },
    "cosine_similarity": {
        "args": {"X": ("n", "d")},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "d": 3}, {"n": 50, "d": 16}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "nearest_neighbor": {
        "args": {"X": ("n", "d"), "Y": ("m", "d")},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "m": 4, "d": 3}, {"n": 60, "m": 70, "d": 8}],
        "rtol": 1e-10,
    },
}
