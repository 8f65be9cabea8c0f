"""Complex numbers in kernels, as Numba computes them.

Exercises: `complex(re, im)`, `complex(x)`, imaginary literals; `+ - * /` mixing real and
complex operands (float32 with complex64 stays complex64, float64 gives complex128); unary
minus, `==`/`!=`; `.real`, `.imag`, `.conjugate()`, `abs(z)`; `np.exp`, `np.sqrt`, `np.abs`,
`np.real`, `np.imag`, `np.conj`; complex scalars returned to Python; complex arguments
(Python complex, np.complex128) and complex64/complex128 arrays read, written and allocated
with `np.empty(n, dtype=np.complex128)`; a sum of complex values in a loop and in prange.
Division by a complex zero raises ZeroDivisionError as in Numba: tests/backend/test_complex.py.
"""
import numpy as np
from numba import njit, prange


@njit
def rotate(x, y, out):
    for i in range(x.shape[0]):
        z = complex(x[i], y[i])
        w = z * (1 + 2j) - 3j / (z + 2.0) + complex(x[i]) + 2j * y[i]
        w = -w.conjugate() + abs(z)
        out[i] = w.real * 3.0 + w.imag + (1.0 if z == w else 0.0) + (1.0 if z != 0.5j else 0.0)


@njit
def cmath_funcs(x, y, out):
    for i in range(x.shape[0]):
        z = complex(x[i], y[i])
        e = np.exp(z) + np.sqrt(z) * np.conj(z)
        out[i] = np.abs(e) + np.real(e) - np.imag(e)


@njit
def single_precision(x, y):
    z = np.complex64(x) * y + np.float32(0.5) * 1j
    return z, abs(z), z.real


@njit
def divide(a, b):
    return complex(a, 1.0) / complex(b, 0.0)


@njit
def scale(z, c):
    out = np.empty(z.shape[0], dtype=np.complex128)
    for i in range(z.shape[0]):
        out[i] = z[i] * c
        z[i] = z[i] + 1j
    return out


@njit
def total(z):
    s = 0j
    for i in range(z.shape[0]):
        s += z[i] * z[i]
    return s


@njit(parallel=True)
def parallel_total(z):
    s = 0j
    for i in prange(z.shape[0]):
        s += z[i] * 2.0
    return s


KPC_CASES = {
    "rotate": {
        "args": {"x": ("n",), "y": ("n",), "out": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 37}],
        "writes": ["out"],
    },
    "cmath_funcs": {
        "args": {"x": ("n",), "y": ("n",), "out": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 37}],
        "writes": ["out"],
    },
    "single_precision": {
        "args": {"x": {"kind": "scalar", "value": 1.5, "dtype": "float32"},
                 "y": {"kind": "scalar", "value": 2.5, "dtype": "float32"}},
        "sizes": [{}],
        "rtol": 1e-6,
    },
    "divide": {
        "args": {"a": {"kind": "scalar", "value": 1.5}, "b": {"kind": "scalar", "value": -0.25}},
        "sizes": [{}],
    },
    "scale": {
        "args": {"z": ("n",), "c": {"kind": "scalar", "value": 0.5 - 2j}},
        "dtypes": ["complex128", "complex64"],
        "sizes": [{"n": 1}, {"n": 50}],
        "writes": ["z"],
    },
    "total": {
        "args": {"z": ("n",)},
        "dtypes": ["complex128", "complex64"],
        "sizes": [{"n": 1}, {"n": 100}],
    },
    "parallel_total": {
        "args": {"z": ("n",)},
        "dtypes": ["complex128"],
        "sizes": [{"n": 1}, {"n": 1000}],
    },
}
