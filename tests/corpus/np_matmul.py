"""Matrix products with the `@` operator and `np.dot`.

Exercises: `A @ x` (matrix-vector), `A @ B` (matrix-matrix), `x @ y`
(inner product to a scalar), `np.dot(A.T, x)` through a transposed view,
and a Gram matrix `X.T @ X`.  (Numba calls BLAS for these: float dtypes
only, contiguous or not.)  Also the forms kpc hands to BLAS at a kernel's host level
(kpc_blas.hpp): `alpha * A @ B + beta * C` (the factor folded into the product), chains,
`x @ A`, `A.T @ y` and `A @ A.T` (transposes passed without a copy), complex products,
a product in a serial loop (power iteration), and products inside a `prange` body or a
function called from one, which stay element loops.
"""
import numpy as np
from numba import njit, prange


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


@njit
def scaled_gemm(alpha, A, B, beta, C):
    return alpha * A @ B + beta * C


@njit
def chain3(A, B, C):
    return A @ B @ C


@njit
def vecmat(x, A):
    return x @ A


@njit
def transposed_matvec(A, y):
    return A.T @ y


@njit
def rank_k(A):
    return A @ A.T


@njit
def power_iteration(A, steps):
    v = np.ones(A.shape[1], dtype=A.dtype)
    for _ in range(steps):
        w = A @ v
        v = w / np.sqrt(w @ w)
    return v


@njit(parallel=True)
def rows_times(A, B, out):
    for i in prange(A.shape[0]):
        out[i] = B @ A[i]


@njit
def row_product(B, a, row):
    row[:] = B @ a


@njit(parallel=True)
def rows_through_helper(A, B, out):
    for i in prange(A.shape[0]):
        row_product(B, A[i], out[i])


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
    "scaled_gemm": {
        "args": {"alpha": {"kind": "scalar", "value": 1.5}, "A": ("n", "p"), "B": ("p", "m"),
                 "beta": {"kind": "scalar", "value": -0.5}, "C": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "p": 1, "m": 1}, {"n": 7, "p": 5, "m": 3}, {"n": 40, "p": 33, "m": 21}],
        "layouts": ["C", "F", "strided"],
    },
    "chain3": {
        "args": {"A": ("n", "p"), "B": ("p", "m"), "C": ("m", "n")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "p": 1, "m": 1}, {"n": 6, "p": 9, "m": 4}, {"n": 30, "p": 17, "m": 25}],
        "layouts": ["C", "F", "strided"],
    },
    "vecmat": {
        "args": {"x": ("n",), "A": ("n", "m")},
        "dtypes": ["float64", "float32", "complex128"],
        "sizes": [{"n": 1, "m": 1}, {"n": 7, "m": 33}, {"n": 40, "m": 6}],
        "layouts": ["C", "F", "strided"],
    },
    "transposed_matvec": {
        "args": {"A": ("n", "m"), "y": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 7, "m": 33}, {"n": 40, "m": 6}],
        "layouts": ["C", "F", "strided"],
    },
    "rank_k": {
        "args": {"A": ("n", "k")},
        "dtypes": ["float64", "complex64"],
        "sizes": [{"n": 1, "k": 1}, {"n": 9, "k": 3}, {"n": 31, "k": 40}],
        "layouts": ["C", "F", "strided"],
    },
    "power_iteration": {
        "args": {"A": ("n", "n"), "steps": {"kind": "scalar", "value": 4}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 12}, {"n": 50}],
        "layouts": ["C", "F"],
    },
    "rows_times": {
        "args": {"A": ("n", "p"), "B": ("m", "p"), "out": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "p": 1, "m": 1}, {"n": 17, "p": 5, "m": 8}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "rows_through_helper": {
        "args": {"A": ("n", "p"), "B": ("m", "p"), "out": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "p": 1, "m": 1}, {"n": 17, "p": 5, "m": 8}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
}
