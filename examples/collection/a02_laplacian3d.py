"""7-point Laplacian on a 3-D grid, with prange and with NumPy slices, plus a residual norm.

Typical of Poisson-solver and multigrid prototypes in scientific Python repos.
"""
import numpy as np
import numba
from numba import njit, prange


@njit(parallel=True)
def laplacian7(u, h):
    nx, ny, nz = u.shape
    out = np.zeros((nx, ny, nz))
    ih2 = 1.0 / (h * h)
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                out[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k]
                                + u[i, j - 1, k] + u[i, j + 1, k]
                                + u[i, j, k - 1] + u[i, j, k + 1]
                                - 6.0 * u[i, j, k]) * ih2
    return out


@numba.jit(nopython=True)
def laplacian7_np(u, h):
    lap = np.zeros_like(u)
    lap[1:-1, 1:-1, 1:-1] = (
        u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1]
        + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
        + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]
        - 6 * u[1:-1, 1:-1, 1:-1]
    ) / h**2
    return lap


@njit(parallel=True)
def residual_norm(u, f, h):
    # ||f - lap(u)||_2 over the interior
    nx, ny, nz = u.shape
    s = 0.0
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                lap = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                       + u[i, j, k - 1] + u[i, j, k + 1] - 6.0 * u[i, j, k]) / (h * h)
                r = f[i, j, k] - lap
                s += r * r
    return np.sqrt(s)


KPC_CASES = {
    "laplacian7": {
        "args": {"u": ("n", "m", "k"), "h": {"kind": "scalar", "value": 0.5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "m": 4, "k": 5}, {"n": 17, "m": 12, "k": 10}],
        "layouts": ["C", "F"],
    },
    "laplacian7_np": {
        "args": {"u": ("n", "m", "k"), "h": {"kind": "scalar", "value": 0.5}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "m": 4, "k": 5}, {"n": 17, "m": 12, "k": 10}],
    },
    "residual_norm": {
        "args": {"u": ("n", "m", "k"), "f": ("n", "m", "k"), "h": {"kind": "scalar", "value": 0.5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "m": 4, "k": 5}, {"n": 17, "m": 12, "k": 10}],
        "rtol": 1e-10,
    },
}
