"""A new array in every step of a time loop, then bound to the name of the current state.

Exercises: `v = np.zeros(n)` / `np.empty_like(u)` / `np.full(...)` inside a serial loop,
then `u = v` (kpc's double-buffer pass keeps two buffers and swaps them: the same
values without an allocation per step); a state that starts as a copy of an argument
(the argument is never written); the zero-step case (the first array is returned).
The way NumPy-style solvers are written; kpc used to keep such kernels as Numba
("array variable 'u' must be assigned once, before its uses").
"""
import numpy as np
from numba import njit


@njit
def relax(n, steps):
    u = np.zeros(n)
    for s in range(steps):
        v = np.zeros(n)
        for i in range(1, n - 1):
            v[i] = 0.5 * (u[i - 1] + u[i + 1]) + 1.0
        u = v
    return u


@njit
def diffuse(u0, steps, k):
    u = u0.copy()
    for s in range(steps):
        v = np.empty_like(u)
        v[0] = u[0]
        v[-1] = u[-1]
        for i in range(1, u.shape[0] - 1):
            v[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u = v
    return u


@njit
def grow(n, steps):
    u = np.full((n, 2), 1.0)
    total = 0.0
    s = 0
    while s < steps:
        v = np.full((n, 2), 2.0)
        for i in range(n):
            v[i, 0] += u[i, 1] * 0.5
            v[i, 1] += u[i, 0] * 0.25
        u = v
        total += u.sum()
        s += 1
    return u, total


KPC_CASES = {
    "relax": {
        "args": {"n": {"kind": "scalar", "value": "n"}, "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "steps": 0}, {"n": 9, "steps": 1}, {"n": 9, "steps": 4}, {"n": 100, "steps": 7}],
    },
    "diffuse": {
        "args": {"u0": ("n",), "steps": {"kind": "scalar", "value": "steps"},
                 "k": {"kind": "scalar", "value": 0.2}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "steps": 0}, {"n": 10, "steps": 3}, {"n": 200, "steps": 6}],
        "layouts": ["C", "strided"],
    },
    "grow": {
        "args": {"n": {"kind": "scalar", "value": "n"}, "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "steps": 0}, {"n": 5, "steps": 3}, {"n": 40, "steps": 2}],
    },
}
