"""Explicit (FTCS) time stepping of the 2-D heat equation u_t = alpha * lap(u).

The kind of code found in CFD / numerical-methods teaching notebooks.
"""
import numpy as np
from numba import njit

ALPHA = 0.1


@njit
def heat_step(u, un, dt, dx):
    # one FTCS step, loop style; boundary values are copied over
    r = ALPHA * dt / (dx * dx)
    nx, ny = u.shape
    for i in range(nx):
        for j in range(ny):
            if i == 0 or j == 0 or i == nx - 1 or j == ny - 1:
                un[i, j] = u[i, j]
            else:
                un[i, j] = u[i, j] + r * (u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4.0 * u[i, j])


@njit
def heat_step_np(u, dt, dx):
    # NumPy-style step with slices, returns a new array
    r = ALPHA * dt / dx**2
    un = u.copy()
    un[1:-1, 1:-1] = u[1:-1, 1:-1] + r * (
        u[2:, 1:-1] - 2 * u[1:-1, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] - 2 * u[1:-1, 1:-1] + u[1:-1, :-2]
    )
    return un


@njit
def heat_run(u0, nsteps, dt, dx):
    # time loop with buffer swapping; returns the final field and its total heat
    u = u0.copy()
    un = np.empty_like(u)
    for _ in range(nsteps):
        heat_step(u, un, dt, dx)
        u, un = un, u
    return u, u.sum()


KPC_CASES = {
    "heat_step": {
        "args": {"u": ("n", "m"), "un": ("n", "m"),
                 "dt": {"kind": "scalar", "value": 0.1}, "dx": {"kind": "scalar", "value": 1.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 5, "m": 4}, {"n": 40, "m": 33}],
        "writes": ["un"],
    },
    "heat_step_np": {
        "args": {"u": ("n", "m"), "dt": {"kind": "scalar", "value": 0.1}, "dx": {"kind": "scalar", "value": 1.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 5, "m": 4}, {"n": 40, "m": 33}],
    },
    "heat_run": {
        "args": {"u0": ("n", "m"), "nsteps": {"kind": "scalar", "value": "steps"},
                 "dt": {"kind": "scalar", "value": 0.1}, "dx": {"kind": "scalar", "value": 1.0}},
        "dtypes": ["float64"],
        "sizes": [{"n": 6, "m": 5, "steps": 3}, {"n": 32, "m": 30, "steps": 20}],
    },
}
