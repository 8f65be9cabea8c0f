"""Divisions by a value the loop does not change (`/ (dx * dx)`, `/ n`): hoist-division-checks
tests the divisor for zero once before the loop, and the kernel raises Numba's
ZeroDivisionError when the loop runs, and nothing when it does not.

Exercises: a finite-difference step divided by invariant spacings (zero spacing raises, an
empty loop does not); a division after a branch in the body, and one by a value the loop
changes, which keep their per-division test; a division inside a conditional expression.
"""
import numpy as np
from numba import njit


@njit
def fd_step(u, out, dx, dt):
    h = dx * 1.0
    for i in range(1, u.shape[0] - 1):
        grad = (u[i + 1] - u[i - 1]) / (2.0 * h)
        lap = (u[i + 1] - 2.0 * u[i] + u[i - 1]) / (h * h)
        out[i] = u[i] + dt * (lap - grad)


@njit
def after_branch(x, d):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            break
        s += x[i] / (d * 1.0)
    return s


@njit
def varying_divisor(x, d):
    s = 0.0
    e = d * 1.0
    for i in range(x.shape[0]):
        s += x[i] / e
        e -= 1.0
    return s


@njit
def conditional_division(x, d):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] / (d * 1.0) if x[i] > 0.0 else x[i]
    return out


KPC_CASES = {
    "fd_step": {
        "args": {"u": ("n",), "out": ("n",), "dx": {"kind": "scalar", "value": "m"},
                 "dt": {"kind": "scalar", "value": 0.01}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 2, "m": 0}, {"n": 3, "m": 0}, {"n": 40, "m": 2}, {"n": 5000, "m": 3}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "after_branch": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": 0.0, "high": 1.0},
                 "d": {"kind": "scalar", "value": "m"}},
        "sizes": [{"n": 0, "m": 0}, {"n": 50, "m": 0}, {"n": 50, "m": 3}],
    },
    "varying_divisor": {
        "args": {"x": ("n",), "d": {"kind": "scalar", "value": "m"}},
        "sizes": [{"n": 1, "m": 0}, {"n": 5, "m": 3}, {"n": 50, "m": 100}],
    },
    "conditional_division": {
        "args": {"x": ("n",), "d": {"kind": "scalar", "value": "m"}},
        "sizes": [{"n": 0, "m": 0}, {"n": 30, "m": 0}, {"n": 30, "m": 2}],
    },
}
