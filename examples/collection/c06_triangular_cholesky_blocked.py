"""Forward substitution with many right-hand sides (row-oriented, and column-by-column with prange over the right-hand sides), a right-looking (outer-product) Cholesky with a parallel trailing update, and a blocked Cholesky (diagonal block, panel solve, trailing update with @) used to solve A X = B.
Variants of the triangular-solve / Cholesky loops found in Gaussian-process, Kalman-filter and finite-element code, next to the textbook versions of b05 and b06.
"""
import math
import numpy as np
from numba import njit, prange


@njit
def forward_sub_rows(M, B):
    # L = lower triangle of M with a dominant diagonal; solve L X = B row by row
    n, nrhs = B.shape
    L = np.tril(M)
    for i in range(n):
        L[i, i] = n + abs(L[i, i])
    X = np.zeros((n, nrhs))
    for i in range(n):
        X[i, :] = (B[i, :] - L[i, :i] @ X[:i, :]) / L[i, i]
    return X


@njit(parallel=True)
def forward_sub_multi(M, B):
    n, nrhs = B.shape
    X = np.empty((n, nrhs))
    for r in prange(nrhs):
        for i in range(n):
            s = B[i, r]
            for j in range(i):
                s -= M[i, j] * X[j, r]
            X[i, r] = s / (n + abs(M[i, i]))
    return X


@njit(parallel=True)
def cholesky_outer(M):
    # right-looking kji Cholesky of A = M M^T + n I, in place on a copy
    n = M.shape[0]
    A = M @ M.T + n * np.eye(n)
    for k in range(n):
        A[k, k] = math.sqrt(A[k, k])
        for i in range(k + 1, n):
            A[i, k] /= A[k, k]
        for j in prange(k + 1, n):
            for i in range(j, n):
                A[i, j] -= A[i, k] * A[j, k]
    for i in range(n):
        for j in range(i + 1, n):
            A[i, j] = 0.0
    return A


@njit
def cholesky_blocked(A, bs):
    n = A.shape[0]
    L = np.tril(A)
    for k0 in range(0, n, bs):
        k1 = min(k0 + bs, n)
        # factor the diagonal block (unblocked, column by column)
        for j in range(k0, k1):
            s = L[j, j]
            for p in range(k0, j):
                s -= L[j, p] * L[j, p]
            L[j, j] = math.sqrt(s)
            for i in range(j + 1, k1):
                s = L[i, j]
                for p in range(k0, j):
                    s -= L[i, p] * L[j, p]
                L[i, j] = s / L[j, j]
        # panel: L21 = A21 L11^{-T}
        for i in range(k1, n):
            for j in range(k0, k1):
                s = L[i, j]
                for p in range(k0, j):
                    s -= L[i, p] * L[j, p]
                L[i, j] = s / L[j, j]
        # trailing update of the lower triangle
        if k1 < n:
            P = L[k1:, k0:k1]
            S = P @ P.T
            for i in range(k1, n):
                for j in range(k1, i + 1):
                    L[i, j] -= S[i - k1, j - k1]
    return L


@njit
def cholesky_solve_blocked(M, B, bs):
    n = M.shape[0]
    A = M @ M.T + n * np.eye(n)
    L = cholesky_blocked(A, bs)
    nrhs = B.shape[1]
    Y = np.zeros((n, nrhs))
    for i in range(n):
        for r in range(nrhs):
            s = B[i, r]
            for j in range(i):
                s -= L[i, j] * Y[j, r]
            Y[i, r] = s / L[i, i]
    X = np.zeros((n, nrhs))
    for i in range(n - 1, -1, -1):
        for r in range(nrhs):
            s = Y[i, r]
            for j in range(i + 1, n):
                s -= L[j, i] * X[j, r]
            X[i, r] = s / L[i, i]
    return X, np.abs(A @ X - B).max()


KPC_CASES = {
    "forward_sub_rows": {
        "args": {"M": ("n", "n"), "B": ("n", "r")},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "r": 1}, {"n": 5, "r": 3}, {"n": 50, "r": 8}],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "forward_sub_multi": {
        "args": {"M": ("n", "n"), "B": ("n", "r")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "r": 1}, {"n": 50, "r": 12}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-9, "float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-5},
    },
    "cholesky_outer": {
        "args": {"M": ("n", "n")},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 6}, {"n": 40}],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
        "atol": 1e-11,
    },
    "cholesky_solve_blocked": {
        "args": {"M": ("n", "n"), "B": ("n", "r"), "bs": {"kind": "scalar", "value": "b"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "r": 1, "b": 2}, {"n": 37, "r": 4, "b": 8}, {"n": 48, "r": 2, "b": 16}],
        "rtol": 1e-8,
        "atol": 1e-10,
    },
}
