"""Lexicographic Gauss-Seidel and SOR for the 5-point Poisson equation (a fixed number of in-place sweeps, or until the update / residual drops below a tolerance), and Gauss-Seidel on a dense diagonally dominant system.
The textbook iterative solvers of numerical-methods courses and of small CFD pressure-Poisson solvers; every update reads the values already updated in the same sweep.
"""
import numpy as np
from numba import njit


@njit
def gs_sweeps(u, f, h, nsweeps):
    n, m = u.shape
    h2 = h * h
    for it in range(nsweeps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h2 * f[i, j])


@njit
def gs_poisson_tol(f, h, tol, maxiter):
    n, m = f.shape
    u = np.zeros((n, m))
    h2 = h * h
    it = 0
    diff = tol + 1.0
    while diff > tol and it < maxiter:
        diff = 0.0
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                old = u[i, j]
                u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h2 * f[i, j])
                d = abs(u[i, j] - old)
                if d > diff:
                    diff = d
        it += 1
    return u, it


@njit
def sor_poisson(f, h, omega, tol, maxiter):
    n, m = f.shape
    u = np.zeros((n, m))
    h2 = h * h
    fnorm = np.sqrt(np.sum(f[1:-1, 1:-1] ** 2))
    res = np.empty(maxiter)
    k = 0
    for k in range(maxiter):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                gs = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h2 * f[i, j])
                u[i, j] += omega * (gs - u[i, j])
        r2 = 0.0
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                r = f[i, j] - (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]) / h2
                r2 += r * r
        res[k] = np.sqrt(r2)
        if res[k] < tol * fnorm:
            break
    return u, res[:k + 1]


@njit
def gauss_seidel_dense(M, b, tol, maxiter):
    n = b.shape[0]
    A = M + n * np.eye(n)  # strictly diagonally dominant
    x = np.zeros(n)
    for it in range(maxiter):
        err = 0.0
        for i in range(n):
            s = b[i]
            for j in range(n):
                if j != i:
                    s -= A[i, j] * x[j]
            xi = s / A[i, i]
            err = max(err, abs(xi - x[i]))
            x[i] = xi
        if err < tol:
            return x, it + 1
    return x, maxiter


KPC_CASES = {
    "gs_sweeps": {
        "args": {"u": ("n", "m"), "f": ("n", "m"), "h": {"kind": "scalar", "value": 0.1},
                 "nsweeps": {"kind": "scalar", "value": "s"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "m": 3, "s": 1}, {"n": 30, "m": 24, "s": 8}],
        "writes": ["u"],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-5},
    },
    "gs_poisson_tol": {
        "args": {"f": ("n", "m"), "h": {"kind": "scalar", "value": 0.05},
                 "tol": {"kind": "scalar", "value": 1e-7}, "maxiter": {"kind": "scalar", "value": "it"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "m": 4, "it": 5}, {"n": 20, "m": 20, "it": 400}],
        "rtol": 1e-9,
        "atol": 1e-11,
    },
    "sor_poisson": {
        "args": {"f": ("n", "m"), "h": {"kind": "scalar", "value": 0.05},
                 "omega": {"kind": "scalar", "value": 1.7}, "tol": {"kind": "scalar", "value": 1e-8},
                 "maxiter": {"kind": "scalar", "value": "it"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "m": 3, "it": 3}, {"n": 24, "m": 20, "it": 300}],
        "layouts": ["C", "F"],
        "rtol": 1e-8,
        "atol": 1e-10,
    },
    "gauss_seidel_dense": {
        "args": {"M": ("n", "n"), "b": ("n",), "tol": {"kind": "scalar", "value": 1e-12},
                 "maxiter": {"kind": "scalar", "value": 100}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 40}],
        "rtol": 1e-9,
        "atol": 1e-11,
    },
}
