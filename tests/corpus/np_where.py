"""Masked updates with `np.where` and boolean masks.

Exercises: `np.where(cond, a, b)` with array and scalar branches (leaky
ReLU), `np.where` feeding a further expression, a boolean-mask
assignment `x[x < lo] = lo` on a 1-D array, `np.clip`, and counting a
mask with `np.sum(mask)` / `np.count_nonzero`.
"""
import numpy as np
from numba import njit


@njit
def leaky_relu(x, slope):
    return np.where(x > 0, x, slope * x)


@njit
def huber(r, delta):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))


@njit
def clamp_low_inplace(x, lo):
    x[x < lo] = lo
    return np.count_nonzero(x == lo)


@njit
def clip_and_count(x, lo, hi):
    y = np.clip(x, lo, hi)
    return y, np.sum(y == hi)


KPC_CASES = {
    "leaky_relu": {
        "args": {"x": ("n", "m"), "slope": {"kind": "scalar", "value": 0.1}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "m": 2}, {"n": 7, "m": 9}],
        "layouts": ["C", "F", "strided"],
    },
    "huber": {
        "args": {"r": {"kind": "array", "shape": ("n",), "low": -3.0, "high": 3.0}, "delta": {"kind": "scalar", "value": 1.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "clamp_low_inplace": {
        "args": {"x": ("n",), "lo": {"kind": "scalar", "value": -0.25, "dtype": "case"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "writes": ["x"],
        "layouts": ["C"],
    },
    "clip_and_count": {
        "args": {
            "x": ("n",),
            "lo": {"kind": "scalar", "value": -0.5},
            "hi": {"kind": "scalar", "value": 0.5},
        },
        "dtypes": ["float64"],
        "sizes": [{"n": 0}, {"n": 33}],
        "layouts": ["C", "strided"],
    },
}
