"""k-means variants: matmul-form assignment, a mini-batch update, k-medians, silhouette scores, k-means++ seeding.
Like the clustering loops in data-science blog posts that "make k-means 100x faster with Numba".
"""
import numpy as np
from numba import njit, prange


@njit
def assign_labels(X, centroids):
    # ||x - c||^2 = ||x||^2 - 2 x.c + ||c||^2, the matmul form used by scikit-learn style code
    xx = (X * X).sum(axis=1)
    cc = (centroids * centroids).sum(axis=1)
    D = xx.reshape(-1, 1) - 2.0 * (X @ centroids.T) + cc.reshape(1, -1)
    labels = np.empty(X.shape[0], dtype=np.int64)
    mind = np.empty(X.shape[0])
    for i in range(X.shape[0]):
        labels[i] = np.argmin(D[i])
        mind[i] = max(D[i, labels[i]], 0.0)
    return labels, mind


@njit
def minibatch_step(X, centroids, counts, batch):
    C = centroids.copy()
    cnt = counts.copy()
    Xb = X[batch]
    labels, _ = assign_labels(Xb, C)
    for t in range(Xb.shape[0]):
        c = labels[t]
        cnt[c] += 1
        eta = 1.0 / cnt[c]
        C[c] = (1.0 - eta) * C[c] + eta * Xb[t]
    return C, cnt


@njit
def kmedians_update(X, labels, k):
    out = np.zeros((k, X.shape[1]))
    for c in range(k):
        members = X[labels == c]
        if members.shape[0] == 0:
            continue
        for j in range(X.shape[1]):
            out[c, j] = np.median(members[:, j])
    return out


@njit(parallel=True)
def silhouette_samples(X, labels, k):
    n = X.shape[0]
    sizes = np.bincount(labels, minlength=k)
    s = np.zeros(n)
    for i in prange(n):
        dsum = np.zeros(k)
        for j in range(n):
            d = 0.0
            for t in range(X.shape[1]):
                d += (X[i, t] - X[j, t]) ** 2
            dsum[labels[j]] += np.sqrt(d)
        own = labels[i]
        if sizes[own] <= 1:
            continue
        a = dsum[own] / (sizes[own] - 1)
        b = np.inf
        for c in range(k):
            if c != own and sizes[c] > 0:
                b = min(b, dsum[c] / sizes[c])
        s[i] = (b - a) / max(a, b) if b < np.inf else 0.0
    return s


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
        "sizes": [{"n": 1, "d": 1, "k": 1}, {"n": 50000, "d": 8, "k": 16}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-9, "float32": 1e-3},
        "atol": {"float64": 1e-9, "float32": 1e-3},
    },
    "minibatch_step": {
        "args": {"X": ("n", "d"), "centroids": ("k", "d"),
                 "counts": {"kind": "index", "shape": ("k",), "low": 1, "high": 5},
                 "batch": {"kind": "index", "shape": ("b",), "high": "n"}},
        "sizes": [{"n": 1, "d": 1, "k": 1, "b": 1}, {"n": 200000, "d": 8, "k": 16, "b": 50000}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "kmedians_update": {
        "args": {"X": ("n", "d"), "labels": {"kind": "index", "shape": ("n",), "high": "k"},
                 "k": {"kind": "scalar", "value": "k + 1"}},
        "sizes": [{"n": 1, "d": 1, "k": 2}, {"n": 100000, "d": 8, "k": 16}],
        "rtol": 1e-12,
    },
    "silhouette_samples": {
        "args": {"X": ("n", "d"), "labels": {"kind": "index", "shape": ("n",), "high": "k"},
                 "k": {"kind": "scalar", "value": "k"}},
        "sizes": [{"n": 1, "d": 1, "k": 1}, {"n": 12, "d": 2, "k": 3}, {"n": 2000, "d": 4, "k": 5}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "kmeans_pp_init": {
        "args": {"X": ("n", "d"), "k": {"kind": "scalar", "value": "k"},
                 "u": {"kind": "array", "shape": ("k",), "low": 0.0, "high": 1.0}},
        "sizes": [{"n": 1, "d": 1, "k": 1}, {"n": 100000, "d": 8, "k": 16}],
    },
}
