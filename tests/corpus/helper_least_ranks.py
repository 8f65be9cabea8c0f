"""Helpers whose bodies need only a least rank, called with arrays of more dimensions.

Exercises: `dense(x, W, b)` written as `x @ W + b` (its body reads as well for a vector as for
a matrix) applied to a batch after `layer_norm` that reads `x.shape[1]`, the name `h` rebound
through both; a row-wise softmax that reads `s[i].max()` passed a matrix the caller indexes
`scores[i, j]` (causal masking). Found by the second collection (c2_11_mlp_forward.mlp_norm_forward,
c2_13_attention.causal_attention): the ranks guessed for a file without signatures took the
helper's least rank as its only one and reported "conflicting ranks" (issue 32).
"""
import numpy as np
from numba import njit


@njit
def dense(x, W, b):
    return x @ W + b


@njit
def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.sum(axis=1) / x.shape[1]
    xc = x - mu.reshape(-1, 1)
    var = (xc * xc).sum(axis=1) / x.shape[1]
    return xc / np.sqrt(var + eps).reshape(-1, 1) * gamma + beta


@njit
def norm_mlp(x, W1, b1, gamma, beta, W2, b2):
    h = dense(x, W1, b1)
    h = layer_norm(h, gamma, beta)
    h = np.maximum(h, 0.0)
    return dense(h, W2, b2)


@njit
def softmax_rows(s):
    m = np.empty(s.shape[0])
    for i in range(s.shape[0]):
        m[i] = s[i].max()
    e = np.exp(s - m.reshape(-1, 1))
    return e / e.sum(axis=1).reshape(-1, 1)


@njit
def causal_scores(Q, K):
    n, d = Q.shape
    scores = Q @ K.T / np.sqrt(d)
    for i in range(n):
        for j in range(i + 1, n):
            scores[i, j] = -np.inf
    return softmax_rows(scores)


KPC_CASES = {
    "norm_mlp": {
        "args": {"x": ("n", "d"), "W1": ("d", "h"), "b1": ("h",), "gamma": ("h",), "beta": ("h",),
                 "W2": ("h", "k"), "b2": ("k",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "d": 2, "h": 3, "k": 2}, {"n": 17, "d": 8, "h": 12, "k": 3}, {"n": 200, "d": 32, "h": 64, "k": 10}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "causal_scores": {
        "args": {"Q": ("n", "d"), "K": ("n", "d")},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "d": 1}, {"n": 9, "d": 4}, {"n": 128, "d": 16}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
}
