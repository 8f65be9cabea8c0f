"""Polynomials and quadrature written with `@numba.jit(nopython=True)`.

Exercises: the older `numba.jit(nopython=True)` spelling, Horner's rule
with a coefficient array read backwards, Simpson's rule with a loop step
of 2 and an odd/even weight, and a kernel calling another `jit` kernel.
"""
import numba
import numpy as np


@numba.jit(nopython=True)
def horner(coeffs, x):
    acc = 0.0
    for k in range(coeffs.shape[0] - 1, -1, -1):
        acc = acc * x + coeffs[k]
    return acc


@numba.jit(nopython=True)
def polyval_many(coeffs, xs, out):
    for i in range(xs.shape[0]):
        out[i] = horner(coeffs, xs[i])


@numba.jit(nopython=True)
def simpson(y, h):
    n = y.shape[0]
    if n < 3 or n % 2 == 0:
        return np.nan
    s = y[0] + y[n - 1]
    for i in range(1, n - 1, 2):
        s += 4.0 * y[i]
    for i in range(2, n - 1, 2):
        s += 2.0 * y[i]
    return s * h / 3.0


KPC_CASES = {
    "polyval_many": {
        "args": {"coeffs": ("k",), "xs": ("n",), "out": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"k": 0, "n": 3}, {"k": 1, "n": 7}, {"k": 6, "n": 33}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "simpson": {
        "args": {"y": ("n",), "h": {"kind": "scalar", "value": 0.1}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 2}, {"n": 3}, {"n": 33}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
}
