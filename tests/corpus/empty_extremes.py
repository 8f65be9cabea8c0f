"""Extremes of arrays whose size is known only at the call: min, max, argmin and argmax of a
whole array (a method, np.min / np.amax / np.argmin) and of a boolean selection, on the host and per row inside a
``prange`` loop, of floats and of integers (the reductions start from the type's extreme value,
so integer extremes at the type's limits are compared too).

An empty array raises Numba's ValueError ("zero-size array to reduction operation minimum which
has no identity", "attempt to get argmin of an empty sequence"): tests/backend/test_empty_extremes.py.
"""
import numpy as np
from numba import njit, prange


@njit
def extremes(x):
    return x.min(), np.amax(x), np.argmin(x), x.argmax()


@njit(parallel=True)
def extremes_parallel(x):
    return np.min(x) * 2 + x.max()


@njit(parallel=True)
def row_ranges(m):
    out = np.empty(m.shape[0], dtype=m.dtype)
    for i in prange(m.shape[0]):
        out[i] = m[i].max() - m[i].min()
    return out


@njit
def selected_extremes(x, y):
    return x[y > 0.5].min(), x[x > 0.2].max()


@njit(parallel=True)
def selected_extremes_parallel(x, y):
    return x[y > 0.5].min() + x[x > 0.2].max()


@njit
def limits(x):
    lo = np.full(x.shape[0], 9223372036854775807)
    hi = np.full(x.shape[0], -9223372036854775807 - 1)
    return lo.min(), hi.max(), lo.argmin(), hi.argmax()


KPC_CASES = {
    "extremes": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64", "int32", "uint8"],
        "sizes": [{"n": 1}, {"n": 300}],
    },
    "extremes_parallel": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1}, {"n": 300}],
    },
    "row_ranges": {
        "args": {"m": ("n", "k")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 5, "k": 1}, {"n": 200, "k": 7}],
        "layouts": ["C", "F"],
    },
    "selected_extremes": {
        "args": {"x": ("n",), "y": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 300}],
    },
    "selected_extremes_parallel": {
        "args": {"x": ("n",), "y": ("n",)},
        "sizes": [{"n": 300}],
    },
    "limits": {
        "args": {"x": ("n",)},
        "sizes": [{"n": 4}],
    },
}
