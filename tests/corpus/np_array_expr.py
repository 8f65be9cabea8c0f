"""NumPy whole-array expressions and ufuncs returning new arrays.

Exercises: element-wise chains mixing arrays and scalars (`alpha * x + y`),
ufuncs (`np.sqrt`, `np.exp`, `np.abs`, `np.maximum`) on array expressions,
an in-place compound assignment `y += alpha * x`, unary minus, and `**`
with a small integer exponent on an array.
"""
import numpy as np
from numba import njit


@njit
def axpy(alpha, x, y):
    return alpha * x + y


@njit
def axpy_inplace(alpha, x, y):
    y += alpha * x


@njit
def magnitude(u, v):
    return np.sqrt(u ** 2 + v ** 2)


@njit
def gaussian(x, mu, sigma):
    return np.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * np.sqrt(2.0 * np.pi))


@njit
def relu_residual(x, y):
    return np.maximum(x - y, 0.0) + np.abs(-y)


KPC_CASES = {
    "axpy": {
        "args": {"alpha": {"kind": "scalar", "value": 2.5}, "x": ("n",), "y": ("n",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "axpy_inplace": {
        "args": {"alpha": {"kind": "scalar", "value": -1.5, "dtype": "case"}, "x": ("n",), "y": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "writes": ["y"],
        "layouts": ["C", "strided"],
    },
    "magnitude": {
        "args": {"u": ("n", "m"), "v": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "m": 3}, {"n": 7, "m": 5}],
        "layouts": ["C", "F", "strided"],
    },
    "gaussian": {
        "args": {
            "x": {"kind": "array", "shape": ("n",), "low": -3.0, "high": 3.0},
            "mu": {"kind": "scalar", "value": 0.25},
            "sigma": {"kind": "scalar", "value": 0.8},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 33}],
    },
    "relu_residual": {
        "args": {"x": ("n", "m"), "y": ("n", "m")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 7, "m": 9}],
        "layouts": ["C", "F", "strided"],
    },
}
