"""Module-level NumPy arrays read in kernels, and `cmath` functions of complex scalars.

Exercises: a 3x3 weight matrix built at module level (`np.array([...]) / 16.0`), read in a
`prange` loop and passed to a helper; an integer lookup table (`np.array([...], dtype=np.int32)`)
indexed in a loop; a table derived from another (`2 * TABLE + 1`); `cmath.exp`, `cmath.log`,
`cmath.sqrt`, trigonometric and hyperbolic functions, `cmath.phase`, `cmath.isnan`/`isinf`/
`isfinite` and `cmath.pi` on complex values and on real ones (`cmath.exp(x)` is complex). Numba
freezes a global array into the compiled code as a constant; kpc builds it at the top of each
kernel that reads it. These kernels used to stay Numba ("GAUSS3 is not a numeric constant at
module level", "call into another library: cmath.exp()").
"""
import cmath

import numpy as np
from numba import njit, prange

GAUSS3 = np.array([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]) / 16.0
OFFSETS = np.array([3, -1, 4, -1, 5, -9, 2, 6], dtype=np.int32)
ODD = 2 * OFFSETS + 1


@njit
def _apply3x3(img, kernel, out):
    h, w = img.shape
    for y in prange(1, h - 1):
        for x in range(1, w - 1):
            acc = 0.0
            for dy in range(3):
                for dx in range(3):
                    acc += img[y + dy - 1, x + dx - 1] * kernel[dy, dx]
            out[y, x] = acc


@njit(parallel=True)
def blur(img):
    out = np.zeros_like(img)
    _apply3x3(img, GAUSS3, out)
    return out


@njit(parallel=True)
def weighted_rows(img):
    out = np.empty(img.shape[0])
    for i in prange(img.shape[0]):
        s = 0.0
        for j in range(img.shape[1]):
            s += img[i, j] * GAUSS3[i % 3, j % 3]
        out[i] = s
    return out


@njit
def table_sum(n):
    s = 0
    for i in range(n):
        k = (5 * i + i // 3) % OFFSETS.shape[0]
        s += OFFSETS[k] * ODD[k] - i
    return s


@njit
def dft(x):
    n = x.shape[0]
    out = np.zeros(n, dtype=np.complex128)
    for k in range(n):
        s = 0j
        for t in range(n):
            s += x[t] * cmath.exp(-2j * cmath.pi * k * t / n)
        out[k] = s
    return out


@njit
def complex_mix(x):
    s = 0j
    for i in range(x.shape[0]):
        z = complex(x[i], 0.5)
        s += cmath.log(z) + cmath.sqrt(z) + cmath.sin(z) * cmath.cos(z) + cmath.tanh(z) + cmath.exp(x[i])
        s += cmath.asin(z) + cmath.acos(z) + cmath.atan(z) + cmath.asinh(z) + cmath.acosh(z) + cmath.atanh(z)
        s += cmath.tan(z) + cmath.sinh(z) - cmath.cosh(z)
    return s


@njit
def phases(x):
    s = 0.0
    count = 0
    for i in range(x.shape[0]):
        z = complex(x[i], -0.25)
        s += cmath.phase(z) + cmath.phase(z * x[i])
        if cmath.isfinite(z) and not cmath.isnan(z) and not cmath.isinf(z):
            count += 1
    return s, count


KPC_CASES = {
    "blur": {
        "args": {"img": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "m": 3}, {"n": 9, "m": 14}, {"n": 70, "m": 33}],
        "layouts": ["C", "strided"],
    },
    "weighted_rows": {
        "args": {"img": ("n", "m")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 10, "m": 4}, {"n": 100, "m": 7}],
        "layouts": ["C", "F"],
    },
    "table_sum": {
        "args": {"n": {"kind": "scalar", "value": "n"}},
        "sizes": [{"n": 0}, {"n": 9}, {"n": 300}],
    },
    "dft": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "complex128"],
        "sizes": [{"n": 1}, {"n": 8}, {"n": 33}],
        "layouts": ["C", "strided"],
    },
    "complex_mix": {
        "args": {"x": ("n",)},
        "sizes": [{"n": 0}, {"n": 5}, {"n": 40}],
    },
    "phases": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 5}, {"n": 40}],
    },
}
