"""SIR epidemic model integrated with classical RK4, and Mandelbrot-set escape counts.

Two staples of "speed up Python with Numba" tutorials: a small ODE integrator and a fractal.
"""
import numpy as np
from numba import njit, prange


@njit
def sir_rhs(y, beta, gamma):
    s, i, r = y[0], y[1], y[2]
    n = s + i + r
    ds = -beta * s * i / n
    di = beta * s * i / n - gamma * i
    dr = gamma * i
    return np.array([ds, di, dr])


@njit
def sir_rk4(y0, beta, gamma, dt, nsteps):
    traj = np.empty((nsteps + 1, 3))
    traj[0] = y0
    y = y0.copy()
    for k in range(nsteps):
        k1 = sir_rhs(y, beta, gamma)
        k2 = sir_rhs(y + 0.5 * dt * k1, beta, gamma)
        k3 = sir_rhs(y + 0.5 * dt * k2, beta, gamma)
        k4 = sir_rhs(y + dt * k3, beta, gamma)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj[k + 1] = y
    peak = np.argmax(traj[:, 1])
    return traj, peak


@njit
def escape_count(cr, ci, maxiter):
    zr = 0.0
    zi = 0.0
    for n in range(maxiter):
        zr2 = zr * zr
        zi2 = zi * zi
        if zr2 + zi2 > 4.0:
            return n
        zi = 2.0 * zr * zi + ci
        zr = zr2 - zi2 + cr
    return maxiter


@njit(parallel=True)
def mandelbrot(xmin, xmax, ymin, ymax, width, height, maxiter):
    counts = np.zeros((height, width), dtype=np.int32)
    dx = (xmax - xmin) / width
    dy = (ymax - ymin) / height
    for j in prange(height):
        for i in range(width):
            counts[j, i] = escape_count(xmin + i * dx, ymin + j * dy, maxiter)
    return counts


@njit
def mandelbrot_complex(c, maxiter):
    # complex-number style over an array of points
    out = np.zeros(c.shape, dtype=np.int64)
    for k in range(c.size):
        z = 0j
        n = 0
        while abs(z) <= 2.0 and n < maxiter:
            z = z * z + c[k]
            n += 1
        out[k] = n
    return out


KPC_CASES = {
    "sir_rk4": {
        "args": {"y0": {"kind": "array", "shape": (3,), "low": 1.0, "high": 100.0},
                 "beta": {"kind": "scalar", "value": 0.3}, "gamma": {"kind": "scalar", "value": 0.1},
                 "dt": {"kind": "scalar", "value": 0.1}, "nsteps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"steps": 1}, {"steps": 200}],
        "rtol": 1e-10,
    },
    "mandelbrot": {
        "args": {"xmin": {"kind": "scalar", "value": -2.0}, "xmax": {"kind": "scalar", "value": 1.0},
                 "ymin": {"kind": "scalar", "value": -1.5}, "ymax": {"kind": "scalar", "value": 1.5},
                 "width": {"kind": "scalar", "value": "w"}, "height": {"kind": "scalar", "value": "h"},
                 "maxiter": {"kind": "scalar", "value": 50}},
        "dtypes": ["float64"],
        "sizes": [{"w": 1, "h": 1}, {"w": 64, "h": 48}],
    },
    "mandelbrot_complex": {
        "args": {"c": {"kind": "array", "shape": ("n",), "dtype": "complex128", "low": -1.5, "high": 1.0},
                 "maxiter": {"kind": "scalar", "value": 40}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 200}],
    },
}
