"""Helpers calling helpers, called from parallel kernels.

Exercises: a three-level call chain of scalar device functions
(`smoothstep` -> `clamp`; `soft_threshold` -> `sign`), helpers taking
array rows (`dot3(a[i], b[i])`, `norm3` -> `dot3`), a helper returning a
tuple that the caller unpacks, and a helper used from two kernels.
"""
import math

from numba import njit, prange


@njit
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@njit
def smoothstep(edge0, edge1, x):
    t = clamp((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


@njit
def sign(x):
    if x > 0:
        return 1.0
    if x < 0:
        return -1.0
    return 0.0


@njit
def soft_threshold(x, lam):
    return sign(x) * max(abs(x) - lam, 0.0)


@njit
def dot3(u, v):
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


@njit
def norm3(u):
    return math.sqrt(dot3(u, u))


@njit
def cross3(u, v):
    return (
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    )


@njit(parallel=True)
def shape_filter(x, out, lam):
    for i in prange(x.shape[0]):
        out[i] = smoothstep(-0.5, 0.5, x[i]) + soft_threshold(x[i], lam)


@njit(parallel=True)
def angles_and_areas(a, b, cosines, areas):
    for i in prange(a.shape[0]):
        na = norm3(a[i])
        nb = norm3(b[i])
        cosines[i] = dot3(a[i], b[i]) / (na * nb)
        cx, cy, cz = cross3(a[i], b[i])
        areas[i] = 0.5 * math.sqrt(cx * cx + cy * cy + cz * cz)


KPC_CASES = {
    "shape_filter": {
        "args": {"x": ("n",), "out": ("n",), "lam": {"kind": "scalar", "value": 0.3}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "angles_and_areas": {
        "args": {
            "a": {"kind": "array", "shape": ("n", 3), "low": 0.1, "high": 1.0},
            "b": {"kind": "array", "shape": ("n", 3), "low": 0.1, "high": 1.0},
            "cosines": ("n",),
            "areas": ("n",),
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 33}],
        "writes": ["cosines", "areas"],
        "layouts": ["C", "F", "strided"],
    },
}
