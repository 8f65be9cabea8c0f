"""First-order upwind and Lax-Wendroff schemes for 1-D linear advection u_t + a u_x = 0, periodic.

Typical of hyperbolic-PDE course material (upwind with np.roll, explicit loops).
"""
import numpy as np
from numba import njit


@njit
def upwind(u0, a, dt, dx, nsteps):
    u = u0.copy()
    n = u.size
    c = a * dt / dx
    un = np.empty(n)
    for _ in range(nsteps):
        for i in range(n):
            if a > 0:
                un[i] = u[i] - c * (u[i] - u[i - 1])          # u[-1] wraps around
            else:
                un[i] = u[i] - c * (u[(i + 1) % n] - u[i])
        u[:] = un
    return u


@njit(fastmath=True)
def upwind_roll(u0, c, nsteps):
    u = u0.copy()
    for _ in range(nsteps):
        u = u - c * (u - np.roll(u, 1))
    return u


@njit
def lax_wendroff(u0, c, nsteps):
    u = u0.copy()
    n = len(u)
    for _ in range(nsteps):
        up = np.empty_like(u)
        for i in range(n):
            ip = (i + 1) % n
            im = (i - 1) % n
            up[i] = u[i] - 0.5 * c * (u[ip] - u[im]) + 0.5 * c * c * (u[ip] - 2 * u[i] + u[im])
        u = up
    total = 0.0
    for i in range(n):
        total += u[i]
    return u, total


KPC_CASES = {
    "upwind": {
        "args": {"u0": ("n",), "a": {"kind": "scalar", "value": 1.0}, "dt": {"kind": "scalar", "value": 0.05},
                 "dx": {"kind": "scalar", "value": 0.1}, "nsteps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 4, "steps": 3}, {"n": 100, "steps": 25}],
        "rtol": {"float32": 1e-4},
    },
    "upwind_roll": {
        "args": {"u0": ("n",), "c": {"kind": "scalar", "value": 0.4}, "nsteps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "steps": 3}, {"n": 100, "steps": 25}],
        "rtol": 1e-10,
    },
    "lax_wendroff": {
        "args": {"u0": ("n",), "c": {"kind": "scalar", "value": 0.8}, "nsteps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "steps": 3}, {"n": 100, "steps": 25}],
        "rtol": 1e-10,
    },
}
