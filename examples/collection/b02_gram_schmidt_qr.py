"""QR factorization by classical and modified Gram-Schmidt, plus a residual check.
Typical of numerical-methods course repos and hand-rolled least-squares code.
"""
import numpy as np
from numba import njit


@njit
def _norm(v):
    s = 0.0
    for i in range(v.shape[0]):
        s += v[i] * v[i]
    return np.sqrt(s)


@njit
def mgs_qr(A):
    m, n = A.shape
    Q = A.copy()
    R = np.zeros((n, n))
    for j in range(n):
        R[j, j] = _norm(Q[:, j])
        Q[:, j] = Q[:, j] / R[j, j]
        for k in range(j + 1, n):
            R[j, k] = np.dot(Q[:, j], Q[:, k])
            Q[:, k] -= R[j, k] * Q[:, j]
    return Q, R


@njit(cache=True)
def classical_gs(A):
    m, n = A.shape
    Q = np.empty_like(A)
    R = np.zeros((n, n), dtype=A.dtype)
    for j in range(n):
        v = A[:, j].copy()
        for i in range(j):
            R[i, j] = Q[:, i] @ A[:, j]
            v = v - R[i, j] * Q[:, i]
        R[j, j] = np.linalg.norm(v)
        Q[:, j] = v / R[j, j]
    return Q, R


@njit
def qr_residuals(A):
    Q, R = mgs_qr(A)
    n = A.shape[1]
    rec = np.abs(Q @ R - A).max()
    orth = np.abs(Q.T @ Q - np.eye(n)).max()
    return rec, orth


KPC_CASES = {
    "mgs_qr": {
        "args": {"A": ("m", "n")},
        "dtypes": ["float64"],
        "sizes": [{"m": 6, "n": 4}, {"m": 30, "n": 10}],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "classical_gs": {
        "args": {"A": ("m", "n")},
        "dtypes": ["float64"],
        "sizes": [{"m": 6, "n": 4}, {"m": 30, "n": 10}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "qr_residuals": {
        "args": {"A": ("m", "n")},
        "dtypes": ["float64"],
        "sizes": [{"m": 6, "n": 4}, {"m": 30, "n": 10}],
        "rtol": 1.0,
        "atol": 1e-12,
    },
}
