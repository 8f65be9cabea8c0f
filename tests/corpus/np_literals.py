"""Arrays built from numbers inside kernels, ``.flat`` and ``np.ndindex``.

Exercises: ``np.array`` of a list of floats (stencil weights), of a module-level tuple
constant, of nested lists of locals (a rotation matrix used in a product) and of a list of
integer tuples (neighbour offsets), ``for v in a.flat`` and ``a.flat[k]`` (C order, whatever the
layout), ``for i, j in np.ndindex(a.shape)`` and ``for idx in np.ndindex(n, m)`` with ``idx[k]``.
"""
import numpy as np
from numba import njit

SMOOTHING = (0.25, 0.5, 0.25)


@njit
def weights3(x):
    w = np.array([0.25, 0.5, 0.25])
    s = 0.0
    for i in range(1, x.shape[0] - 1):
        s += w[0] * x[i - 1] + w[1] * x[i] + w[2] * x[i + 1]
    return s


@njit
def smooth_const(x, out):
    w = np.array(SMOOTHING)
    for i in range(1, x.shape[0] - 1):
        out[i] = w[0] * x[i - 1] + w[1] * x[i] + w[2] * x[i + 1]


@njit
def rotate(points, theta):
    c, s = np.cos(theta), np.sin(theta)
    r = np.array([[c, -s], [s, c]])
    return points @ r.T


@njit
def neighbour_sum(a):
    steps = np.array([(0, 1), (1, 0), (0, -1), (-1, 0)])
    out = np.zeros_like(a)
    for i in range(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            for k in range(steps.shape[0]):
                out[i, j] += a[i + steps[k, 0], j + steps[k, 1]]
    return out


@njit
def flat_weighted(a):
    s = 0.0
    k = 0
    for v in a.flat:
        s += v * (k % 7)
        k += 1
    return s + a.flat[a.shape[0] * a.shape[1] - 1]


@njit
def index_weighted(a):
    s = 0.0
    for i, j in np.ndindex(a.shape):
        s += a[i, j] * (i + 2 * j)
    return s


@njit
def index_code(n, m):
    c = 0
    for idx in np.ndindex(n, m):
        c += idx[0] * 100 + idx[1]
    return c


KPC_CASES = {
    "weights3": {"args": {"x": ("n",)}, "dtypes": ["float64", "float32"], "sizes": [{"n": 3}, {"n": 50}],
                 "layouts": ["C", "strided"]},
    "smooth_const": {"args": {"x": ("n",), "out": ("n",)}, "sizes": [{"n": 3}, {"n": 40}], "writes": ["out"]},
    "rotate": {"args": {"points": ("n", 2), "theta": {"kind": "scalar", "value": 0.3}},
               "sizes": [{"n": 1}, {"n": 25}]},
    "neighbour_sum": {"args": {"a": ("n", "m")}, "dtypes": ["float64", "int64"],
                      "sizes": [{"n": 3, "m": 3}, {"n": 12, "m": 9}]},
    "flat_weighted": {"args": {"a": ("n", "m")}, "sizes": [{"n": 1, "m": 1}, {"n": 6, "m": 5}],
                      "layouts": ["C", "F", "strided"]},
    "index_weighted": {"args": {"a": ("n", "m")}, "sizes": [{"n": 4, "m": 3}, {"n": 20, "m": 17}],
                       "layouts": ["C", "F"]},
    "index_code": {"args": {"n": {"kind": "scalar", "value": "n"}, "m": {"kind": "scalar", "value": "m"}},
                   "sizes": [{"n": 0, "m": 3}, {"n": 4, "m": 5}]},
}
