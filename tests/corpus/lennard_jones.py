"""Seed kernel: Lennard-Jones potential energy of an atom cluster.

Exercises: device helpers (`distance` takes two rows `cluster[i]`,
`cluster[j]` and indexes them as 1-D; `lj` takes a scalar), `** 0.5` and
`(1.0 / r) ** 6` powers, `@njit(parallel=True)` with a `prange` over
`len(cluster) - 1` and a triangular inner `range(i + 1, len(cluster))`
feeding a `+=` reduction.
"""
import numpy as np
from numba import njit, prange


@njit
def distance(atom1, atom2):
    dx = atom2[0] - atom1[0]
    dy = atom2[1] - atom1[1]
    dz = atom2[2] - atom1[2]
    r = (dx * dx + dy * dy + dz * dz) ** 0.5
    return r


@njit
def lj(r):
    sr6 = (1.0 / r) ** 6
    pot = 4.0 * (sr6 * sr6 - sr6)
    return pot


@njit(parallel=True)
def potential(cluster):
    energy = 0.0
    for i in prange(len(cluster) - 1):
        for j in range(i + 1, len(cluster)):
            r = distance(cluster[i], cluster[j])
            e = lj(r)
            energy += e
    return energy


KPC_CASES = {
    "potential": {
        "args": {
            "cluster": {"kind": "array", "shape": ("n", 3), "values": "lattice", "spacing": 1.1},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 2}, {"n": 7}, {"n": 33}, {"n": 100}],
        "layouts": ["C", "F", "strided"],
    },
}
