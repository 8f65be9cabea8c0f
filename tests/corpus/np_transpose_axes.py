"""Transposes with explicit axes and the reshapes around them, as tensor-layout code writes
them: `a.transpose(0, 2, 1)` (axes as arguments), `a.transpose((2, 0, 1))` (a tuple),
`np.transpose(a, axes)` with a negative axis, and a reshape / transpose / reshape chain
that regroups channels (each step a new array in NumPy's C order).
"""
import numpy as np
from numba import njit


@njit
def swap_last_two(a):
    return a.transpose(0, 2, 1) * 2.0 + 1.0


@njit
def rotate_axes(a):
    t = a.transpose((2, 0, 1))
    return t - np.transpose(a, (1, -1, 0)).sum()


@njit
def regroup_channels(x, groups):
    c, h, w = x.shape
    y = x.reshape(groups, c // groups, h, w)
    y = np.transpose(y, (1, 0, 2, 3))
    return y.copy().reshape(c, h * w)


@njit
def fold_blocks(x, b):
    c, h, w = x.shape
    y = x.reshape(c, h // b, b, w // b, b)
    z = y.transpose((0, 2, 4, 1, 3)).copy()
    return z.reshape(c * b * b, h // b, w // b)


KPC_CASES = {
    "swap_last_two": {
        "args": {"a": ("n", "m", "k")},
        "sizes": [{"n": 1, "m": 1, "k": 1}, {"n": 3, "m": 4, "k": 5}],
        "layouts": ["C", "F", "strided"],
    },
    "rotate_axes": {
        "args": {"a": ("n", "m", "k")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 2, "m": 3, "k": 4}],
        "layouts": ["C", "F"],
    },
    "regroup_channels": {
        "args": {"x": ("g*c", "h", "w"), "groups": {"kind": "scalar", "value": "g"}},
        "sizes": [{"g": 1, "c": 1, "h": 1, "w": 1}, {"g": 2, "c": 3, "h": 4, "w": 5}, {"g": 4, "c": 2, "h": 3, "w": 3}],
        "layouts": ["C", "F"],
    },
    "fold_blocks": {
        "args": {"x": ("c", "h*b", "w*b"), "b": {"kind": "scalar", "value": "b"}},
        "sizes": [{"c": 1, "h": 1, "w": 1, "b": 1}, {"c": 3, "h": 2, "w": 3, "b": 2}],
    },
}
