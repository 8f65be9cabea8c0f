"""Matrix products with the `@` operator and `np.dot`.

Exercises: `A @ x` (matrix-vector), `A @ B` (matrix-matrix), `x @ y`
(inner product to a scalar), `np.dot(A.T, x)` through a transposed view,
and a Gram matrix `X.T @ X`.  (Numba calls BLAS for these: float dtypes
only, contiguous or not.)
"""
import numpy as np
from numba import njit


@njit
def matvec_at(A, x):
    return A @ x


@njit
def matmul_at(A, B):
    return A @ B


@njit
def inner_at(x, y):
    return x @ y


@njit
def gram(X):
    return X.T @ X


@njit
def project_back(A, x):
    return np.dot(A.T, np.dot(A, x))


KPC_CASES = {
    "matvec_at": {
        "args": {"A": ("n", "m"), "x": ("m",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 7, "m": 33}, {"n": 20, "m": 5}],
        "layouts": ["C", "F", "strided"],
    },
    "matmul_at": {
        "args": {"A": ("n", "p"), "B": ("p", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "p": 1, "m": 1}, {"n": 7, "p": 5, "m": 3}, {"n": 20, "p": 33, "m": 9}],
        "layouts": ["C", "F", "strided"],
    },
    "inner_at": {
        "args": {"x": ("n",), "y": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "gram": {
        "args": {"X": ("n", "d")},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "d": 1}, {"n": 33, "d": 4}],
        "layouts": ["C", "F", "strided"],
    },
    "project_back": {
        "args": {"A": ("n", "m"), "x": ("m",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 2, "m": 3}, {"n": 9, "m": 7}],
        "layouts": ["C", "F"],
    },
}
