"""Planar geometry: Andrew's monotone-chain convex hull, polygon area and centroid, closest pair by sorting.
Computational-geometry homework code on (n, 2) point arrays.
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
def polygon_area_centroid(poly):
    n = poly.shape[0]
    a = 0.0
    cx = 0.0
    cy = 0.0
    for i in range(n):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % n]
        c = x0 * y1 - x1 * y0
        a += c
        cx += (x0 + x1) * c
        cy += (y0 + y1) * c
    a *= 0.5
    if a == 0.0:
        return 0.0, 0.0, 0.0
    return a, cx / (6 * a), cy / (6 * a)


@njit
def hull_area(points):
    return polygon_area_centroid(convex_hull(points))[0]


@njit
def closest_pair(points):
    order = np.argsort(points[:, 0])
    p = points[order]
    best = np.inf
    bi, bj = -1, -1
    n = p.shape[0]
    for i in range(n):
        j = i + 1
        while j < n and p[j, 0] - p[i, 0] < best:
            d = np.sqrt((p[j, 0] - p[i, 0]) ** 2 + (p[j, 1] - p[i, 1]) ** 2)
            if d < best:
                best = d
                bi, bj = order[i], order[j]
            j += 1
    return best, min(bi, bj), max(bi, bj)


KPC_CASES = {
    "convex_hull": {
        "args": {"points": ("n", 2)},
        "sizes": [{"n": 1}, {"n": 3}, {"n": 20}, {"n": 200000}],
        "layouts": ["C", "F"],
    },
    "hull_area": {
        "args": {"points": ("n", 2)},
        "sizes": [{"n": 3}, {"n": 20}, {"n": 200000}],
        "rtol": 1e-10,
    },
    "polygon_area_centroid": {
        "args": {"poly": ("n", 2)},
        "sizes": [{"n": 1}, {"n": 5}, {"n": 2000000}],
        "rtol": 1e-8,
        "atol": 1e-10,
    },
    "closest_pair": {
        "args": {"points": ("n", 2)},
        "sizes": [{"n": 2}, {"n": 10}, {"n": 150000}],
        "rtol": 1e-12,
    },
}
