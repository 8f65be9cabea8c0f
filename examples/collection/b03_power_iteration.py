"""Power iteration for the dominant eigenvalue/eigenvector of a symmetric matrix, NumPy style and loop style.
Found in PageRank-like code, PCA "from scratch" notebooks and spectral methods.
"""
import numpy as np
from numba import njit, prange

MAX_ITER = 500
TOL = 1e-12


@njit
def power_iteration(A, num_iters):
    n = A.shape[0]
    b = np.ones(n) / np.sqrt(n)
    lam = 0.0
    for _ in range(num_iters):
        Ab = A @ b
        b = Ab / np.linalg.norm(Ab)
        lam_new = b @ (A @ b)
        if abs(lam_new - lam) < TOL * abs(lam_new):
            lam = lam_new
            break
        lam = lam_new
    return lam, b


@njit
def top_eigenpair(M):
    S = M @ M.T          # symmetric positive semi-definite
    return power_iteration(S, MAX_ITER)


@njit(parallel=True)
def _matvec(A, x, y):
    for i in prange(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s += A[i, j] * x[j]
        y[i] = s


@njit
def power_iteration_loops(M, iters):
    n = M.shape[0]
    S = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            s = 0.0
            for k in range(M.shape[1]):
                s += M[i, k] * M[j, k]
            S[i, j] = s
    x = np.ones(n)
    y = np.empty(n)
    lam = 0.0
    for it in range(iters):
        _matvec(S, x, y)
        nrm = 0.0
        for i in range(n):
            nrm += y[i] * y[i]
        nrm = np.sqrt(nrm)
        lam = nrm
        for i in range(n):
            x[i] = y[i] / nrm
    return lam, x


KPC_CASES = {
    "top_eigenpair": {
        "args": {"M": ("n", "k")},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "k": 5}, {"n": 30, "k": 40}],
        "rtol": 1e-6,
        "atol": 1e-6,
    },
    "power_iteration_loops": {
        "args": {"M": ("n", "k"), "iters": {"kind": "scalar", "value": "it"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "k": 5, "it": 3}, {"n": 30, "k": 40, "it": 50}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
}
