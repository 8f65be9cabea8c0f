"""Logistic-regression gradient descent with NumPy vector algebra.

Exercises: the classic Numba example step
`w -= np.dot(((1.0 / (1.0 + np.exp(-Y * np.dot(X, w))) - 1.0) * Y), X)`
(matrix-vector `np.dot`, element-wise chain, vector-matrix `np.dot`),
iterated in a serial loop updating `w` in place, and the mean
log-loss computed with `np.log1p`/`np.mean`.
"""
import numpy as np
from numba import njit


@njit
def logistic_regression(Y, X, w, iterations):
    for i in range(iterations):
        w -= np.dot(((1.0 / (1.0 + np.exp(-Y * np.dot(X, w))) - 1.0) * Y), X)
    return w


@njit
def log_loss(Y, X, w):
    margins = Y * (X @ w)
    return np.mean(np.log1p(np.exp(-margins)))


KPC_CASES = {
    "logistic_regression": {
        "args": {
            "Y": ("n",),
            "X": {"kind": "array", "shape": ("n", "d"), "low": -0.5, "high": 0.5},
            "w": ("d",),
            "iterations": {"kind": "scalar", "value": "iters"},
        },
        # not float32: `1.0 + <float32 array>` is float64 in Numba, and its
        # np.dot refuses mixed float64/float32 operands
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "d": 1, "iters": 1}, {"n": 7, "d": 3, "iters": 5}, {"n": 100, "d": 10, "iters": 10}],
        "writes": ["w"],
        "layouts": ["C", "F", "strided"],
        "rtol": 1e-10,
    },
    "log_loss": {
        "args": {"Y": ("n",), "X": ("n", "d"), "w": ("d",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "d": 1}, {"n": 33, "d": 4}],
        "layouts": ["C", "F", "strided"],
    },
}
