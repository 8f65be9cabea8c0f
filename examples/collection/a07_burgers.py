"""Viscous and inviscid 1-D Burgers' equation: upwind convection + central diffusion, and a Rusanov flux.

As in "CFD Python: 12 steps to Navier-Stokes" style notebooks ported to Numba.
"""
import numpy as np
from numba import njit

NU = 0.07


@njit
def burgers_viscous(u0, dt, dx, nt):
    u = u0.copy()
    for n in range(nt):
        un = u.copy()
        u[1:-1] = (un[1:-1] - un[1:-1] * dt / dx * (un[1:-1] - un[:-2])
                   + NU * dt / dx**2 * (un[2:] - 2 * un[1:-1] + un[:-2]))
        u[0] = un[0]
        u[-1] = un[-1]
    return u


@njit
def rusanov_flux(ul, ur):
    fl = 0.5 * ul * ul
    fr = 0.5 * ur * ur
    s = max(abs(ul), abs(ur))
    return 0.5 * (fl + fr) - 0.5 * s * (ur - ul)


@njit
def burgers_fv(u0, dt, dx, nt):
    # finite-volume inviscid Burgers with outflow boundaries
    n = u0.shape[0]
    u = u0.copy()
    flux = np.zeros(n + 1)
    for _ in range(nt):
        for i in range(1, n):
            flux[i] = rusanov_flux(u[i - 1], u[i])
        flux[0] = rusanov_flux(u[0], u[0])
        flux[n] = rusanov_flux(u[n - 1], u[n - 1])
        for i in range(n):
            u[i] -= dt / dx * (flux[i + 1] - flux[i])
    return u


@njit
def burgers_upwind_where(u0, dt, dx, nt):
    # sign-dependent upwinding written with np.where
    u = u0.copy()
    for _ in range(nt):
        dm = u[1:-1] - u[:-2]
        dp = u[2:] - u[1:-1]
        grad = np.where(u[1:-1] > 0, dm, dp)
        u[1:-1] = u[1:-1] - dt / dx * u[1:-1] * grad
    return u


KPC_CASES = {
    "burgers_viscous": {
        "args": {"u0": ("n",), "dt": {"kind": "scalar", "value": 0.01}, "dx": {"kind": "scalar", "value": 0.1},
                 "nt": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "steps": 2}, {"n": 81, "steps": 40}],
        "rtol": 1e-10,
    },
    "burgers_fv": {
        "args": {"u0": ("n",), "dt": {"kind": "scalar", "value": 0.01}, "dx": {"kind": "scalar", "value": 0.1},
                 "nt": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 2, "steps": 2}, {"n": 81, "steps": 40}],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
    },
    "burgers_upwind_where": {
        "args": {"u0": ("n",), "dt": {"kind": "scalar", "value": 0.01}, "dx": {"kind": "scalar", "value": 0.1},
                 "nt": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "steps": 2}, {"n": 81, "steps": 40}],
        "rtol": 1e-10,
    },
}
