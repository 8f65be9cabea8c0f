"""Outer products and pairwise operations by broadcasting.

Exercises: `a[:, None] * b[None, :]` (new axes from `None` indexing,
broadcast to 2-D), a rank-1 update `A += alpha * np.outer(x, y)`,
pairwise differences `x[:, None] - x[None, :]` feeding a reduction along
an axis (`.sum(axis=1)`), and broadcasting a row vector over a matrix.
"""
import numpy as np
from numba import njit


@njit
def outer_broadcast(a, b):
    return a[:, None] * b[None, :]


@njit
def rank1_update(A, x, y, alpha):
    A += alpha * np.outer(x, y)


@njit
def coulomb_like(q, x):
    d = x[:, None] - x[None, :]
    r = np.abs(d) + 1.0
    return (q[:, None] * q[None, :] / r).sum(axis=1)


@njit
def center_columns(X):
    mu = X.sum(axis=0) / X.shape[0]
    return X - mu


KPC_CASES = {
    "outer_broadcast": {
        "args": {"a": ("n",), "b": ("m",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 1, "m": 1}, {"n": 7, "m": 33}],
        "layouts": ["C", "strided"],
    },
    "rank1_update": {
        "args": {"A": ("n", "m"), "x": ("n",), "y": ("m",), "alpha": {"kind": "scalar", "value": 0.5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 7, "m": 5}],
        "writes": ["A"],
        "layouts": ["C", "F", "strided"],
    },
    "coulomb_like": {
        "args": {"q": ("n",), "x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 33}],
        "layouts": ["C", "strided"],
    },
    "center_columns": {
        "args": {"X": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 7, "m": 4}, {"n": 33, "m": 9}],
        "layouts": ["C", "F", "strided"],
    },
}
