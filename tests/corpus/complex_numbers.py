"""Complex numbers in kernels, as Numba computes them.

Exercises: `complex(re, im)`, `complex(x)`, imaginary literals; `+ - * /` mixing real and
complex operands (float32 with complex64 stays complex64, float64 gives complex128); unary
minus, `==`/`!=`; `.real`, `.imag`, `.conjugate()`, `abs(z)`; `np.exp`, `np.sqrt`, `np.abs`,
`np.real`, `np.imag`, `np.conj` (of scalars and of complex arrays); complex scalars returned to Python; complex arguments
(Python complex, np.complex128) and complex64/complex128 arrays read, written and allocated
with `np.empty(n, dtype=np.complex128)`; a sum of complex values in a loop and in prange;
`.real`/`.imag` (and `np.real`/`np.imag`) of complex arrays, 1-D and 2-D, in expressions and
reductions and bound to names that see later writes to the array (Numba's views, float32
for complex64), and of real arrays (`.real` the array itself, written through; `.imag` zeros).
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


@njit
def parts(z):
    return z.real.sum(), np.abs(z.imag).max(), z.real * 2.0 - np.imag(z)


@njit
def part_views(z, out):
    re = z.real
    im = np.imag(z)
    for i in range(z.shape[0]):
        out[i] = z[i].real + re[i] * im[i]
    z[0] = 1.5 + 2.5j
    return re[0] + im[0]


@njit
def parts_2d(z):
    return z.real.sum(axis=0), np.abs(z.imag), (z.real ** 2 + z.imag ** 2).max()


@njit
def real_parts(x, out):
    out.real[:] = x.real * 2
    return x.imag.sum() + np.real(x).max(), x.imag


@njit
def conjugates(z, w):
    return np.conj(z) * w, np.conjugate(z[::-1] / 2), np.conj(w).sum(), np.sqrt(z) + np.exp(w)


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
    "parts": {
        "args": {"z": ("n",)},
        "dtypes": ["complex128", "complex64"],
        "sizes": [{"n": 1}, {"n": 60}],
        "layouts": ["C", "strided"],
    },
    "part_views": {
        "args": {"z": ("n",), "out": {"kind": "array", "shape": ("n",), "dtype": "float64"}},
        "dtypes": ["complex128"],
        "sizes": [{"n": 1}, {"n": 25}],
        "writes": ["z", "out"],
    },
    "parts_2d": {
        "args": {"z": ("n", "m")},
        "dtypes": ["complex128", "complex64"],
        "sizes": [{"n": 1, "m": 3}, {"n": 7, "m": 5}],
        "layouts": ["C", "F", "strided"],
    },
    "real_parts": {
        "args": {"x": ("n",), "out": ("n",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 1}, {"n": 40}],
        "writes": ["out"],
    },
    "conjugates": {
        "args": {"z": ("n", "m"), "w": ("n", "m")},
        "dtypes": ["complex128", "complex64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 9, "m": 4}],
        "layouts": ["C", "F", "strided"],
        "rtol": {"complex128": 1e-12, "complex64": 1e-5},
    },
    "parallel_total": {
        "args": {"z": ("n",)},
        "dtypes": ["complex128"],
        "sizes": [{"n": 1}, {"n": 1000}],
    },
}
