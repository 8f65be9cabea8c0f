"""Reshapes read at flat positions (issue 32's reshape rows): a reshape or ravel of a C-contiguous
array reads it at the flat C-order position (no division per element), anything else is copied
into a contiguous array first; a name rebound to a transpose of itself is read through; a local
reshape of a parameter is a view (a later write to the parameter shows through it, as in Numba);
`-1` of an empty array is 0; `np.kron` is written block by block; `np.abs` read twice in one
statement is computed in that statement's loop; a sum or mean along a leading axis adds the rows
in memory order (each column still sums in row order; Numba has no `mean(axis=...)`).
"""
import numpy as np
from numba import njit


@njit
def split_and_merge(x, b):
    c, h, w = x.shape
    y = x.reshape(c, h // b, b, w // b, b)
    y = y.transpose((2, 4, 0, 1, 3))
    return y.copy().reshape(c * b * b, h // b, w // b)


@njit
def row_norms_flat(t):
    x = t.copy()
    x = x.reshape(x.shape[0], -1)
    norms = np.sqrt((x * x).sum(axis=1))
    return x / np.maximum(norms, 1e-12).reshape(-1, 1)


@njit
def ravel_of_slice(a, k):
    return a[:, k:].ravel() * 2.0 + a.ravel()[0]


@njit
def view_sees_later_write(x):
    y = x.reshape(-1)
    x[0, 0] = 5.0
    return y.sum() + y[0]


@njit
def empty_minus_one(x):
    return x.reshape(x.shape[0], -1).sum() + x.reshape(x.shape[0], -1).shape[1]


@njit
def kron_blocks(a, b):
    k = np.kron(a, b)
    return k * 2.0 - 1.0


@njit
def huber_once(r, delta):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta))


@njit
def standardize(x):
    mu = x.sum(axis=0) / x.shape[0]
    xc = x - mu
    sd = np.sqrt((xc ** 2).sum(axis=0) / x.shape[0])
    return xc / np.where(sd == 0.0, 1.0, sd), x.sum(axis=1)


@njit
def plane_sums(t):
    return t.sum(axis=0) + t.sum(axis=1).sum()


KPC_CASES = {
    "split_and_merge": {
        "args": {"x": ("c", "h*b", "w*b"), "b": {"kind": "scalar", "value": "b"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"c": 1, "h": 1, "w": 1, "b": 1}, {"c": 3, "h": 2, "w": 3, "b": 2}, {"c": 2, "h": 3, "w": 2, "b": 3}],
    },
    "row_norms_flat": {
        "args": {"t": ("n", "c", "h", "w")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "c": 1, "h": 1, "w": 1}, {"n": 3, "c": 2, "h": 4, "w": 5}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-12, "float32": 1e-5},
    },
    "ravel_of_slice": {
        "args": {"a": ("n", "m"), "k": {"kind": "scalar", "value": 1}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "m": 2}, {"n": 4, "m": 5}],
        "layouts": ["C", "strided"],
    },
    "view_sees_later_write": {
        "args": {"x": ("n", "m")},
        "writes": ["x"],
        "sizes": [{"n": 1, "m": 1}, {"n": 3, "m": 4}],
    },
    "empty_minus_one": {
        "args": {"x": ("n", "m", "k")},
        "sizes": [{"n": 2, "m": 0, "k": 3}, {"n": 2, "m": 3, "k": 4}],
    },
    "kron_blocks": {
        "args": {"a": ("p", "q"), "b": ("r", "s")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"p": 1, "q": 1, "r": 1, "s": 1}, {"p": 2, "q": 3, "r": 4, "s": 2}],
        "layouts": ["C", "F"],
    },
    "huber_once": {
        "args": {"r": {"kind": "array", "shape": ("n",), "low": -3.0, "high": 3.0},
                 "delta": {"kind": "scalar", "value": 1.0}},
        "sizes": [{"n": 1}, {"n": 17}],
    },
    "standardize": {
        "args": {"x": ("n", "d")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "d": 1}, {"n": 10, "d": 3}, {"n": 33, "d": 5}],
        "layouts": ["C", "F", "strided"],
        "rtol": {"float64": 1e-12, "float32": 1e-5},
    },
    "plane_sums": {
        "args": {"t": ("a", "b", "c")},
        "dtypes": ["int64", "float64"],
        "sizes": [{"a": 1, "b": 1, "c": 1}, {"a": 3, "b": 4, "c": 5}],
        "layouts": ["C", "F"],
    },
}
