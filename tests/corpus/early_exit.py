"""Early `break` and `continue` in serial and parallel loops.

Exercises: a search loop that `break`s at the first element above a
threshold and returns -1 when none is found, a sum that `continue`s past
negative entries and every k-th index, a `prange` over rows whose
inner loop breaks at the first negative entry (breaking an inner serial
loop is fine inside a parallel loop), and a `for`/`else` clause.
"""
import numpy as np
from numba import njit, prange


@njit
def first_above(x, threshold):
    found = -1
    for i in range(x.shape[0]):
        if x[i] > threshold:
            found = i
            break
    return found


@njit
def sum_skipping(x, skip_every):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        if skip_every > 0 and i % skip_every == 0:
            continue
        s += x[i]
    return s


@njit(parallel=True)
def leading_nonnegative(a, out):
    for i in prange(a.shape[0]):
        count = 0
        for j in range(a.shape[1]):
            if a[i, j] < 0:
                break
            count += 1
        out[i] = count


@njit
def is_sorted(x):
    for i in range(1, x.shape[0]):
        if x[i - 1] > x[i]:
            break
    else:
        return True
    return False



@njit
def first_row_without(a, value):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] == value:
                break
        else:
            return i
    return -1


@njit
def total_until(x, limit):
    i = 0
    total = 0.0
    while i < x.shape[0]:
        if total > limit:
            break
        total += x[i]
        i += 1
    else:
        total = -total
    return total


KPC_CASES = {
    "first_above": {
        "args": {"x": ("n",), "threshold": {"kind": "scalar", "value": "t", "dtype": "float64"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0, "t": 0}, {"n": 7, "t": 0}, {"n": 100, "t": 2}, {"n": 33, "t": 100}],
        "layouts": ["C", "strided"],
    },
    "sum_skipping": {
        "args": {"x": ("n",), "skip_every": {"kind": "scalar", "value": "k"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0, "k": 3}, {"n": 7, "k": 0}, {"n": 100, "k": 3}],
        "layouts": ["C", "strided"],
    },
    "leading_nonnegative": {
        "args": {
            "a": {"kind": "array", "shape": ("n", "m"), "low": -1, "high": 9},
            "out": {"kind": "array", "shape": ("n",), "dtype": "int64"},
        },
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 7, "m": 0}, {"n": 33, "m": 17}],
        "writes": ["out"],
        "layouts": ["C", "F", "strided"],
    },
    "first_row_without": {
        "args": {
            "a": {"kind": "array", "shape": ("n", "m"), "low": 0, "high": 4},
            "value": {"kind": "scalar", "value": 1, "dtype": "int64"},
        },
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 5, "m": 0}, {"n": 40, "m": 3}, {"n": 40, "m": 12}],
        "layouts": ["C", "strided"],
    },
    "total_until": {
        "args": {"x": ("n",), "limit": {"kind": "scalar", "value": "t", "dtype": "float64"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 0, "t": 1}, {"n": 1, "t": 5}, {"n": 50, "t": 3}, {"n": 50, "t": 1000}],
    },
    "is_sorted": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 2}, {"n": 7}],
    },
}
