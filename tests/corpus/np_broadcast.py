"""NumPy broadcasting by run-time extents (issue 15).

Exercises: `x - m` of two 2-D and two 3-D arrays where either side has extent 1 on an
axis at run time (the signature says nothing about it), a 1-D weight against the rows
of a 2-D array, `np.where` of three differently broadcast operands, an in-place update
`a += b` with a stretched `b`, a store `out[:] = ...` into a larger array, and NPBench's
4-D softmax (`np.exp(x - tmp_max)` with `tmp_max` of shape (N, H, W, 1), then a
reshaped axis sum), which returned wrong sums, NaN and crashed before.
"""
import numpy as np
from numba import njit


@njit
def bcast_sub(x, m):
    return x - m


@njit
def bcast_sub3(x, m):
    return x - m


@njit
def scale_rows(x, w, out):
    out[:] = x * w + 1.0


@njit
def pick(c, x, y):
    return np.where(c > 0.0, x, y)


@njit
def add_inplace(a, b):
    a += 2.0 * b


@njit
def softmax4d(x):
    new_shape = (x.shape[0], x.shape[1], x.shape[2], 1)
    tmp_max = np.empty(new_shape, dtype=x.dtype)
    for i in range(x.shape[3]):
        tmp_max[:, :, :, 0] = np.max(x[:, :, :, i])
    tmp_out = np.exp(x - tmp_max)
    tmp_sum = np.reshape(np.sum(tmp_out, axis=-1), new_shape)
    return tmp_out / tmp_sum


KPC_CASES = {
    "bcast_sub": {
        "args": {"x": ("n", "m"), "m": ("p", "q")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "m": 5, "p": 3, "q": 1}, {"n": 3, "m": 5, "p": 1, "q": 5},
                  {"n": 3, "m": 5, "p": 1, "q": 1}, {"n": 1, "m": 5, "p": 4, "q": 1},
                  {"n": 3, "m": 1, "p": 1, "q": 6}, {"n": 0, "m": 5, "p": 1, "q": 5},
                  {"n": 7, "m": 9, "p": 7, "q": 9}],
        "layouts": ["C", "F", "strided"],
    },
    "bcast_sub3": {
        "args": {"x": ("a", "b", "c"), "m": ("d", "e", "f")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"a": 2, "b": 3, "c": 5, "d": 2, "e": 3, "f": 1},
                  {"a": 2, "b": 3, "c": 5, "d": 1, "e": 1, "f": 5},
                  {"a": 2, "b": 1, "c": 5, "d": 1, "e": 4, "f": 1},
                  {"a": 4, "b": 6, "c": 8, "d": 4, "e": 6, "f": 8}],
        "layouts": ["C", "F", "strided"],
    },
    "scale_rows": {
        "args": {"x": ("n", "m"), "w": ("p",), "out": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 4, "m": 6, "p": 6}, {"n": 4, "m": 6, "p": 1}, {"n": 0, "m": 3, "p": 1},
                  {"n": 33, "m": 17, "p": 17}],
        "writes": ["out"],
        "layouts": ["C", "F", "strided"],
    },
    "pick": {
        "args": {"c": ("n", "m"), "x": ("n", "p"), "y": ("q", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 4, "m": 5, "p": 1, "q": 1}, {"n": 4, "m": 5, "p": 5, "q": 4},
                  {"n": 4, "m": 5, "p": 1, "q": 4}],
        "layouts": ["C", "F", "strided"],
    },
    "add_inplace": {
        "args": {"a": ("n", "m"), "b": ("p", "q")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 4, "m": 5, "p": 1, "q": 5}, {"n": 4, "m": 5, "p": 4, "q": 1},
                  {"n": 4, "m": 5, "p": 1, "q": 1}, {"n": 4, "m": 5, "p": 4, "q": 5}],
        "writes": ["a"],
        "layouts": ["C", "F", "strided"],
    },
    "softmax4d": {
        "args": {"x": {"kind": "array", "shape": ("n", "h", "w", "c"), "low": -3.0, "high": 3.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 4, "h": 4, "w": 4, "c": 8}, {"n": 2, "h": 3, "w": 1, "c": 5},
                  {"n": 1, "h": 1, "w": 1, "c": 1}],
        "rtol": {"float32": 1e-5},
    },
}
