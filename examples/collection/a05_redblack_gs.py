"""Red-black Gauss-Seidel / SOR smoother for the 2-D Poisson problem, with a residual helper.

As found in multigrid smoothers and parallel-Poisson examples (prange over rows per colour).
"""
import numpy as np
from numba import njit, prange


@njit
def _residual(u, f, h2):
    n, m = u.shape
    r = 0.0
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            res = f[i, j] - (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]) / h2
            r += res * res
    return np.sqrt(r)


@njit(parallel=True)
def rb_sweep(u, f, h2, omega):
    n, m = u.shape
    for color in (0, 1):
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                if (i + j) % 2 == color:
                    gs = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h2 * f[i, j])
                    u[i, j] = (1.0 - omega) * u[i, j] + omega * gs


@njit(parallel=True)
def rb_solve(f, h, omega, nsweeps):
    u = np.zeros(f.shape)
    h2 = h * h
    hist = np.empty(nsweeps)
    for s in range(nsweeps):
        rb_sweep(u, f, h2, omega)
        hist[s] = _residual(u, f, h2)
    return u, hist


KPC_CASES = {
    "rb_sweep": {
        "args": {"u": ("n", "m"), "f": ("n", "m"), "h2": {"kind": "scalar", "value": 0.01},
                 "omega": {"kind": "scalar", "value": 1.5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "m": 4}, {"n": 33, "m": 20}],
        "writes": ["u"],
        "layouts": ["C", "F"],
    },
    "rb_solve": {
        "args": {"f": ("n", "m"), "h": {"kind": "scalar", "value": 0.1},
                 "omega": {"kind": "scalar", "value": 1.2}, "nsweeps": {"kind": "scalar", "value": "s"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "m": 4, "s": 2}, {"n": 24, "m": 18, "s": 10}],
        "rtol": 1e-10,
    },
}
