"""Finite differences and cumulative operations with NumPy slices.

Exercises: central differences `(f[2:] - f[:-2]) / (2 * h)` with
one-sided ends written into slices of a new array, `np.diff`,
`np.cumsum` (a scan expressed as a NumPy call), a 2-D gradient along
both axes into two outputs, and a trapezoid integral from slices.
(Numba's `np.diff` reshapes its input, so it rejects non-contiguous
arrays: `second_differences` is checked in C layout only.)
"""
import numpy as np
from numba import njit


@njit
def gradient_1d(f, h):
    g = np.empty_like(f)
    g[1:-1] = (f[2:] - f[:-2]) / (2.0 * h)
    g[0] = (f[1] - f[0]) / h
    g[-1] = (f[-1] - f[-2]) / h
    return g


@njit
def gradient_2d(u, gx, gy, h):
    gx[1:-1, :] = (u[2:, :] - u[:-2, :]) / (2.0 * h)
    gy[:, 1:-1] = (u[:, 2:] - u[:, :-2]) / (2.0 * h)


@njit
def running_integral(f, h):
    return np.cumsum(0.5 * (f[1:] + f[:-1]) * h)


@njit
def second_differences(x):
    return np.diff(np.diff(x))


KPC_CASES = {
    "gradient_1d": {
        "args": {"f": ("n",), "h": {"kind": "scalar", "value": 0.1}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 2}, {"n": 3}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "gradient_2d": {
        "args": {"u": ("n", "m"), "gx": ("n", "m"), "gy": ("n", "m"), "h": {"kind": "scalar", "value": 0.5}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 7, "m": 5}, {"n": 33, "m": 20}],
        "writes": ["gx", "gy"],
        "layouts": ["C", "F", "strided"],
    },
    "running_integral": {
        "args": {"f": ("n",), "h": {"kind": "scalar", "value": 0.25}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 2}, {"n": 33}],
        "layouts": ["C", "strided"],
    },
    "second_differences": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 2}, {"n": 7}],
    },
}
