"""k-nearest-neighbour classification and regression by brute force, with argsort and partial selection.
The classic "kNN in Numba" benchmark of data-science courses.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True, fastmath=True)
def sq_distances(A, B):
    na, nb = A.shape[0], B.shape[0]
    D = np.empty((na, nb))
    for i in prange(na):
        for j in range(nb):
            s = 0.0
            for k in range(A.shape[1]):
                t = A[i, k] - B[j, k]
                s += t * t
            D[i, j] = s
    return D


@njit
def sq_distances_np(A, B):
    aa = (A * A).sum(axis=1)
    bb = (B * B).sum(axis=1)
    D = aa[:, None] + bb[None, :] - 2.0 * A @ B.T
    return np.maximum(D, 0.0)


@njit(parallel=True)
def knn_classify(train, labels, test, k, nclasses):
    D = sq_distances(test, train)
    out = np.empty(test.shape[0], dtype=np.int64)
    for i in prange(test.shape[0]):
        idx = np.argsort(D[i])[:k]
        votes = np.zeros(nclasses, dtype=np.int64)
        for j in idx:
            votes[labels[j]] += 1
        out[i] = np.argmax(votes)
    return out


@njit
def insert_sorted(best_d, best_i, d, i):
    k = best_d.shape[0]
    if d >= best_d[k - 1]:
        return
    pos = k - 1
    while pos > 0 and best_d[pos - 1] > d:
        best_d[pos] = best_d[pos - 1]
        best_i[pos] = best_i[pos - 1]
        pos -= 1
    best_d[pos] = d
    best_i[pos] = i


@njit(parallel=True)
def knn_regress(train, y, test, k):
    m = test.shape[0]
    pred = np.empty(m)
    for q in prange(m):
        best_d = np.full(k, np.inf)
        best_i = np.zeros(k, dtype=np.int64)
        for i in range(train.shape[0]):
            d = 0.0
            for j in range(train.shape[1]):
                d += (train[i, j] - test[q, j]) ** 2
            insert_sorted(best_d, best_i, d, i)
        w = 1.0 / (np.sqrt(best_d) + 1e-12)
        pred[q] = (w * y[best_i]).sum() / w.sum()
    return pred


KPC_CASES = {
    "sq_distances": {
        "args": {"A": ("n", "d"), "B": ("m", "d")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1, "d": 1}, {"n": 1000, "m": 2000, "d": 16}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-9, "float32": 1e-4},
        "atol": {"float64": 1e-10, "float32": 1e-5},
    },
    "sq_distances_np": {
        "args": {"A": ("n", "d"), "B": ("m", "d")},
        "sizes": [{"n": 1, "m": 1, "d": 1}, {"n": 1000, "m": 2000, "d": 16}],
        "rtol": 1e-8,
        "atol": 1e-9,
    },
    "knn_classify": {
        "args": {"train": ("n", "d"), "labels": {"kind": "index", "shape": ("n",), "high": "c"},
                 "test": ("m", "d"), "k": {"kind": "scalar", "value": "k"}, "nclasses": {"kind": "scalar", "value": "c"}},
        "sizes": [{"n": 1, "d": 1, "m": 1, "k": 1, "c": 2}, {"n": 2000, "d": 8, "m": 200, "k": 5, "c": 4}],
    },
    "knn_regress": {
        "args": {"train": ("n", "d"), "y": ("n",), "test": ("m", "d"), "k": {"kind": "scalar", "value": "k"}},
        "sizes": [{"n": 3, "d": 1, "m": 1, "k": 3}, {"n": 2000, "d": 8, "m": 400, "k": 8}],
        "rtol": 1e-8,
        "atol": 1e-10,
    },
}
