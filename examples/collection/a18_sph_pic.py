"""SPH density summation with a cubic-spline kernel, and cloud-in-cell charge deposition for 1-D/2-D PIC.

As in smoothed-particle-hydrodynamics and plasma particle-in-cell teaching codes.
"""
import math
import numpy as np
from numba import njit, prange


@njit(fastmath=True)
def cubic_spline_w(r, h):
    # 3-D cubic spline (M4) kernel
    q = r / h
    sigma = 1.0 / (math.pi * h ** 3)
    if q < 1.0:
        return sigma * (1.0 - 1.5 * q * q + 0.75 * q ** 3)
    elif q < 2.0:
        return sigma * 0.25 * (2.0 - q) ** 3
    return 0.0


@njit(parallel=True, fastmath=True)
def sph_density(pos, mass, h):
    n = pos.shape[0]
    rho = np.empty(n)
    for i in prange(n):
        s = 0.0
        for j in range(n):
            r = math.sqrt((pos[i, 0] - pos[j, 0]) ** 2 + (pos[i, 1] - pos[j, 1]) ** 2 + (pos[i, 2] - pos[j, 2]) ** 2)
            s += mass[j] * cubic_spline_w(r, h)
        rho[i] = s
    return rho


@njit
def cic_deposit_1d(x, q, ngrid, L):
    # periodic cloud-in-cell charge deposition
    dx = L / ngrid
    rho = np.zeros(ngrid)
    for p in range(x.shape[0]):
        xi = x[p] / dx
        i = int(np.floor(xi))
        frac = xi - i
        i0 = i % ngrid
        i1 = (i + 1) % ngrid
        rho[i0] += q[p] * (1.0 - frac) / dx
        rho[i1] += q[p] * frac / dx
    return rho


@njit
def cic_deposit_2d(xy, nx, ny):
    # unit charges on the unit square, grid of nx x ny cells (periodic)
    grid = np.zeros((nx, ny))
    for p in range(xy.shape[0]):
        gx = xy[p, 0] * nx
        gy = xy[p, 1] * ny
        i = int(gx)
        j = int(gy)
        fx = gx - i
        fy = gy - j
        grid[i % nx, j % ny] += (1 - fx) * (1 - fy)
        grid[(i + 1) % nx, j % ny] += fx * (1 - fy)
        grid[i % nx, (j + 1) % ny] += (1 - fx) * fy
        grid[(i + 1) % nx, (j + 1) % ny] += fx * fy
    return grid


KPC_CASES = {
    "sph_density": {
        "args": {"pos": {"kind": "array", "shape": ("n", 3), "values": "lattice", "spacing": 0.5},
                 "mass": {"kind": "array", "shape": ("n",), "low": 0.5, "high": 1.0},
                 "h": {"kind": "scalar", "value": 0.6}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 50}],
        "rtol": 1e-9,
    },
    "cic_deposit_1d": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": 0.0, "high": 2.0},
                 "q": ("n",), "ngrid": {"kind": "scalar", "value": "g"}, "L": {"kind": "scalar", "value": 2.0}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "g": 4}, {"n": 200, "g": 16}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "cic_deposit_2d": {
        "args": {"xy": {"kind": "array", "shape": ("n", 2), "low": 0.0, "high": 1.0},
                 "nx": {"kind": "scalar", "value": "gx"}, "ny": {"kind": "scalar", "value": "gy"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "gx": 2, "gy": 3}, {"n": 300, "gx": 8, "gy": 6}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
}
