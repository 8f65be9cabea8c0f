"""Direct-summation N-body gravity: accelerations with softening, a leapfrog (kick-drift-kick) step, total energy.

As in astrophysics teaching codes and "N-body in Python" benchmark repos.
"""
import numpy as np
from numba import njit, prange

G = 1.0
SOFT = 0.01


@njit(parallel=True)
def accelerations(pos, mass):
    n = pos.shape[0]
    acc = np.zeros((n, 3))
    for i in prange(n):
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(n):
            if i != j:
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                dz = pos[j, 2] - pos[i, 2]
                r2 = dx * dx + dy * dy + dz * dz + SOFT * SOFT
                inv_r3 = r2 ** -1.5
                ax += G * mass[j] * dx * inv_r3
                ay += G * mass[j] * dy * inv_r3
                az += G * mass[j] * dz * inv_r3
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az
    return acc


@njit
def leapfrog_step(pos, vel, mass, dt):
    acc = accelerations(pos, mass)
    vel += 0.5 * dt * acc
    pos += dt * vel
    acc = accelerations(pos, mass)
    vel += 0.5 * dt * acc


@njit
def total_energy(pos, vel, mass):
    ke = 0.5 * np.sum(mass * np.sum(vel ** 2, axis=1))
    pe = 0.0
    n = pos.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r = np.sqrt(np.sum(d * d) + SOFT * SOFT)
            pe -= G * mass[i] * mass[j] / r
    return ke, pe, ke + pe


KPC_CASES = {
    "accelerations": {
        "args": {"pos": {"kind": "array", "shape": ("n", 3), "values": "lattice"},
                 "mass": {"kind": "array", "shape": ("n",), "low": 0.5, "high": 1.5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 40}],
        "rtol": 1e-10,
    },
    "leapfrog_step": {
        "args": {"pos": {"kind": "array", "shape": ("n", 3), "values": "lattice"}, "vel": ("n", 3),
                 "mass": {"kind": "array", "shape": ("n",), "low": 0.5, "high": 1.5},
                 "dt": {"kind": "scalar", "value": 0.01}},
        "dtypes": ["float64"],
        "sizes": [{"n": 2}, {"n": 40}],
        "writes": ["pos", "vel"],
        "rtol": 1e-10,
    },
    "total_energy": {
        "args": {"pos": {"kind": "array", "shape": ("n", 3), "values": "lattice"}, "vel": ("n", 3),
                 "mass": {"kind": "array", "shape": ("n",), "low": 0.5, "high": 1.5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 2}, {"n": 40}],
        "rtol": 1e-10,
    },
}
