"""Matrix-vector products written with explicit loops.

Exercises: `y = A @ x` as a `prange` over rows with a serial dot-product
inner loop; the transposed product `A.T @ x` written row-major (the
parallel loop is over the reduction dimension, so it must stay serial or
use array reductions); an `alpha * A @ x + beta * y` update in place.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def matvec(A, x):
    n, m = A.shape
    y = np.zeros(n, dtype=A.dtype)
    for i in prange(n):
        acc = 0.0
        for j in range(m):
            acc += A[i, j] * x[j]
        y[i] = acc
    return y


@njit
def matvec_transposed(A, x):
    n, m = A.shape
    y = np.zeros(m)
    for i in range(n):
        for j in range(m):
            y[j] += A[i, j] * x[i]
    return y


@njit(parallel=True)
def gemv_update(alpha, A, x, beta, y):
    for i in prange(A.shape[0]):
        acc = 0.0
        for j in range(A.shape[1]):
            acc += A[i, j] * x[j]
        y[i] = alpha * acc + beta * y[i]


KPC_CASES = {
    "matvec": {
        "args": {"A": ("n", "m"), "x": ("m",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 0, "m": 0}, {"n": 1, "m": 1}, {"n": 7, "m": 33}, {"n": 100, "m": 9}],
        "layouts": ["C", "F", "strided"],
    },
    "matvec_transposed": {
        "args": {"A": ("n", "m"), "x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "m": 3}, {"n": 7, "m": 5}, {"n": 33, "m": 17}],
        "layouts": ["C", "F", "strided"],
    },
    "gemv_update": {
        "args": {
            "alpha": {"kind": "scalar", "value": 1.5},
            "A": ("n", "m"),
            "x": ("m",),
            "beta": {"kind": "scalar", "value": -0.5},
            "y": ("n",),
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "m": 4}, {"n": 7, "m": 1}, {"n": 33, "m": 20}],
        "writes": ["y"],
        "layouts": ["C", "F", "strided"],
    },
}
