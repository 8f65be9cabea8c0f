"""Tensor contractions with np.dot and reshapes: batched matmul, covariance/correlation matrices, bilinear forms, Kronecker products.
einsum-free NumPy code jitted for speed; uses np.cov, np.corrcoef and np.kron.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def batched_matmul(A, B):
    nb, n, k = A.shape
    m = B.shape[2]
    C = np.empty((nb, n, m))
    for b in prange(nb):
        C[b] = A[b] @ B[b]
    return C


@njit
def covariance_manual(X):
    # rows are observations
    Xc = X - X.sum(axis=0) / X.shape[0]
    return Xc.T @ Xc / (X.shape[0] - 1)


@njit
def cov_corr_numpy(X):
    C = np.cov(X.T)
    R = np.corrcoef(X, rowvar=False)
    return C, R


@njit
def bilinear_forms(U, M, V):
    # out[i] = U[i] @ M @ V[i]
    MV = V @ M.T
    return (U * MV).sum(axis=1)


@njit
def kron_apply(A, B, x):
    K = np.kron(A, B)
    return K @ x


KPC_CASES = {
    "batched_matmul": {
        "args": {"A": ("b", "n", "k"), "B": ("b", "k", "m")},
        "sizes": [{"b": 1, "n": 1, "k": 1, "m": 1}, {"b": 3, "n": 4, "k": 5, "m": 2}, {"b": 256, "n": 64, "k": 64, "m": 64}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "covariance_manual": {
        "args": {"X": ("n", "d")},
        "sizes": [{"n": 2, "d": 1}, {"n": 10, "d": 4}, {"n": 100000, "d": 32}],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "cov_corr_numpy": {
        "args": {"X": ("n", "d")},
        "sizes": [{"n": 3, "d": 2}, {"n": 10, "d": 4}, {"n": 20000, "d": 32}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "bilinear_forms": {
        "args": {"U": ("n", "d"), "M": ("d", "d"), "V": ("n", "d")},
        "sizes": [{"n": 1, "d": 1}, {"n": 7, "d": 3}, {"n": 50000, "d": 32}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "kron_apply": {
        "args": {"A": ("p", "p"), "B": ("q", "q"), "x": ("p*q",)},
        "sizes": [{"p": 1, "q": 1}, {"p": 2, "q": 3}, {"p": 40, "q": 40}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
}
