"""A loop variable reused by several loops: `i` of two sweeps that both start at 1 indexes
`a[i - 1]` without Python's negative-index wrap (the hull of the loops' ranges is >= 0); a later
loop over negative `i` keeps the wrap, and reads from the end as Numba does.

Exercises: the interval of a name only `for` loops assign (backend analysis.Intervals), on
explicit stencil sweeps of the wave1d / jacobi shape.
"""
import numpy as np
from numba import njit


@njit
def two_sweeps(a, steps):
    out = np.zeros_like(a)
    for _ in range(steps):
        for i in range(1, a.shape[0] - 1):
            out[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1])
        for i in range(1, a.shape[0] - 1):
            a[i] = out[i]
    return out


@njit
def then_from_the_end(a):
    s = 0.0
    for i in range(1, a.shape[0]):
        s += a[i - 1] * i
    for i in range(-2, 0):
        s += a[i]
    return s


KPC_CASES = {
    "two_sweeps": {
        "args": {"a": ("n",), "steps": {"kind": "scalar", "value": "steps"}},
        "writes": ["a"],
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 2, "steps": 1}, {"n": 3, "steps": 2}, {"n": 50, "steps": 4}],
        "layouts": ["C", "strided"],
    },
    "then_from_the_end": {
        "args": {"a": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 2}, {"n": 9}],
        "layouts": ["C", "strided"],
    },
}
