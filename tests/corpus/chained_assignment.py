"""Chained assignments ``a = b = v``, as real kernels write them.

Exercises: the min/max idiom ``lo = hi = x[0]``, two reductions started by
``s = t = 0.0`` in a prange loop, one value stored into a float and an int array
(each store converts it to its own dtype), a target that the kernel later
rebinds to a float (the other target keeps the value's integer type, as in
Numba), one new array under two names (``a = b = np.zeros(n)``: writes through
one are seen through the other), and a tuple target beside a name
(``(rows, cols) = dims = a.shape``).
"""
import numpy as np
from numba import njit, prange


@njit
def value_range(x):
    lo = hi = x[0]
    for i in range(1, x.shape[0]):
        if x[i] < lo:
            lo = x[i]
        if x[i] > hi:
            hi = x[i]
    return lo, hi


@njit(parallel=True)
def sum_and_squares(x):
    s = t = 0.0
    for i in prange(x.shape[0]):
        s += x[i]
        t += x[i] * x[i]
    return s, t


@njit(parallel=True)
def scaled_twice(x, out, counts):
    for i in prange(x.shape[0]):
        out[i] = counts[i] = x[i] * 1.5


@njit
def rebound_target(x):
    total = 0.0
    steps = 0
    for i in range(x.shape[0]):
        a = b = i + 1
        a = a * 0.5 + x[i]
        total += a
        steps += b // 2
    return total, steps


@njit
def tuple_and_name(a):
    (rows, cols) = dims = a.shape
    acc = 0.0
    for i in range(rows):
        for j in range(cols):
            acc += a[i, j] * (i + 1)
    return acc, dims[0] * dims[1]


@njit
def shared_buffer(x):
    a = b = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        b[i] = x[i] * 2.0
    return a


KPC_CASES = {
    "value_range": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 1}, {"n": 7}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "sum_and_squares": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
    },
    "scaled_twice": {
        "args": {
            "x": {"kind": "array", "shape": ("n",), "low": -10.0, "high": 10.0},
            "out": ("n",),
            "counts": {"kind": "array", "shape": ("n",), "dtype": "int64"},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 33}, {"n": 100}],
        "writes": ["out", "counts"],
    },
    "rebound_target": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 9}],
    },
    "shared_buffer": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 9}],
    },
    "tuple_and_name": {
        "args": {"a": ("n", "m")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 5, "m": 4}],
        "layouts": ["C", "F"],
    },
}
