"""Conjugate gradient for symmetric positive definite systems: dense NumPy-style and matrix-free 1-D Poisson.
The textbook CG loop that appears in PDE solvers and optimization code.
"""
import numpy as np
from numba import njit


@njit
def conjugate_gradient(A, b, x0, tol=1e-10, max_iter=1000):
    x = x0.copy()
    r = b - A @ x
    p = r.copy()
    rs_old = r @ r
    i = 0
    for i in range(max_iter):
        Ap = A @ p
        alpha = rs_old / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        if np.sqrt(rs_new) < tol:
            break
        p = r + (rs_new / rs_old) * p
        rs_old = rs_new
    return x, i + 1


@njit
def solve_spd(M, b):
    n = M.shape[0]
    A = M @ M.T + n * np.eye(n)
    x, iters = conjugate_gradient(A, b, np.zeros(n))
    return x, np.linalg.norm(A @ x - b)


@njit
def apply_laplacian(u, out):
    n = u.shape[0]
    for i in range(n):
        v = 2.0 * u[i]
        if i > 0:
            v -= u[i - 1]
        if i < n - 1:
            v -= u[i + 1]
        out[i] = v


@njit
def cg_poisson_1d(f, n_iter):
    n = f.shape[0]
    x = np.zeros(n)
    r = f.copy()
    p = r.copy()
    Ap = np.empty(n)
    rr = np.dot(r, r)
    for k in range(n_iter):
        if rr == 0.0:
            break
        apply_laplacian(p, Ap)
        alpha = rr / np.dot(p, Ap)
        for i in range(n):
            x[i] += alpha * p[i]
            r[i] -= alpha * Ap[i]
        rr_new = np.dot(r, r)
        beta = rr_new / rr
        for i in range(n):
            p[i] = r[i] + beta * p[i]
        rr = rr_new
    return x


KPC_CASES = {
    "solve_spd": {
        "args": {"M": ("n", "n"), "b": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 4}, {"n": 40}],
        "rtol": 1e-8,
        "atol": 1e-9,
    },
    "cg_poisson_1d": {
        "args": {"f": ("n",), "n_iter": {"kind": "scalar", "value": "it"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 8, "it": 4}, {"n": 50, "it": 20}],
        "rtol": 1e-8,
        "atol": 1e-9,
    },
}
