"""Cholesky factorization by hand (Cholesky-Banachiewicz) and least squares via the normal equations with np.linalg.solve.
Seen in Gaussian-process, Kalman-filter and regression code written "from scratch".
"""
import math
import numpy as np
from numba import njit


@njit(fastmath=True)
def cholesky_banachiewicz(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for i in range(n):
        for j in range(i + 1):
            s = 0.0
            for k in range(j):
                s += L[i, k] * L[j, k]
            if i == j:
                L[i, j] = math.sqrt(A[i, i] - s)
            else:
                L[i, j] = (A[i, j] - s) / L[j, j]
    return L


@njit
def cholesky_of_gram(X):
    n = X.shape[1]
    A = X.T @ X + n * np.eye(n)
    L = cholesky_banachiewicz(A)
    return L, np.abs(L @ L.T - A).max()


@njit
def lstsq_normal(X, y):
    XtX = X.T @ X
    Xty = X.T @ y
    beta = np.linalg.solve(XtX, Xty)
    resid = y - X @ beta
    return beta, np.sum(resid ** 2)


@njit
def polyfit(x, y, deg):
    V = np.empty((x.shape[0], deg + 1))
    for j in range(deg + 1):
        V[:, j] = x ** j
    coef = np.linalg.solve(V.T @ V, V.T @ y)
    return coef


KPC_CASES = {
    "cholesky_of_gram": {
        "args": {"X": ("m", "n")},
        "dtypes": ["float64"],
        "sizes": [{"m": 5, "n": 3}, {"m": 40, "n": 20}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "lstsq_normal": {
        "args": {"X": ("m", "n"), "y": ("m",)},
        "dtypes": ["float64"],
        "sizes": [{"m": 8, "n": 3}, {"m": 100, "n": 6}],
        "layouts": ["C", "F"],
        "rtol": 1e-8,
        "atol": 1e-9,
    },
    "polyfit": {
        "args": {"x": ("m",), "y": ("m",), "deg": {"kind": "scalar", "value": "d"}},
        "dtypes": ["float64"],
        "sizes": [{"m": 10, "d": 1}, {"m": 200, "d": 3}],
        "rtol": 1e-7,
        "atol": 1e-8,
    },
}
