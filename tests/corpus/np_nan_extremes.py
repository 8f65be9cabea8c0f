"""NumPy minima and maxima of data with NaNs, as Numba computes them.

Exercises: `np.max`/`.min()` (any NaN is the result, as NumPy); `np.argmax`/`argmin` (the
first NaN); row maxima of a 2-D array in a serial loop;
`np.maximum`/`np.minimum` (a NaN on either side wins) and `np.fmax`/`np.fmin` (a NaN loses
to a number) on arrays and on scalars. Found by comparing kpc with Numba on
inputs with NaNs: kpc once gave `max(x[0], ...)` semantics, where a NaN counted only in
first position. With `parallel=True`, Numba's parfor reductions skip NaNs (from -inf/+inf),
unlike Python and NumPy, so those kernels are compared with Numba in
tests/backend/test_semantics.py rather than here, where Numba is checked against Python.
"""
import numpy as np
from numba import njit


@njit
def extremes(x):
    return np.max(x), x.min(), np.argmax(x), x.argmin()


@njit
def row_extremes(a, out):
    for i in range(a.shape[0]):
        out[i] = np.max(a[i]) - np.min(a[i] * 2.0)


@njit
def pairwise(x, y, out):
    out[:] = np.maximum(x, y) + 3.0 * np.minimum(x, y) + 5.0 * np.fmax(x, y) + 7.0 * np.fmin(x, y)
    for i in range(x.shape[0]):
        out[i] += 11.0 * np.maximum(x[i], y[i]) + 13.0 * np.fmin(x[i], y[i])


KPC_CASES = {
    "extremes": {
        "args": {"x": {"kind": "array", "shape": ("n",), "values": "nan"}},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 1}, {"n": 2}, {"n": 7}, {"n": 1000}],
        "layouts": ["C", "strided"],
    },
    "row_extremes": {
        "args": {"a": {"kind": "array", "shape": ("n", "m"), "values": "nan"}, "out": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 7, "m": 5}, {"n": 33, "m": 17}],
        "writes": ["out"],
        "layouts": ["C", "F"],
    },
    "pairwise": {
        "args": {"x": {"kind": "array", "shape": ("n",), "values": "nan"},
                 "y": {"kind": "array", "shape": ("n",), "values": "nan"}, "out": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 9}, {"n": 100}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
}
