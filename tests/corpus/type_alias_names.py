"""Kernels whose names are also Numba type aliases (`b1`, `i4`, `f8`): a kernel typed at its
call is asked for under its own name (`b1(float64, float64)`), which names the function, not
a return type; one of them calls another.
"""
import numpy as np
from numba import njit


@njit
def b1(x, y):
    return x < y


@njit
def i4(a):
    n = 0
    for k in range(a.shape[0]):
        if b1(a[k], 0.0):
            n += 1
    return n


@njit
def f8(a):
    return np.sum(a) / max(i4(a), 1)


KPC_CASES = {
    "b1": {
        "args": {"x": {"kind": "scalar", "value": 1.5}, "y": {"kind": "scalar", "value": 2.5}},
        "sizes": [{}],
    },
    "i4": {
        "args": {"a": ("n",)},
        "sizes": [{"n": 0}, {"n": 50}],
    },
    "f8": {
        "args": {"a": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 50}],
    },
}
