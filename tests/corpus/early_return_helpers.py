"""Helpers that return an array from more than one place, called from other kernels.

Exercises: a lower convex hull that returns `points.copy()` early for fewer than three points
and its chain otherwise, fed to a length kernel (`path_length(lower_chain(points))`, as geometry
code chains them); a helper with an early return in each branch of an `if`/`else` and one that
raises on a bad argument before returning. kpc inlines a helper that returns an array into
its caller (a Kokkos kernel cannot return a view to another one); the returns become
assignments of one result and the statements after an `if` that returns move into its other
branch.
"""
import numpy as np
from numba import njit


@njit
def turn(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


@njit
def lower_chain(points):
    """The lower hull of the points, left to right (Andrew's first pass); fewer than three: a copy."""
    n = points.shape[0]
    if n < 3:
        return points.copy()
    order = np.argsort(points[:, 0])
    pts = np.empty((n, 2))
    for i in range(n):
        pts[i, 0] = points[order[i], 0]
        pts[i, 1] = points[order[i], 1]
    chain = np.empty((n, 2))
    m = 0
    for i in range(n):
        while m >= 2 and turn(chain[m - 2], chain[m - 1], pts[i]) <= 0.0:
            m -= 1
        chain[m] = pts[i]
        m += 1
    return chain[:m].copy()


@njit
def path_length(path):
    total = 0.0
    for i in range(path.shape[0] - 1):
        total += np.sqrt((path[i + 1, 0] - path[i, 0]) ** 2 + (path[i + 1, 1] - path[i, 1]) ** 2)
    return total


@njit
def lower_chain_length(points):
    return path_length(lower_chain(points))


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
    "lower_chain_length": {
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
