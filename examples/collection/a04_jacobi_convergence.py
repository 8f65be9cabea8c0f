"""Jacobi iteration for the 2-D Poisson equation, iterating `while err > tol`.

The classic convergence-loop pattern of Poisson solvers in lecture notes and small PDE repos.
"""
import numpy as np
from numba import njit


@njit
def jacobi_poisson(f, h, tol, maxiter):
    n, m = f.shape
    u = np.zeros((n, m))
    unew = np.zeros((n, m))
    err = tol + 1.0
    it = 0
    while err > tol and it < maxiter:
        err = 0.0
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                unew[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h * h * f[i, j])
                d = abs(unew[i, j] - u[i, j])
                if d > err:
                    err = d
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                u[i, j] = unew[i, j]
        it += 1
    return u, it, err


@njit
def jacobi_np(u, tol):
    # Laplace equation with fixed boundary, NumPy style, L2 change as stopping criterion
    u = u.copy()
    err = np.inf
    niter = 0
    while err > tol:
        un = u.copy()
        u[1:-1, 1:-1] = 0.25 * (un[:-2, 1:-1] + un[2:, 1:-1] + un[1:-1, :-2] + un[1:-1, 2:])
        err = np.sqrt(np.sum((u - un) ** 2))
        niter += 1
        if niter >= 10000:
            break
    return u, niter


KPC_CASES = {
    "jacobi_poisson": {
        "args": {"f": ("n", "m"), "h": {"kind": "scalar", "value": 0.1},
                 "tol": {"kind": "scalar", "value": 1e-6}, "maxiter": {"kind": "scalar", "value": 500}},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "m": 5}, {"n": 20, "m": 17}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "jacobi_np": {
        "args": {"u": ("n", "m"), "tol": {"kind": "scalar", "value": 1e-5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "m": 3}, {"n": 16, "m": 12}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
}
