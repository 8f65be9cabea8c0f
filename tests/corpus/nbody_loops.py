"""Direct-summation gravitational N-body accelerations and a leapfrog step.

Exercises: an all-pairs `prange` over bodies with an inner loop over all
other bodies (`continue` on `j == i`), Plummer softening with
`r2 ** -1.5`-style negative fractional powers, three scalar accumulators
per iteration written into a row of the output, and a kick-drift update
of positions and velocities in place.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def accelerations(pos, mass, acc, eps):
    n = pos.shape[0]
    for i in prange(n):
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(n):
            if j == i:
                continue
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            r2 = dx * dx + dy * dy + dz * dz + eps * eps
            inv_r3 = r2 ** -1.5
            ax += mass[j] * dx * inv_r3
            ay += mass[j] * dy * inv_r3
            az += mass[j] * dz * inv_r3
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


@njit(parallel=True)
def kick_drift(pos, vel, acc, dt):
    for i in prange(pos.shape[0]):
        for d in range(3):
            vel[i, d] += dt * acc[i, d]
            pos[i, d] += dt * vel[i, d]
    kinetic = 0.0
    for i in prange(vel.shape[0]):
        kinetic += 0.5 * (vel[i, 0] ** 2 + vel[i, 1] ** 2 + vel[i, 2] ** 2)
    return kinetic


KPC_CASES = {
    "accelerations": {
        "args": {
            "pos": ("n", 3),
            "mass": {"kind": "array", "shape": ("n",), "low": 0.5, "high": 1.5},
            "acc": ("n", 3),
            "eps": {"kind": "scalar", "value": 0.05},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 64}],
        "writes": ["acc"],
        "layouts": ["C", "F", "strided"],
    },
    "kick_drift": {
        "args": {
            "pos": ("n", 3),
            "vel": ("n", 3),
            "acc": ("n", 3),
            "dt": {"kind": "scalar", "value": 0.01},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 33}],
        "writes": ["pos", "vel"],
        "layouts": ["C", "F", "strided"],
    },
}
