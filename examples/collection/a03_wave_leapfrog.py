"""Leapfrog (central in time and space) integration of the 1-D and 2-D wave equation.

As in seismic / acoustics teaching codes (e.g. "12 steps"-style notebooks).
"""
import numpy as np
from numba import njit


@njit(cache=True)
def wave1d(u0, v0, c, dt, dx, nsteps):
    n = u0.shape[0]
    r2 = (c * dt / dx) ** 2
    u_prev = u0.copy()
    u = np.zeros(n)
    # first step from initial velocity (Taylor)
    for i in range(1, n - 1):
        u[i] = u0[i] + dt * v0[i] + 0.5 * r2 * (u0[i + 1] - 2 * u0[i] + u0[i - 1])
    u_next = np.zeros(n)
    for _ in range(nsteps):
        for i in range(1, n - 1):
            u_next[i] = 2 * u[i] - u_prev[i] + r2 * (u[i + 1] - 2 * u[i] + u[i - 1])
        u_prev[:] = u
        u[:] = u_next
    return u, u_prev


@njit(cache=True)
def wave2d_step(u, u_prev, c2, dt, h):
    # returns the new field and the discrete energy proxy
    coef = c2 * dt * dt / (h * h)
    u_new = np.zeros_like(u)
    u_new[1:-1, 1:-1] = (2.0 * u[1:-1, 1:-1] - u_prev[1:-1, 1:-1]
                         + coef * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1]))
    energy = np.sum((u_new - u) ** 2)
    return u_new, energy


KPC_CASES = {
    "wave1d": {
        "args": {"u0": ("n",), "v0": ("n",), "c": {"kind": "scalar", "value": 1.0},
                 "dt": {"kind": "scalar", "value": 0.05}, "dx": {"kind": "scalar", "value": 0.1},
                 "nsteps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "steps": 2}, {"n": 64, "steps": 30}],
    },
    "wave2d_step": {
        "args": {"u": ("n", "m"), "u_prev": ("n", "m"), "c2": {"kind": "scalar", "value": 1.0},
                 "dt": {"kind": "scalar", "value": 0.05}, "h": {"kind": "scalar", "value": 0.1}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 4, "m": 5}, {"n": 30, "m": 41}],
        "rtol": {"float32": 1e-4},
    },
}
