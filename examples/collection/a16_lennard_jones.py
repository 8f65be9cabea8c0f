"""Lennard-Jones forces and potential energy with a cutoff and minimum-image periodic boundaries.

As in molecular-dynamics teaching codes (MD in a cubic box, O(N^2) pair loop).
"""
import numpy as np
import numba

EPS = 1.0
SIGMA = 1.0


@numba.njit
def minimum_image(d, box):
    return d - box * np.round(d / box)


@numba.njit
def lj_pair(r2):
    sr2 = SIGMA * SIGMA / r2
    sr6 = sr2 * sr2 * sr2
    e = 4.0 * EPS * (sr6 * sr6 - sr6)
    fmag = 24.0 * EPS * (2.0 * sr6 * sr6 - sr6) / r2
    return e, fmag


@numba.njit(parallel=True)
def lj_forces(pos, box, rc):
    n = pos.shape[0]
    f = np.zeros_like(pos)
    rc2 = rc * rc
    for i in numba.prange(n):
        for j in range(n):
            if j == i:
                continue
            dx = minimum_image(pos[i, 0] - pos[j, 0], box)
            dy = minimum_image(pos[i, 1] - pos[j, 1], box)
            dz = minimum_image(pos[i, 2] - pos[j, 2], box)
            r2 = dx * dx + dy * dy + dz * dz
            if r2 < rc2:
                _, fm = lj_pair(r2)
                f[i, 0] += fm * dx
                f[i, 1] += fm * dy
                f[i, 2] += fm * dz
    return f


@numba.njit
def lj_energy_virial(pos, box, rc):
    n = pos.shape[0]
    energy = 0.0
    virial = 0.0
    for i in range(n - 1):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            d = d - box * np.round(d / box)
            r2 = (d ** 2).sum()
            if r2 < rc * rc:
                e, fm = lj_pair(r2)
                energy += e
                virial += fm * r2
    return energy, virial


KPC_CASES = {
    "lj_forces": {
        "args": {"pos": {"kind": "array", "shape": ("n", 3), "values": "lattice", "spacing": 1.1},
                 "box": {"kind": "scalar", "value": 8.0}, "rc": {"kind": "scalar", "value": 2.5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 2}, {"n": 60}],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
    "lj_energy_virial": {
        "args": {"pos": {"kind": "array", "shape": ("n", 3), "values": "lattice", "spacing": 1.1},
                 "box": {"kind": "scalar", "value": 8.0}, "rc": {"kind": "scalar", "value": 2.5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 2}, {"n": 60}],
        "rtol": 1e-9,
    },
}
