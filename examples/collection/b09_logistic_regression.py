"""Logistic regression: loss and gradient in NumPy style, a batch gradient-descent trainer, and a loop-style gradient step.
What ML-from-scratch repositories write before reaching for scikit-learn.
"""
import math
import numpy as np
from numba import njit, prange

EPS = 1e-12


@njit
def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@njit
def loss_and_grad(X, y, w, b):
    z = X @ w + b
    p = sigmoid(z)
    loss = -np.mean(y * np.log(p + EPS) + (1 - y) * np.log(1 - p + EPS))
    err = p - y
    gw = X.T @ err / X.shape[0]
    gb = np.mean(err)
    return loss, gw, gb


@njit
def train(X, y, lr, epochs):
    w = np.zeros(X.shape[1])
    b = 0.0
    loss = 0.0
    for e in range(epochs):
        loss, gw, gb = loss_and_grad(X, y, w, b)
        w -= lr * gw
        b -= lr * gb
    return w, b, loss


@njit(parallel=True)
def gradient_step_loops(X, y, w, lr):
    n, d = X.shape
    p = np.empty(n)
    for i in prange(n):
        z = 0.0
        for j in range(d):
            z += X[i, j] * w[j]
        p[i] = 1.0 / (1.0 + math.exp(-z))
    for j in prange(d):
        g = 0.0
        for i in range(n):
            g += (p[i] - y[i]) * X[i, j]
        w[j] -= lr * g / n


KPC_CASES = {
    "loss_and_grad": {
        "args": {"X": ("n", "d"), "y": {"kind": "index", "shape": ("n",), "high": 2},
                 "w": ("d",), "b": {"kind": "scalar", "value": 0.1}},
        "dtypes": ["float64"],
        "sizes": [{"n": 6, "d": 2}, {"n": 300, "d": 10}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "train": {
        "args": {"X": ("n", "d"), "y": {"kind": "index", "shape": ("n",), "high": 2},
                 "lr": {"kind": "scalar", "value": 0.5}, "epochs": {"kind": "scalar", "value": "e"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 6, "d": 2, "e": 1}, {"n": 300, "d": 10, "e": 30}],
        "rtol": 1e-9,
        "atol": 1e-11,
    },
    "gradient_step_loops": {
        "args": {"X": ("n", "d"), "y": {"kind": "index", "shape": ("n",), "high": 2},
                 "w": ("d",), "lr": {"kind": "scalar", "value": 0.1}},
        "dtypes": ["float64"],
        "sizes": [{"n": 6, "d": 2}, {"n": 300, "d": 10}],
        "writes": ["w"],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
}
