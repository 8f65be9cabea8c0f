"""Row-wise softmax and log-sum-exp with NumPy row operations.

Exercises: `np.max(x[i])` on a row view, `np.exp` of a row minus a
scalar, `.sum()` of a temporary, writing a whole row `out[i] = e / s`,
all inside a `prange` over rows (one row per iteration), plus a
numerically stable log-sum-exp returning a new 1-D array; per-head softmax weights
multiplied into a column block (`out[:, cols] = e / e.sum() @ v`: the product, not `e`,
has the block's shape).
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def softmax_rows(x, out):
    for i in prange(x.shape[0]):
        m = np.max(x[i])
        e = np.exp(x[i] - m)
        out[i] = e / e.sum()


@njit(parallel=True)
def logsumexp_rows(x):
    n = x.shape[0]
    out = np.empty(n, dtype=x.dtype)
    for i in prange(n):
        m = x[i].max()
        out[i] = m + np.log(np.sum(np.exp(x[i] - m)))
    return out


@njit(parallel=True)
def softmax_heads(s, v, out):
    d = v.shape[1] // s.shape[0]
    for h in prange(s.shape[0]):
        e = np.exp(s[h] - s[h, 0, 0])
        out[:, h * d:(h + 1) * d] = e / e.sum() @ v[:, h * d:(h + 1) * d]


KPC_CASES = {
    "softmax_rows": {
        "args": {"x": {"kind": "array", "shape": ("n", "m"), "low": -5.0, "high": 5.0}, "out": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "m": 3}, {"n": 1, "m": 1}, {"n": 7, "m": 10}, {"n": 33, "m": 17}],
        "writes": ["out"],
        "layouts": ["C", "F", "strided"],
    },
    "logsumexp_rows": {
        "args": {"x": {"kind": "array", "shape": ("n", "m"), "low": -5.0, "high": 5.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "m": 3}, {"n": 7, "m": 10}],
        "layouts": ["C", "F", "strided"],
    },
    "softmax_heads": {
        "args": {"s": {"kind": "array", "shape": ("h", "n", "n"), "low": -2.0, "high": 2.0},
                 "v": ("n", "hd"), "out": ("n", "hd")},
        "sizes": [{"h": 1, "n": 1, "hd": 1}, {"h": 2, "n": 6, "hd": 4}, {"h": 3, "n": 5, "hd": 9}],
        "writes": ["out"],
    },
}
