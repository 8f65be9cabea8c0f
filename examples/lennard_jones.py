"""Lennard-Jones cluster potential: the kernel kpc is first measured on.

The total energy of a cluster of atoms, each pair interacting through the
Lennard-Jones potential in reduced units. The outer loop is a ``prange``
reduction; its inner loop is triangular (``j`` starts at ``i + 1``), so the
work per outer iteration shrinks with ``i``.

Run it as a script to time it under Numba::

    python examples/lennard_jones.py            # 3000 atoms
    python examples/lennard_jones.py 10000
"""

import sys
import time

import numpy as np
from numba import njit, prange


@njit
def distance(atom1, atom2):
    """Euclidean distance between two atoms (rows of the cluster)."""
    dx = atom2[0] - atom1[0]
    dy = atom2[1] - atom1[1]
    dz = atom2[2] - atom1[2]
    return (dx * dx + dy * dy + dz * dz) ** 0.5


@njit
def lj(r):
    """Lennard-Jones pair energy at distance ``r`` (epsilon = sigma = 1)."""
    return 4 * ((1 / r) ** 12 - (1 / r) ** 6)


@njit(parallel=True)
def potential(cluster):
    """Total Lennard-Jones energy of ``cluster``, an (n, 3) array of positions."""
    energy = 0.0
    for i in prange(len(cluster) - 1):
        for j in range(i + 1, len(cluster)):
            r = distance(cluster[i], cluster[j])
            energy += lj(r)
    return energy


def random_cluster(n_atoms, seed=0):
    """``n_atoms`` atoms on a cubic lattice at the pair-potential minimum, randomly jittered.

    Uniformly random positions would put some atoms almost on top of each other,
    and their huge repulsion would drown every other term of the sum.
    """
    rng = np.random.default_rng(seed)
    per_side = int(np.ceil(n_atoms ** (1 / 3)))
    axis = np.arange(per_side, dtype=np.float64)
    lattice = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), axis=-1).reshape(-1, 3)
    spacing = 2.0 ** (1 / 6)
    jitter = rng.uniform(-0.05, 0.05, size=(n_atoms, 3))
    return np.ascontiguousarray(lattice[:n_atoms] * spacing + jitter)


def best_time(function, *args, repeats=5):
    """Best wall time of ``repeats`` calls, in seconds, and the last result."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv):
    n_atoms = int(argv[1]) if len(argv) > 1 else 3000
    cluster = random_cluster(n_atoms)

    start = time.perf_counter()
    potential(cluster)
    compile_seconds = time.perf_counter() - start

    seconds, energy = best_time(potential, cluster)
    print(f"Lennard-Jones potential of {n_atoms} atoms under Numba (parallel=True)")
    print(f"  energy            {energy:.10e}")
    print(f"  first call        {compile_seconds:.3f} s (includes JIT compilation)")
    print(f"  best of 5 calls   {seconds * 1e3:.3f} ms")


if __name__ == "__main__":
    main(sys.argv)
