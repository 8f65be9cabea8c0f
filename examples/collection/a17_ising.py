"""2-D Ising model: Metropolis sweeps with np.random, energy and magnetisation of a +-1 spin lattice.

As in statistical-physics course codes. `metropolis_sweep` draws from np.random (kpc's random
stream differs from Numba's), so it is NOT in KPC_CASES; `metropolis_sweep_given` takes
pre-drawn uniforms and is deterministic.
"""
import numpy as np
from numba import njit


@njit
def energy(spins, J):
    n, m = spins.shape
    e = 0.0
    for i in range(n):
        for j in range(m):
            s = spins[i, j]
            e -= J * s * (spins[(i + 1) % n, j] + spins[i, (j + 1) % m])
    return e


@njit
def magnetization(spins):
    return np.abs(np.sum(spins)) / spins.size


@njit
def metropolis_sweep(spins, beta):
    n, m = spins.shape
    accepted = 0
    for _ in range(n * m):
        i = np.random.randint(0, n)
        j = np.random.randint(0, m)
        nb = spins[(i + 1) % n, j] + spins[i - 1, j] + spins[i, (j + 1) % m] + spins[i, j - 1]
        dE = 2.0 * spins[i, j] * nb
        if dE <= 0 or np.random.random() < np.exp(-beta * dE):
            spins[i, j] = -spins[i, j]
            accepted += 1
    return accepted


@njit
def metropolis_sweep_given(spins, beta, sites, u):
    # same update with the random numbers supplied by the caller (reproducible)
    n, m = spins.shape
    accepted = 0
    for k in range(sites.shape[0]):
        i = sites[k] // m
        j = sites[k] % m
        nb = spins[(i + 1) % n, j] + spins[i - 1, j] + spins[i, (j + 1) % m] + spins[i, j - 1]
        dE = 2.0 * spins[i, j] * nb
        if dE <= 0 or u[k] < np.exp(-beta * dE):
            spins[i, j] = -spins[i, j]
            accepted += 1
    return accepted


KPC_CASES = {
    "energy": {
        "args": {"spins": {"kind": "array", "shape": ("n", "m"), "dtype": "int64", "low": -1, "high": 2},
                 "J": {"kind": "scalar", "value": 1.0}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 16, "m": 20}],
    },
    "magnetization": {
        "args": {"spins": {"kind": "array", "shape": ("n", "m"), "dtype": "int64", "low": -1, "high": 2}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 16, "m": 20}],
    },
    "metropolis_sweep_given": {
        "args": {"spins": {"kind": "array", "shape": ("n", "m"), "dtype": "int64", "low": -1, "high": 2},
                 "beta": {"kind": "scalar", "value": 0.44},
                 "sites": {"kind": "index", "shape": ("k",), "high": "n*m"},
                 "u": {"kind": "array", "shape": ("k",), "low": 0.0, "high": 1.0}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "m": 2, "k": 3}, {"n": 16, "m": 20, "k": 500}],
        "writes": ["spins"],
    },
}
