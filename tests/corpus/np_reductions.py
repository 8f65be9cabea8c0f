"""NumPy reductions over whole arrays and along an axis.

Exercises: `np.sum`, `np.mean`, `np.std`, `np.var`, `np.min`, `np.max`,
`np.argmax` and the `.sum()` / `.max()` methods on 1-D and 2-D arrays,
`np.sum(a, axis=0)` and `a.sum(axis=1)` returning new arrays, and
`np.prod` of a small array.
"""
import numpy as np
from numba import njit


@njit
def describe(x):
    return np.sum(x), np.mean(x), np.std(x), np.min(x), np.max(x), np.argmax(x)


@njit
def column_and_row_sums(a):
    return np.sum(a, axis=0), a.sum(axis=1)


@njit
def normalized_rows(a):
    return a / a.sum(axis=1).reshape((-1, 1))


@njit
def spread(x):
    return x.max() - x.min(), np.var(x), np.prod(x)


KPC_CASES = {
    "describe": {
        "args": {"x": ("n", "m")},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 7, "m": 5}, {"n": 33, "m": 10}],
        "layouts": ["C", "F", "strided"],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
    },
    "column_and_row_sums": {
        "args": {"a": ("n", "m")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 7, "m": 5}, {"n": 33, "m": 10}],
        "layouts": ["C", "F", "strided"],
    },
    "normalized_rows": {
        "args": {"a": {"kind": "array", "shape": ("n", "m"), "low": 0.5, "high": 1.5}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "m": 2}, {"n": 7, "m": 5}],
        "layouts": ["C", "F", "strided"],
    },
    "spread": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": 0.5, "high": 1.5}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 33}],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
    },
}
