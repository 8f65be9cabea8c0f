"""A helper called with arguments of different types from different call sites: one copy per types.

Exercises: `norm2(v)` called with a vector, a matrix and a row; a histogram helper that
iterates `img.ravel()` called with a 2-D image and with a 1-D array; a device function
called from a `prange` loop with a row (`x[i]`) at one site and a scalar at another;
`clip01` called with a float64 and an int64 scalar. Numba compiles a helper once per argument
types; kpc used to keep such kernels as Numba ("kernel 'norm2' is called with v: f64[:, :]
here but v: f64[:] at ...").
"""
import numpy as np
from numba import njit, prange


@njit
def norm2(v):
    return (v ** 2).sum()


@njit
def norms(a, m):
    return norm2(a) + 2 * norm2(m) + 3 * norm2(m[0])


@njit
def _histogram8(img):
    hist = np.zeros(8, dtype=np.int64)
    for v in img.ravel():
        hist[int(v) % 8] += 1
    return hist


@njit
def both_histograms(img, flat):
    return _histogram8(img) * 10 + _histogram8(flat)


@njit
def _scaled_sum(v, f):
    return np.sum(v * f)


@njit(parallel=True)
def row_scores(x):
    out = np.empty(x.shape[0])
    for i in prange(x.shape[0]):
        out[i] = _scaled_sum(x[i], 2.0) + _scaled_sum(x[i, 0], 0.5)
    return out


@njit
def clip01(v):
    return min(max(v, 0), 1)


@njit
def clipped(x, k):
    s = 0.0
    for i in range(x.shape[0]):
        s += clip01(x[i]) + clip01(k - i)
    return s


KPC_CASES = {
    "norms": {
        "args": {"a": ("n",), "m": ("n", "k")},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 1, "k": 1}, {"n": 6, "k": 3}, {"n": 40, "k": 9}],
        "layouts": ["C", "F", "strided"],
    },
    "both_histograms": {
        "args": {"img": {"kind": "index", "shape": ("h", "w"), "high": 50},
                 "flat": {"kind": "index", "shape": ("n",), "high": 50}},
        "sizes": [{"h": 1, "w": 1, "n": 0}, {"h": 9, "w": 7, "n": 30}],
    },
    "row_scores": {
        "args": {"x": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 100, "m": 5}],
        "layouts": ["C", "strided"],
    },
    "clipped": {
        "args": {"x": ("n",), "k": {"kind": "scalar", "value": 3}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 9}],
    },
}
