"""Conditional expressions, chained comparisons and boolean logic.

Exercises: `a if c else b` inside arithmetic, chained comparisons
`lo <= x < hi` and `a < b < c`, `and`/`or`/`not` with short-circuit
operands, an `if`/`elif`/`else` piecewise function, boolean results
stored into a bool array, and a branch on an integer parity.
"""
from numba import njit, prange


@njit(parallel=True)
def piecewise(x, out):
    for i in prange(x.shape[0]):
        v = x[i]
        if v < -0.5:
            out[i] = -1.0 - v * v
        elif -0.5 <= v < 0.5:
            out[i] = v
        else:
            out[i] = 1.0 + (v - 0.5) ** 3


@njit
def hinge_loss(margins, weights):
    total = 0.0
    for i in range(margins.shape[0]):
        m = margins[i]
        total += weights[i] * (1.0 - m if m < 1.0 else 0.0)
    return total


@njit(parallel=True)
def classify(x, y, flags):
    for i in prange(x.shape[0]):
        inside = -1.0 < x[i] < 1.0 and -1.0 < y[i] < 1.0
        on_diag = abs(x[i] - y[i]) < 0.1 or abs(x[i] + y[i]) < 0.1
        flags[i] = inside and not on_diag


@njit
def parity_mix(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 2 if a[i] % 2 == 0 else a[i] - 1 if a[i] > 0 else a[i] + 1


KPC_CASES = {
    "piecewise": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": -2.0, "high": 2.0}, "out": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "hinge_loss": {
        "args": {
            "margins": {"kind": "array", "shape": ("n",), "low": -1.0, "high": 3.0},
            "weights": {"kind": "array", "shape": ("n",), "low": 0.0, "high": 1.0},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 33}],
    },
    "classify": {
        "args": {
            "x": {"kind": "array", "shape": ("n",), "low": -1.5, "high": 1.5},
            "y": {"kind": "array", "shape": ("n",), "low": -1.5, "high": 1.5},
            "flags": {"kind": "array", "shape": ("n",), "dtype": "bool"},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "writes": ["flags"],
        "layouts": ["C", "strided"],
    },
    "parity_mix": {
        "args": {"a": ("n",), "out": ("n",)},
        "dtypes": ["int64"],
        "sizes": [{"n": 0}, {"n": 33}],
        "writes": ["out"],
    },
}
