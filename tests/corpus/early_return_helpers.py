"""Helpers that return an array from more than one place, called from other kernels.

Exercises: a convex hull that returns `points.copy()` early for fewer than three points and
its hull otherwise, fed to an area kernel (`polygon_area(convex_hull(points))`, as geometry code
chains them); a helper with an early return in each branch of an `if`/`else` and one that
raises on a bad argument before returning. kpc inlines a helper that returns an array into
its caller (a Kokkos kernel cannot return a view to another one); the returns become
assignments of one result and the statements after an `if` that returns move into its other
branch.
"""
import numpy as np
from numba import njit


@njit
def cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


@njit
def convex_hull(points):
    n = points.shape[0]
    if n < 3:
        return points.copy()
    order = np.argsort(points[:, 0], kind="mergesort")
    pts = points[order]
    hull = np.empty((2 * n, 2))
    k = 0
    for i in range(n):
        while k >= 2 and cross(hull[k - 2], hull[k - 1], pts[i]) <= 0:
            k -= 1
        hull[k] = pts[i]
        k += 1
    lower = k + 1
    for i in range(n - 2, -1, -1):
        while k >= lower and cross(hull[k - 2], hull[k - 1], pts[i]) <= 0:
            k -= 1
        hull[k] = pts[i]
        k += 1
    return hull[:k - 1].copy()


@njit
def polygon_area(poly):
    n = poly.shape[0]
    a = 0.0
    for i in range(n):
        j = (i + 1) % n
        a += poly[i, 0] * poly[j, 1] - poly[j, 0] * poly[i, 1]
    return 0.5 * abs(a)


@njit
def hull_area(points):
    return polygon_area(convex_hull(points))


@njit
def clipped_or_scaled(x, limit):
    if limit > 0:
        out = np.minimum(x, limit)
        return out
    else:
        if limit == 0:
            return np.zeros_like(x)
        y = x * -limit
        return y


@njit
def checked_cumsum(x, start):
    if start < 0:
        raise ValueError("start must be non-negative")
    out = np.empty(x.shape[0] - start)
    s = 0.0
    for i in range(start, x.shape[0]):
        s += x[i]
        out[i - start] = s
    return out


@njit
def combined(x, limit, start):
    a = clipped_or_scaled(x, limit)
    b = checked_cumsum(a, start)
    return a.sum() + b.sum()


KPC_CASES = {
    "hull_area": {
        "args": {"points": ("n", 2)},
        "dtypes": ["float64"],
        "sizes": [{"n": 2}, {"n": 3}, {"n": 50}, {"n": 2000}],
        "rtol": 1e-12,
    },
    "combined": {
        "args": {"x": ("n",), "limit": {"kind": "scalar", "value": "lim - 2"},
                 "start": {"kind": "scalar", "value": "s"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "lim": 3, "s": 0}, {"n": 40, "lim": 2, "s": 3}, {"n": 300, "lim": 0, "s": 10},
                  {"n": 4, "lim": 4, "s": -1}],
        "rtol": 1e-12,
    },
}
