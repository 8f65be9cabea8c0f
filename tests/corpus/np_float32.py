"""Single-precision kernels that keep every intermediate in float32.

Exercises: `np.float32(...)` constants so that array expressions stay
float32 (a bare Python float literal promotes the expression to float64
in Numba), `x.astype(np.float32)` conversion from float64 input,
`np.empty(n, dtype=np.float32)` allocation, a float32 SAXPY as an
array expression, and a float32 accumulator in a `prange` reduction.
"""
import numpy as np
from numba import njit, prange


@njit
def saxpy(a, x, y):
    y[:] = a * x + y


@njit
def to_single_and_scale(x):
    y = x.astype(np.float32)
    return y * np.float32(0.5) + np.float32(1.0)


@njit(parallel=True)
def sum_squares32(x):
    acc = np.float32(0.0)
    for i in prange(x.shape[0]):
        acc += x[i] * x[i]
    return acc


@njit
def rms_normalize32(x):
    out = np.empty(x.shape[0], dtype=np.float32)
    ms = np.float32(0.0)
    for i in range(x.shape[0]):
        ms += x[i] * x[i]
    ms = ms / np.float32(max(x.shape[0], 1))
    inv = np.float32(1.0) / np.sqrt(ms + np.float32(1e-6))
    for i in range(x.shape[0]):
        out[i] = x[i] * inv
    return out


KPC_CASES = {
    "saxpy": {
        "args": {"a": {"kind": "scalar", "value": 2.0, "dtype": "float32"}, "x": ("n",), "y": ("n",)},
        "dtypes": ["float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "writes": ["y"],
        "layouts": ["C", "strided"],
    },
    "to_single_and_scale": {
        "args": {"x": {"kind": "array", "shape": ("n", "m"), "dtype": "float64"}},
        "dtypes": ["float32"],
        "sizes": [{"n": 0, "m": 2}, {"n": 7, "m": 5}],
        "layouts": ["C", "F", "strided"],
    },
    "sum_squares32": {
        "args": {"x": ("n",)},
        "dtypes": ["float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "rms_normalize32": {
        "args": {"x": ("n",)},
        "dtypes": ["float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 33}],
        "layouts": ["C", "strided"],
    },
}
