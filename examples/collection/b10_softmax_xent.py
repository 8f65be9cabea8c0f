"""Row-wise softmax, softmax cross-entropy loss with its gradient, and a parallel log-softmax.
The output layer of every neural-network-from-scratch repository.
"""
import math
import numpy as np
from numba import njit, prange


@njit
def softmax_rows(logits):
    out = np.empty_like(logits)
    for i in range(logits.shape[0]):
        row = logits[i]
        m = row.max()
        e = np.exp(row - m)
        out[i] = e / e.sum()
    return out


@njit(fastmath=True)
def cross_entropy(logits, labels):
    P = softmax_rows(logits)
    n = logits.shape[0]
    loss = 0.0
    for i in range(n):
        loss -= np.log(P[i, labels[i]])
    grad = P.copy()
    for i in range(n):
        grad[i, labels[i]] -= 1.0
    return loss / n, grad / n


@njit(parallel=True)
def log_softmax(x):
    n, k = x.shape
    out = np.empty((n, k))
    for i in prange(n):
        m = -np.inf
        for j in range(k):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(k):
            s += math.exp(x[i, j] - m)
        lse = m + math.log(s)
        for j in range(k):
            out[i, j] = x[i, j] - lse
    return out


@njit
def accuracy(logits, labels):
    correct = 0
    for i in range(logits.shape[0]):
        if np.argmax(logits[i]) == labels[i]:
            correct += 1
    return correct / logits.shape[0]


KPC_CASES = {
    "softmax_rows": {
        "args": {"logits": ("n", "k")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "k": 3}, {"n": 64, "k": 10}],
        "layouts": ["C", "F"],
    },
    "cross_entropy": {
        "args": {"logits": {"kind": "array", "shape": ("n", "k"), "low": -5.0, "high": 5.0},
                 "labels": {"kind": "index", "shape": ("n",), "high": "k"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "k": 3}, {"n": 64, "k": 10}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "log_softmax": {
        "args": {"x": ("n", "k")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "k": 3}, {"n": 64, "k": 10}],
    },
    "accuracy": {
        "args": {"logits": ("n", "k"), "labels": {"kind": "index", "shape": ("n",), "high": "k"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "k": 3}, {"n": 64, "k": 10}],
    },
}
