"""Integer floor division and modulo with negative operands.

Exercises: Python semantics of `//` and `%` (floor division; the
remainder takes the sign of the divisor) on int64 values of both signs,
which differ from C++ `/` and `%` (truncation); float `%` and `//` with
negative operands (Python semantics, not `fmod`); integer true division
`/` giving float64; mixed int/float promotion; periodic index wrapping
with `%` on a possibly negative index.
"""
import numpy as np
from numba import njit


@njit
def divmod_table(a, b, quot, rem):
    for i in range(a.shape[0]):
        d = b[i] if i % 2 == 0 else -b[i]
        quot[i] = a[i] // d
        rem[i] = a[i] % d


@njit
def float_divmod(x, y, quot, rem):
    for i in range(x.shape[0]):
        quot[i] = x[i] // y
        rem[i] = x[i] % y


@njit
def mean_of_ints(a):
    s = 0
    for i in range(a.shape[0]):
        s += a[i]
    if a.shape[0] == 0:
        return 0.0
    return s / a.shape[0]


@njit
def wrap_shift(x, shift, out):
    n = x.shape[0]
    for i in range(n):
        out[(i + shift) % n] = x[i]


@njit
def digit_sum(values):
    out = np.empty_like(values)
    for i in range(values.shape[0]):
        v = abs(values[i])
        s = 0
        while v > 0:
            s += v % 10
            v //= 10
        out[i] = -s if values[i] < 0 else s
    return out


KPC_CASES = {
    "divmod_table": {
        "args": {
            "a": {"kind": "array", "shape": ("n",), "dtype": "int64", "low": -50, "high": 50},
            "b": {"kind": "array", "shape": ("n",), "dtype": "int64", "low": 1, "high": 9},
            "quot": {"kind": "array", "shape": ("n",), "dtype": "int64"},
            "rem": {"kind": "array", "shape": ("n",), "dtype": "int64"},
        },
        "dtypes": ["int64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 33}, {"n": 100}],
        "writes": ["quot", "rem"],
        "layouts": ["C", "strided"],
    },
    "float_divmod": {
        "args": {
            "x": {"kind": "array", "shape": ("n",), "low": -10.0, "high": 10.0},
            "y": {"kind": "scalar", "value": "d", "dtype": "float64"},
            "quot": ("n",),
            "rem": ("n",),
        },
        "dtypes": ["float64"],
        "sizes": [{"n": 0, "d": 3}, {"n": 33, "d": 3}, {"n": 33, "d": -4}],
        "writes": ["quot", "rem"],
    },
    "mean_of_ints": {
        "args": {"a": ("n",)},
        "dtypes": ["int64"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
    },
    "wrap_shift": {
        "args": {"x": ("n",), "shift": {"kind": "scalar", "value": "s"}, "out": ("n",)},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 1, "s": -3}, {"n": 7, "s": -9}, {"n": 33, "s": 5}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "digit_sum": {
        "args": {"values": {"kind": "array", "shape": ("n",), "low": -100000, "high": 100000}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0}, {"n": 33}],
    },
}
