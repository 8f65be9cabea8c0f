"""Matrix products computed by kpc_blas.hpp (tests/backend/test_blas.py)."""
import numpy as np
from numba import njit


@njit
def mm(A, B):
    return A @ B


@njit
def mv(A, x):
    return A @ x


@njit
def vm(x, A):
    return x @ A


@njit
def tmm(alpha, A, B):
    return alpha * A.T @ B.T


@njit
def tmv(A, y):
    return np.dot(A.T, y)
