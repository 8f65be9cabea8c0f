"""Small dense linear algebra in a kernel's host code, as simulation and statistics kernels write it.

Exercises: `np.linalg.solve` with a vector and with a matrix of right-hand sides,
`np.linalg.inv` (its product with the matrix is the identity), `np.linalg.cholesky` of a
covariance-like matrix `B B^T + n I`, each of a matrix the kernel builds from its input
so that it is well conditioned (diagonally dominant), and their results used in
further array expressions. Computed on the Kokkos target by the serial host routines of
kpc_linalg.hpp (LU with partial pivoting, Cholesky); float32 stays float32, as in Numba.
"""
import numpy as np
from numba import njit


@njit
def solve_vector(b, rhs):
    a = b + b.T
    for i in range(b.shape[1]):
        a[i, i] += 2.0 * b.shape[0]
    x = np.linalg.solve(a, rhs)
    return x, a @ x - rhs


@njit
def solve_matrix(b, rhs):
    a = b.copy()
    for i in range(b.shape[1]):
        a[i, i] = 2.0 * b.shape[0]
    return np.linalg.solve(a, rhs)


@njit
def inverse(b):
    a = b.T.copy()
    for i in range(b.shape[1]):
        a[i, i] += b.shape[0]
    ainv = np.linalg.inv(a)
    return ainv, ainv @ a


@njit
def factor(b):
    spd = b @ b.T
    for i in range(b.shape[1]):
        spd[i, i] += b.shape[0]
    low = np.linalg.cholesky(spd)
    return low, low @ low.T - spd


KPC_CASES = {
    "solve_vector": {
        "args": {"b": ("n", "n"), "rhs": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 5}, {"n": 40}],
        "layouts": ["C", "F", "strided"],
        "rtol": {"float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-5},
    },
    "solve_matrix": {
        "args": {"b": ("n", "n"), "rhs": ("n", "k")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "k": 1}, {"n": 6, "k": 4}, {"n": 30, "k": 7}],
        "layouts": ["C", "F"],
        "rtol": {"float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-5},
    },
    "inverse": {
        "args": {"b": ("n", "n")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 4}, {"n": 25}],
        "layouts": ["C", "F", "strided"],
        "rtol": {"float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-5},
    },
    "factor": {
        "args": {"b": ("n", "n")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 6}, {"n": 30}],
        "layouts": ["C", "F"],
        "rtol": {"float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-4},
    },
}
