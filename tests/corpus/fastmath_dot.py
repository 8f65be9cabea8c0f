"""Dot products and norms compiled with `fastmath=True`.

Exercises: `@nb.njit(fastmath=True)` (LLVM may reassociate and
vectorise the reduction, so results differ from a serial sum in the last
bits: the case tolerance says how much), `@nb.njit(parallel=True,
fastmath=True)` on a 2-D row-norm kernel, and `np.sqrt` of a scalar.
"""
import numba as nb
import numpy as np


@nb.njit(fastmath=True)
def dot(x, y):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] * y[i]
    return acc


@nb.njit(parallel=True, fastmath=True)
def row_norms(a, out):
    for i in nb.prange(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j] * a[i, j]
        out[i] = np.sqrt(s)


KPC_CASES = {
    "dot": {
        "args": {"x": ("n",), "y": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 100}],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
    },
    "row_norms": {
        "args": {"a": ("n", "m"), "out": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "m": 2}, {"n": 7, "m": 33}, {"n": 33, "m": 5}],
        "writes": ["out"],
        "layouts": ["C", "F", "strided"],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
    },
}
