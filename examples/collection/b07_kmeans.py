"""k-means clustering: parallel assignment step, centroid update, a few Lloyd iterations, and a NumPy-broadcast assignment.
The usual "k-means in Numba" code from clustering tutorials and blog posts.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def assign_clusters(X, centroids):
    n = X.shape[0]
    k = centroids.shape[0]
    labels = np.empty(n, dtype=np.int64)
    for i in prange(n):
        best = 0
        best_d = np.inf
        for c in range(k):
            d = 0.0
            for j in range(X.shape[1]):
                diff = X[i, j] - centroids[c, j]
                d += diff * diff
            if d < best_d:
                best_d = d
                best = c
        labels[i] = best
    return labels


@njit
def update_centroids(X, labels, k):
    d = X.shape[1]
    sums = np.zeros((k, d))
    counts = np.zeros(k, dtype=np.int64)
    for i in range(X.shape[0]):
        sums[labels[i]] += X[i]
        counts[labels[i]] += 1
    for c in range(k):
        if counts[c] > 0:
            sums[c] /= counts[c]
    return sums, counts


@njit
def kmeans(X, init, n_iter):
    C = init.copy()
    labels = assign_clusters(X, C)
    for it in range(n_iter):
        newC, counts = update_centroids(X, labels, C.shape[0])
        for c in range(C.shape[0]):
            if counts[c] > 0:
                C[c] = newC[c]
        labels = assign_clusters(X, C)
    return C, labels


@njit
def assign_numpy(X, centroids):
    d2 = ((X[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    labels = np.empty(X.shape[0], dtype=np.int64)
    for i in range(X.shape[0]):
        labels[i] = np.argmin(d2[i])
    return labels


KPC_CASES = {
    "assign_clusters": {
        "args": {"X": ("n", "d"), "centroids": ("k", "d")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 10, "d": 2, "k": 3}, {"n": 200, "d": 3, "k": 5}],
    },
    "update_centroids": {
        "args": {"X": ("n", "d"), "labels": {"kind": "index", "shape": ("n",), "high": "k"},
                 "k": {"kind": "scalar", "value": "k"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 10, "d": 2, "k": 3}, {"n": 200, "d": 3, "k": 5}],
    },
    "kmeans": {
        "args": {"X": ("n", "d"), "init": ("k", "d"), "n_iter": {"kind": "scalar", "value": "it"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 10, "d": 2, "k": 3, "it": 2}, {"n": 200, "d": 3, "k": 5, "it": 5}],
    },
    "assign_numpy": {
        "args": {"X": ("n", "d"), "centroids": ("k", "d")},
        "dtypes": ["float64"],
        "sizes": [{"n": 10, "d": 2, "k": 3}, {"n": 200, "d": 3, "k": 5}],
    },
}
