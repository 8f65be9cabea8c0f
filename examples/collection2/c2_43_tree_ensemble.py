"""Inference of decision-tree ensembles stored as flat arrays (feature, threshold, left, right, value),
and a logistic-regression scorer. The way gradient-boosting models are exported to NumPy and jitted.
"""
import numpy as np
from numba import njit, prange


@njit
def make_random_forest(ntrees, depth, nfeatures, feat_draw, thr_draw, leaf_draw):
    # complete binary trees; node k has children 2k+1 and 2k+2; leaves are the last level
    nnodes = 2 ** (depth + 1) - 1
    feature = np.full((ntrees, nnodes), -1, dtype=np.int64)
    threshold = np.zeros((ntrees, nnodes))
    value = np.zeros((ntrees, nnodes))
    ninternal = 2 ** depth - 1
    for t in range(ntrees):
        for k in range(nnodes):
            if k < ninternal:
                feature[t, k] = feat_draw[t, k] % nfeatures
                threshold[t, k] = thr_draw[t, k]
            else:
                value[t, k] = leaf_draw[t, k]
    return feature, threshold, value


@njit
def tree_predict_one(feature, threshold, value, x):
    k = 0
    while feature[k] >= 0:
        if x[feature[k]] <= threshold[k]:
            k = 2 * k + 1
        else:
            k = 2 * k + 2
    return value[k]


@njit(parallel=True)
def forest_predict(X, depth, feat_draw, thr_draw, leaf_draw):
    ntrees = feat_draw.shape[0]
    feature, threshold, value = make_random_forest(ntrees, depth, X.shape[1], feat_draw, thr_draw, leaf_draw)
    n = X.shape[0]
    out = np.zeros(n)
    for i in prange(n):
        s = 0.0
        for t in range(ntrees):
            s += tree_predict_one(feature[t], threshold[t], value[t], X[i])
        out[i] = s / ntrees
    return out


@njit
def boosted_predict_proba(X, depth, feat_draw, thr_draw, leaf_draw, learning_rate, base_score):
    ntrees = feat_draw.shape[0]
    feature, threshold, value = make_random_forest(ntrees, depth, X.shape[1], feat_draw, thr_draw, leaf_draw)
    margin = np.full(X.shape[0], base_score)
    for t in range(ntrees):
        for i in range(X.shape[0]):
            margin[i] += learning_rate * tree_predict_one(feature[t], threshold[t], value[t], X[i])
    return 1.0 / (1.0 + np.exp(-margin))


@njit(parallel=True, fastmath=True)
def logistic_scores(X, w, b):
    n = X.shape[0]
    p = np.empty(n)
    for i in prange(n):
        z = b
        for j in range(X.shape[1]):
            z += X[i, j] * w[j]
        p[i] = 1.0 / (1.0 + np.exp(-z))
    return p


KPC_CASES = {
    "forest_predict": {
        "args": {"X": ("n", "d"), "depth": {"kind": "scalar", "value": "D"},
                 "feat_draw": {"kind": "index", "shape": ("t", "m"), "high": 1000},
                 "thr_draw": ("t", "m"), "leaf_draw": ("t", "m")},
        "sizes": [{"n": 1, "d": 1, "D": 1, "t": 1, "m": 3}, {"n": 10, "d": 4, "D": 2, "t": 3, "m": 7},
                  {"n": 10000, "d": 20, "D": 6, "t": 100, "m": 127}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "boosted_predict_proba": {
        "args": {"X": ("n", "d"), "depth": {"kind": "scalar", "value": "D"},
                 "feat_draw": {"kind": "index", "shape": ("t", "m"), "high": 1000},
                 "thr_draw": ("t", "m"), "leaf_draw": ("t", "m"),
                 "learning_rate": {"kind": "scalar", "value": 0.1}, "base_score": {"kind": "scalar", "value": -0.2}},
        "sizes": [{"n": 1, "d": 1, "D": 1, "t": 1, "m": 3}, {"n": 10, "d": 4, "D": 2, "t": 3, "m": 7},
                  {"n": 8000, "d": 20, "D": 5, "t": 100, "m": 63}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "logistic_scores": {
        "args": {"X": ("n", "d"), "w": ("d",), "b": {"kind": "scalar", "value": 0.3}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "d": 1}, {"n": 500000, "d": 32}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-9, "float32": 1e-5},
        "atol": {"float64": 1e-12, "float32": 1e-6},
    },
}
