"""Module-level constants computed from expressions, loops over tuples of constants, rounding.

Exercises: constants Numba freezes that are not plain literals (tuple unpacking
`WR, WG, WB = ...`, `np.sqrt(2.0 * np.pi)`, `1.0 / 3.0`, `2 ** 10`,
`np.finfo(np.float64).eps`, `2 * math.pi`, `int(...)`, constants built from
other constants, a tuple constant); `for c in (0, 1):` (red-black
Gauss-Seidel), `for w in (0.25, 0.5, 0.25):` and a tuple loop with
`continue`; `np.round(x)`, `np.round(x, 2)`, `np.round(k, -1)` of integers,
`np.rint`, `round(x)` on exact halves (half to even: `np.round(2.5) == 2.0`,
`round(2.5) == 2`) and `np.round` of arrays (the minimum-image convention of
molecular dynamics).
"""
import math

import numpy as np
from numba import njit, prange

WR, WG, WB = 0.299, 0.587, 0.114
SQRT_2PI = np.sqrt(2.0 * np.pi)
INV_SQRT_2PI = 1.0 / SQRT_2PI
INV3 = 1.0 / 3.0
N = 2 ** 10
HALF_N = N // 2
EPS = np.finfo(np.float64).eps
TWO_PI = 2 * math.pi
BUCKETS = int(N * 0.75) + max(1, 2) + abs(-3)
SMOOTHING = (0.25, 0.5, 0.25)


@njit(parallel=True)
def grayscale(img, out):
    for i in prange(img.shape[0]):
        for j in range(img.shape[1]):
            out[i, j] = WR * img[i, j, 0] + WG * img[i, j, 1] + WB * img[i, j, 2]


@njit(parallel=True)
def gaussian_kde(x, samples, h):
    out = np.empty(x.shape[0])
    bandwidth = max(h, EPS)
    for i in prange(x.shape[0]):
        s = 0.0
        for j in range(samples.shape[0]):
            u = (x[i] - samples[j]) / bandwidth
            s += np.exp(-0.5 * u * u) / SQRT_2PI
        out[i] = s * INV_SQRT_2PI * SQRT_2PI / (samples.shape[0] * bandwidth)
    return out


@njit
def phase_buckets(x, out):
    for i in range(x.shape[0]):
        phase = x[i] - TWO_PI * math.floor(x[i] / TWO_PI)
        out[i] = int(phase / TWO_PI * BUCKETS) % HALF_N + INV3 * (N // 512)


@njit(parallel=True)
def rb_sweep(u, f, h2, sweeps):
    n, m = u.shape
    for _ in range(sweeps):
        for color in (0, 1):
            for i in prange(1, n - 1):
                start = 1 + (i + color) % 2
                for j in range(start, m - 1, 2):
                    u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h2 * f[i, j])


@njit
def smooth3(x, out):
    for i in range(1, x.shape[0] - 1):
        s = 0.0
        k = -1
        for w in (0.25, 0.5, 0.25):
            s += w * x[i + k]
            k += 1
        t = 0.0
        k = -1
        for w in SMOOTHING:
            t += w * x[i + k]
            k += 1
        out[i] = s - t + s


@njit
def skip_color(x):
    total = 0.0
    last = -1
    for c in (0, 1, 2):
        if c == 1:
            continue
        for i in range(c, x.shape[0], 3):
            total += x[i]
        last = c
    return total, last


@njit
def round_halves(k, out):
    for i in range(k.shape[0]):
        x = k[i] / 2.0
        out[i, 0] = np.round(x)
        out[i, 1] = np.rint(x)
        out[i, 2] = round(x)
        out[i, 3] = np.round(k[i] / 8.0, 2)
        out[i, 4] = np.round(k[i] * 5, -1)
        out[i, 5] = np.round(k[i], 1)


@njit
def minimum_image(d, box):
    return d - box * np.round(d / box)


@njit(parallel=True)
def wrapped_distances(pos, box, out):
    n = pos.shape[0]
    for i in prange(n):
        s = 0.0
        for j in range(n):
            dx = minimum_image(pos[i, 0] - pos[j, 0], box)
            dy = minimum_image(pos[i, 1] - pos[j, 1], box)
            s += math.sqrt(dx * dx + dy * dy)
        out[i] = s


@njit
def wrap_positions(pos, box):
    return pos - box * np.round(pos / box), np.round(pos, 1), np.rint(pos * 4.0)


KPC_CASES = {
    "grayscale": {
        "args": {"img": {"kind": "array", "shape": ("h", "w", 3), "low": 0.0, "high": 1.0}, "out": ("h", "w")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"h": 1, "w": 1}, {"h": 9, "w": 13}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "gaussian_kde": {
        "args": {"x": ("n",), "samples": ("m",), "h": {"kind": "scalar", "value": 0.3}},
        "dtypes": ["float64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 17, "m": 40}],
    },
    "phase_buckets": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": -20.0, "high": 20.0}, "out": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 0}, {"n": 50}],
        "writes": ["out"],
    },
    "rb_sweep": {
        "args": {"u": ("n", "m"), "f": ("n", "m"), "h2": {"kind": "scalar", "value": 0.01},
                 "sweeps": {"kind": "scalar", "value": 3}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "m": 3}, {"n": 12, "m": 17}],
        "writes": ["u"],
    },
    "smooth3": {
        "args": {"x": ("n",), "out": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 2}, {"n": 30}],
        "writes": ["out"],
    },
    "skip_color": {
        "args": {"x": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 0}, {"n": 20}],
    },
    "round_halves": {
        "args": {"k": {"kind": "array", "shape": ("n",), "dtype": "int64", "low": -12, "high": 13},
                 "out": ("n", 6)},
        "dtypes": ["float64"],
        "sizes": [{"n": 0}, {"n": 60}],
        "writes": ["out"],
    },
    "wrapped_distances": {
        "args": {"pos": {"kind": "array", "shape": ("n", 2), "low": -6.0, "high": 6.0},
                 "box": {"kind": "scalar", "value": 4.0}, "out": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 25}],
        "writes": ["out"],
    },
    "wrap_positions": {
        "args": {"pos": {"kind": "array", "shape": ("n", 3), "low": -6.0, "high": 6.0},
                 "box": {"kind": "scalar", "value": 4.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 20}],
        "layouts": ["C", "strided"],
    },
}
