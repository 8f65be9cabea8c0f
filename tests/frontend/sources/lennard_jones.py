"""Seed kernel: Lennard-Jones cluster potential with two device helpers and a prange reduction."""
# golden-signature: potential(float64[:, ::1])
import numpy as np
from numba import njit, prange


@njit
def distance(atom1, atom2):
    dx = atom2[0] - atom1[0]
    dy = atom2[1] - atom1[1]
    dz = atom2[2] - atom1[2]
    return (dx * dx + dy * dy + dz * dz) ** 0.5


@njit
def lj(r):
    return 4 * ((1 / r) ** 12 - (1 / r) ** 6)


@njit(parallel=True)
def potential(cluster):
    energy = 0.0
    n = len(cluster)
    for i in prange(n - 1):
        for j in range(i + 1, n):
            r = distance(cluster[i], cluster[j])
            energy += lj(r)
    return energy
