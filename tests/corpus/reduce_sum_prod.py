"""Parallel sum and product reductions over 1-D and 2-D arrays.

Exercises: `+=` and `*=` reductions in a `prange` for float and integer
element types (an integer product starts from the literal `1`), a reduction whose initial value is not the identity, a
2-D reduction with a `prange` over rows and a serial inner loop, and a
weighted sum mixing two input arrays.
"""
from numba import njit, prange


@njit(parallel=True)
def total(x):
    s = 0
    for i in prange(x.shape[0]):
        s += x[i]
    return s


@njit(parallel=True)
def product(x):
    p = 1.0
    for i in prange(x.shape[0]):
        p *= x[i]
    return p


@njit(parallel=True)
def int_product(x):
    p = 1
    for i in prange(x.shape[0]):
        p *= x[i]
    return p


@njit(parallel=True)
def offset_sum(x, start):
    s = start
    for i in prange(x.shape[0]):
        s += 2 * x[i]
    return s


@njit(parallel=True)
def weighted_sum_2d(a, w):
    s = 0.0
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            s += w[j] * a[i, j]
    return s


KPC_CASES = {
    "total": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 33}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "product": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": 0.5, "high": 1.5}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "int_product": {
        "args": {"x": {"kind": "array", "shape": ("n",), "dtype": "int64", "low": 1, "high": 3}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 33}],
    },
    "offset_sum": {
        "args": {"x": ("n",), "start": {"kind": "scalar", "value": 10, "dtype": "case"}},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
    },
    "weighted_sum_2d": {
        "args": {"a": ("n", "m"), "w": ("m",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 1, "m": 1}, {"n": 7, "m": 5}, {"n": 33, "m": 17}],
        "layouts": ["C", "F", "strided"],
    },
}
