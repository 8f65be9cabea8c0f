"""Scalar `math` library calls inside element-wise loops.

Exercises: `math.sqrt`, `exp`, `log`, `sin`, `cos`, `atan2`, `fabs`,
`floor`, `hypot`, `tanh`, `pow` and `log1p` on float64/float32 elements
(Numba types `math.sin(float32)` as float32 and calls the single-precision
routine, where plain Python computes in float64), plus `math.pi` and
`math.e` constants.
"""
import math

from numba import njit, prange


@njit(parallel=True)
def to_polar(x, y, r, theta):
    for i in prange(x.shape[0]):
        r[i] = math.sqrt(x[i] * x[i] + y[i] * y[i])
        theta[i] = math.atan2(y[i], x[i])


@njit(parallel=True)
def wave_packet(t, out, k, sigma):
    for i in prange(t.shape[0]):
        envelope = math.exp(-0.5 * (t[i] / sigma) ** 2)
        out[i] = envelope * (math.cos(k * t[i]) + 0.5 * math.sin(2.0 * math.pi * t[i]))


@njit
def log_likelihood(x, mu, sigma):
    s = 0.0
    for i in range(x.shape[0]):
        z = (x[i] - mu) / sigma
        s += -0.5 * z * z - math.log(sigma) - 0.5 * math.log(2.0 * math.pi)
    return s


@njit
def periodic_wrap(x, period, out):
    for i in range(x.shape[0]):
        out[i] = x[i] - period * math.floor(x[i] / period)


@njit
def misc_math(x, out):
    for i in range(x.shape[0]):
        a = math.fabs(x[i])
        out[i, 0] = math.hypot(x[i], 1.0)
        out[i, 1] = math.tanh(x[i])
        out[i, 2] = math.pow(a, 1.5)
        out[i, 3] = math.log1p(a) + math.e


KPC_CASES = {
    "to_polar": {
        "args": {"x": ("n",), "y": ("n",), "r": ("n",), "theta": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "writes": ["r", "theta"],
        "layouts": ["C", "strided"],
    },
    "wave_packet": {
        "args": {
            "t": {"kind": "array", "shape": ("n",), "low": -3.0, "high": 3.0},
            "out": ("n",),
            "k": {"kind": "scalar", "value": 4.0},
            "sigma": {"kind": "scalar", "value": 0.7},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 33}],
        "writes": ["out"],
    },
    "log_likelihood": {
        "args": {
            "x": ("n",),
            "mu": {"kind": "scalar", "value": 0.1},
            "sigma": {"kind": "scalar", "value": 1.3},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "periodic_wrap": {
        "args": {
            "x": {"kind": "array", "shape": ("n",), "low": -10.0, "high": 10.0},
            "period": {"kind": "scalar", "value": 2.5},
            "out": ("n",),
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 33}],
        "writes": ["out"],
    },
    "misc_math": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": -3.0, "high": 3.0}, "out": ("n", 4)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 33}],
        "writes": ["out"],
        "layouts": ["C", "F", "strided"],
    },
}
