"""Kernels returning tuples of scalars and arrays.

Exercises: a `(float, int)` tuple, a 3-tuple of floats from a parallel
loop, a tuple mixing a new array and a scalar, and unpacking a tuple
returned by a helper inside a loop.
"""
import numpy as np
from numba import njit, prange


@njit
def polar(x, y):
    r = np.sqrt(x * x + y * y)
    theta = np.arctan2(y, x)
    return r, theta


@njit
def centroid_and_count(points, radius):
    cx = 0.0
    cy = 0.0
    count = 0
    for i in range(points.shape[0]):
        r, _ = polar(points[i, 0], points[i, 1])
        if r < radius:
            cx += points[i, 0]
            cy += points[i, 1]
            count += 1
    if count > 0:
        cx /= count
        cy /= count
    return cx, count, cy


@njit(parallel=True)
def moments(x):
    m1 = 0.0
    m2 = 0.0
    m3 = 0.0
    for i in prange(x.shape[0]):
        v = x[i]
        m1 += v
        m2 += v * v
        m3 += v * v * v
    return m1, m2, m3


@njit
def normalized_copy(x):
    out = np.empty(x.shape[0])
    s = 0.0
    for i in range(x.shape[0]):
        s += abs(x[i])
    for i in range(x.shape[0]):
        out[i] = x[i] / s if s > 0 else 0.0
    return out, s


KPC_CASES = {
    "centroid_and_count": {
        "args": {"points": ("n", 2), "radius": {"kind": "scalar", "value": 0.8}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 33}, {"n": 100}],
        "layouts": ["C", "F", "strided"],
    },
    "moments": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
    },
    "normalized_copy": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 33}],
        "layouts": ["C", "strided"],
    },
}
