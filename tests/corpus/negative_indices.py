"""Negative indices and periodic boundaries.

Exercises: `x[-1]` and `x[-2]` constants, `x[i - 1]` reaching `x[-1]` at
`i == 0` (Python wraparound gives a periodic boundary for free), a 2-D
`a[-1, j]` / `a[i, -1]` access, and negative steps in `range`.
"""
from numba import njit


@njit
def periodic_diffusion(x, out, nu):
    n = x.shape[0]
    for i in range(n):
        right = x[i + 1] if i + 1 < n else x[0]
        out[i] = x[i] + nu * (x[i - 1] - 2.0 * x[i] + right)


@njit
def last_two_ratio(x):
    return x[-1] / x[-2]


@njit
def border_sum(a):
    n, m = a.shape
    s = 0.0
    for j in range(m):
        s += a[0, j] + a[-1, j]
    for i in range(1, n - 1):
        s += a[i, 0] + a[i, -1]
    return s


@njit
def reverse_into(x, out):
    n = x.shape[0]
    for i in range(n - 1, -1, -1):
        out[n - 1 - i] = x[i]


KPC_CASES = {
    "periodic_diffusion": {
        "args": {"x": ("n",), "out": ("n",), "nu": {"kind": "scalar", "value": 0.25}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 2}, {"n": 7}, {"n": 100}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "last_two_ratio": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": 1.0, "high": 2.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 2}, {"n": 33}],
        "layouts": ["C", "strided"],
    },
    "border_sum": {
        "args": {"a": ("n", "m")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 2, "m": 1}, {"n": 3, "m": 3}, {"n": 33, "m": 7}],
        "layouts": ["C", "F", "strided"],
    },
    "reverse_into": {
        "args": {"x": ("n",), "out": ("n",)},
        "dtypes": ["int64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 33}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
}
