"""k-means clustering: assignment, centroid update, Lloyd iterations and k-means++ seeding from given uniforms.
Like the clustering loops in data-science blog posts that "make k-means 100x faster with Numba".
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def assign_labels(X, centroids):
    n = X.shape[0]
    k = centroids.shape[0]
    labels = np.empty(n, dtype=np.int64)
    for i in prange(n):
        best = np.inf
        lab = -1
        for c in range(k):
            d = 0.0
            for j in range(X.shape[1]):
                diff = X[i, j] - centroids[c, j]
                d += diff * diff
            if d < best:
                best = d
                lab = c
        labels[i] = lab
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
def inertia(X, centroids, labels):
    total = 0.0
    for i in range(X.shape[0]):
        total += np.sum((X[i] - centroids[labels[i]]) ** 2)
    return total


@njit
def kmeans(X, init, max_iter, tol):
    centroids = init.copy()
    k = init.shape[0]
    labels = assign_labels(X, centroids)
    it = 0
    while it < max_iter:
        new, counts = update_centroids(X, labels, k)
        for c in range(k):
            if counts[c] == 0:
                new[c] = centroids[c]
        shift = np.sqrt(((new - centroids) ** 2).sum())
        centroids = new
        labels = assign_labels(X, centroids)
        it += 1
        if shift < tol:
            break
    return centroids, labels, it


@njit
def kmeans_pp_init(X, k, u):
    n = X.shape[0]
    centers = np.empty((k, X.shape[1]))
    centers[0] = X[int(u[0] * n)]
    d2 = ((X - centers[0]) ** 2).sum(axis=1)
    for c in range(1, k):
        cdf = np.cumsum(d2)
        idx = np.searchsorted(cdf, u[c] * cdf[-1])
        idx = min(idx, n - 1)
        centers[c] = X[idx]
        d2 = np.minimum(d2, ((X - centers[c]) ** 2).sum(axis=1))
    return centers


KPC_CASES = {
    "assign_labels": {
        "args": {"X": ("n", "d"), "centroids": ("k", "d")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "d": 1, "k": 1}, {"n": 200000, "d": 8, "k": 16}],
        "layouts": ["C", "F"],
    },
    "update_centroids": {
        "args": {"X": ("n", "d"), "labels": {"kind": "index", "shape": ("n",), "high": "k"},
                 "k": {"kind": "scalar", "value": "k"}},
        "sizes": [{"n": 1, "d": 1, "k": 2}, {"n": 500000, "d": 8, "k": 16}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "inertia": {
        "args": {"X": ("n", "d"), "centroids": ("k", "d"), "labels": {"kind": "index", "shape": ("n",), "high": "k"}},
        "sizes": [{"n": 1, "d": 1, "k": 1}, {"n": 200000, "d": 8, "k": 16}],
        "rtol": 1e-9,
    },
    "kmeans": {
        "args": {"X": ("n", "d"), "init": ("k", "d"), "max_iter": {"kind": "scalar", "value": "it"},
                 "tol": {"kind": "scalar", "value": 1e-6}},
        "sizes": [{"n": 3, "d": 2, "k": 2, "it": 5}, {"n": 5000, "d": 4, "k": 8, "it": 10}],
        "rtol": 1e-8,
        "atol": 1e-10,
    },
    "kmeans_pp_init": {
        "args": {"X": ("n", "d"), "k": {"kind": "scalar", "value": "k"},
                 "u": {"kind": "array", "shape": ("k",), "low": 0.0, "high": 1.0}},
        "sizes": [{"n": 1, "d": 1, "k": 1}, {"n": 100000, "d": 8, "k": 16}],
    },
}
