"""LU decomposition without pivoting (Doolittle) and forward/back substitution on a diagonally dominant system.
Hand-rolled solver code from numerical-analysis homework and small embedded solvers.
"""
import numpy as np
from numba import njit


@njit
def lu_nopivot(A):
    n = A.shape[0]
    L = np.eye(n)
    U = A.copy()
    for k in range(n - 1):
        for i in range(k + 1, n):
            L[i, k] = U[i, k] / U[k, k]
            U[i, k:] -= L[i, k] * U[k, k:]
    return L, U


@njit
def forward_sub(L, b):
    n = b.shape[0]
    y = np.zeros_like(b)
    for i in range(n):
        y[i] = (b[i] - np.dot(L[i, :i], y[:i])) / L[i, i]
    return y


@njit
def back_sub(U, y):
    n = y.shape[0]
    x = np.zeros_like(y)
    for i in range(n - 1, -1, -1):
        s = y[i]
        for j in range(i + 1, n):
            s -= U[i, j] * x[j]
        x[i] = s / U[i, i]
    return x


@njit
def lu_solve(M, b):
    n = M.shape[0]
    A = M + n * np.eye(n)  # make it diagonally dominant
    L, U = lu_nopivot(A)
    x = back_sub(U, forward_sub(L, b))
    return x, np.max(np.abs(A @ x - b))


@njit
def lu_factor(M):
    n = M.shape[0]
    A = M.copy()
    for i in range(n):
        A[i, i] += 2.0 * n
    L, U = lu_nopivot(A)
    return L, U, np.abs(L @ U - A).max()


@njit
def solve_upper(M, y):
    # treat the upper triangle of M (with a boosted diagonal) as U
    U = np.triu(M)
    for i in range(U.shape[0]):
        U[i, i] = 1.0 + abs(U[i, i])
    return back_sub(U, y)


KPC_CASES = {
    "lu_solve": {
        "args": {"M": ("n", "n"), "b": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 5}, {"n": 30}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "lu_factor": {
        "args": {"M": ("n", "n")},
        "dtypes": ["float64"],
        "sizes": [{"n": 4}, {"n": 25}],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "solve_upper": {
        "args": {"M": ("n", "n"), "y": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3}, {"n": 20}],
        "rtol": {"float64": 1e-9, "float32": 1e-3},
        "atol": {"float64": 1e-10, "float32": 1e-4},
    },
}
