"""Periodic neighbours: the next and previous element of a ring, a torus or a closed polygon,
indexed `(i + 1) % n` and `(i - 1) % n` with `i` a loop index (periodic-neighbors' selects),
and the shapes that must keep their modulo.

Exercises: a 1-D periodic Laplacian (plain loop and `prange`); a 2-D torus of integer spins
with both neighbours in both dimensions; a closed polygon's area as a sum reduction; a loop
that starts below zero and one that rebinds its index, whose modulo stays a modulo; a modulo
by a size other than the loop's bound.
"""
import numpy as np
from numba import njit, prange


@njit
def ring_laplacian(u, out):
    n = u.shape[0]
    for i in range(n):
        out[i] = u[(i - 1) % n] - 2.0 * u[i] + u[(i + 1) % n]


@njit(parallel=True)
def ring_laplacian_prange(u):
    n = u.shape[0]
    out = np.empty_like(u)
    for i in prange(n):
        out[i] = u[(i - 1) % n] - 2.0 * u[i] + u[(i + 1) % n]
    return out


@njit
def torus_energy(spins):
    n, m = spins.shape
    e = 0
    for i in range(n):
        for j in range(m):
            s = spins[i, j]
            e -= s * (spins[(i + 1) % n, j] + spins[i, (j + 1) % m] + spins[(i - 1) % n, j] + spins[i, (j - 1) % m])
    return e


@njit
def polygon_area(poly):
    n = poly.shape[0]
    a = 0.0
    for i in range(n):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % n]
        a += x0 * y1 - x1 * y0
    return 0.5 * a


@njit
def from_below_zero(x):
    n = x.shape[0]
    acc = 0.0
    for i in range(-3, n):
        acc += (i + 3) * x[(i + 1) % n] + x[(i - 1) % n]
    return acc


@njit
def rebound_index(x, shift):
    n = x.shape[0]
    acc = 0.0
    for i in range(n):
        acc += x[(i + 1) % n]
        i = i + shift
        acc += 2.0 * x[(i + 1) % n] - x[(i - 1) % n]
    return acc


@njit
def other_modulus(x, m):
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(n):
        out[i] = x[(i + 1) % m]
    return out


KPC_CASES = {
    "ring_laplacian": {
        "args": {"u": ("n",), "out": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 2}, {"n": 37}, {"n": 5000}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "ring_laplacian_prange": {
        "args": {"u": ("n",)},
        "sizes": [{"n": 1}, {"n": 3}, {"n": 5000}],
    },
    "torus_energy": {
        "args": {"spins": {"kind": "array", "shape": ("n", "m"), "dtype": "int64", "low": -1, "high": 2}},
        "sizes": [{"n": 1, "m": 1}, {"n": 2, "m": 3}, {"n": 40, "m": 33}],
        "layouts": ["C", "F"],
    },
    "polygon_area": {
        "args": {"poly": ("n", 2)},
        "sizes": [{"n": 1}, {"n": 5}, {"n": 10000}],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
    "from_below_zero": {
        "args": {"x": ("n",)},
        "sizes": [{"n": 1}, {"n": 2}, {"n": 50}],
    },
    "rebound_index": {
        "args": {"x": ("n",), "shift": {"kind": "scalar", "value": "n + 3"}},
        "sizes": [{"n": 1}, {"n": 4}, {"n": 50}],
    },
    "other_modulus": {
        "args": {"x": ("n",), "m": {"kind": "scalar", "value": "n // 2 + 1"}},
        "sizes": [{"n": 1}, {"n": 7}, {"n": 60}],
    },
}
