"""Peaceman-Rachford ADI (alternating-direction implicit) time stepping for the 2-D heat equation with zero Dirichlet boundaries: a Thomas-algorithm tridiagonal solve along every row, then along every column, in a time loop.
From CFD / numerical-PDE course repositories and heat-transfer scripts ported to Numba (sequential lines, and prange over independent lines).
"""
import numpy as np
from numba import njit, prange


@njit
def thomas(a, b, c, d):
    # a: sub-diagonal (a[0] unused), b: diagonal, c: super-diagonal (c[-1] unused)
    n = d.shape[0]
    cp = np.empty(n)
    dp = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.empty(n)
    x[n - 1] = dp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


@njit
def adi_heat(u0, alpha, dt, h, nsteps):
    nx, ny = u0.shape
    u = u0.copy()
    u[0, :] = 0.0
    u[-1, :] = 0.0
    u[:, 0] = 0.0
    u[:, -1] = 0.0
    r = alpha * dt / (h * h)
    # interior unknowns: 1..nx-2 along x, 1..ny-2 along y
    mx = nx - 2
    my = ny - 2
    ax = np.full(mx, -0.5 * r)
    bx = np.full(mx, 1.0 + r)
    cx = np.full(mx, -0.5 * r)
    ay = np.full(my, -0.5 * r)
    by = np.full(my, 1.0 + r)
    cy = np.full(my, -0.5 * r)
    ustar = u.copy()
    for step in range(nsteps):
        # half step 1: implicit in x, explicit in y
        for j in range(1, ny - 1):
            rhs = np.empty(mx)
            for i in range(1, nx - 1):
                rhs[i - 1] = u[i, j] + 0.5 * r * (u[i, j - 1] - 2.0 * u[i, j] + u[i, j + 1])
            col = thomas(ax, bx, cx, rhs)
            for i in range(1, nx - 1):
                ustar[i, j] = col[i - 1]
        # half step 2: implicit in y, explicit in x
        for i in range(1, nx - 1):
            rhs = np.empty(my)
            for j in range(1, ny - 1):
                rhs[j - 1] = ustar[i, j] + 0.5 * r * (ustar[i - 1, j] - 2.0 * ustar[i, j] + ustar[i + 1, j])
            row = thomas(ay, by, cy, rhs)
            for j in range(1, ny - 1):
                u[i, j] = row[j - 1]
    return u


@njit(parallel=True)
def adi_heat_parallel(u, r, nsteps):
    # in place; u's boundary values are held fixed
    nx, ny = u.shape
    ustar = u.copy()
    cpx = np.empty((ny, nx))
    dpx = np.empty((ny, nx))
    cpy = np.empty((nx, ny))
    dpy = np.empty((nx, ny))
    a = -0.5 * r
    b = 1.0 + r
    for step in range(nsteps):
        # x sweep: every column j is an independent tridiagonal system in i
        for j in prange(1, ny - 1):
            cpx[j, 1] = a / b
            dpx[j, 1] = (u[1, j] + 0.5 * r * (u[1, j - 1] - 2.0 * u[1, j] + u[1, j + 1]) - a * u[0, j]) / b
            for i in range(2, nx - 1):
                d = u[i, j] + 0.5 * r * (u[i, j - 1] - 2.0 * u[i, j] + u[i, j + 1])
                if i == nx - 2:
                    d -= a * u[nx - 1, j]
                m = b - a * cpx[j, i - 1]
                cpx[j, i] = a / m
                dpx[j, i] = (d - a * dpx[j, i - 1]) / m
            ustar[nx - 2, j] = dpx[j, nx - 2]
            for i in range(nx - 3, 0, -1):
                ustar[i, j] = dpx[j, i] - cpx[j, i] * ustar[i + 1, j]
        # y sweep: every row i is an independent tridiagonal system in j
        for i in prange(1, nx - 1):
            cpy[i, 1] = a / b
            dpy[i, 1] = (ustar[i, 1] + 0.5 * r * (ustar[i - 1, 1] - 2.0 * ustar[i, 1] + ustar[i + 1, 1])
                         - a * u[i, 0]) / b
            for j in range(2, ny - 1):
                d = ustar[i, j] + 0.5 * r * (ustar[i - 1, j] - 2.0 * ustar[i, j] + ustar[i + 1, j])
                if j == ny - 2:
                    d -= a * u[i, ny - 1]
                m = b - a * cpy[i, j - 1]
                cpy[i, j] = a / m
                dpy[i, j] = (d - a * dpy[i, j - 1]) / m
            u[i, ny - 2] = dpy[i, ny - 2]
            for j in range(ny - 3, 0, -1):
                u[i, j] = dpy[i, j] - cpy[i, j] * u[i, j + 1]


@njit
def adi_energy_history(nx, ny, alpha, dt, nsteps):
    # Gaussian bump in the unit square; total heat after every step
    h = 1.0 / (nx - 1)
    u = np.zeros((nx, ny))
    for i in range(nx):
        for j in range(ny):
            x = i * h
            y = j * h
            u[i, j] = np.exp(-50.0 * ((x - 0.5) ** 2 + (y - 0.5) ** 2))
    hist = np.empty(nsteps + 1)
    hist[0] = u.sum() * h * h
    for s in range(nsteps):
        u = adi_heat(u, alpha, dt, h, 1)
        hist[s + 1] = u.sum() * h * h
    return hist


KPC_CASES = {
    "adi_heat": {
        "args": {"u0": ("nx", "ny"), "alpha": {"kind": "scalar", "value": 1.0},
                 "dt": {"kind": "scalar", "value": 0.004}, "h": {"kind": "scalar", "value": 0.1},
                 "nsteps": {"kind": "scalar", "value": "s"}},
        "dtypes": ["float64"],
        "sizes": [{"nx": 4, "ny": 3, "s": 1}, {"nx": 24, "ny": 30, "s": 5}],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
        "atol": 1e-11,
    },
    "adi_heat_parallel": {
        "args": {"u": ("nx", "ny"), "r": {"kind": "scalar", "value": 2.0},
                 "nsteps": {"kind": "scalar", "value": "s"}},
        "dtypes": ["float64"],
        "sizes": [{"nx": 4, "ny": 4, "s": 1}, {"nx": 30, "ny": 22, "s": 5}],
        "writes": ["u"],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
        "atol": 1e-11,
    },
    "adi_energy_history": {
        "args": {"nx": {"kind": "scalar", "value": "nx"}, "ny": {"kind": "scalar", "value": "ny"},
                 "alpha": {"kind": "scalar", "value": 0.5}, "dt": {"kind": "scalar", "value": 0.002},
                 "nsteps": {"kind": "scalar", "value": "s"}},
        "dtypes": ["float64"],
        "sizes": [{"nx": 5, "ny": 5, "s": 1}, {"nx": 33, "ny": 33, "s": 6}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
}
