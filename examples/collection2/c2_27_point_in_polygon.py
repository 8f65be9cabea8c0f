"""Point-in-polygon by ray casting and winding number, batch-parallel, plus distance from points to segments.
GIS-style code that tests millions of points against a polygon in projected coordinates.
"""
import numpy as np
from numba import njit, prange


@njit
def inside_ray(x, y, poly):
    n = poly.shape[0]
    inside = False
    j = n - 1
    for i in range(n):
        xi, yi = poly[i, 0], poly[i, 1]
        xj, yj = poly[j, 0], poly[j, 1]
        if (yi > y) != (yj > y):
            xcross = (xj - xi) * (y - yi) / (yj - yi) + xi
            if x < xcross:
                inside = not inside
        j = i
    return inside


@njit(parallel=True)
def points_in_polygon(points, poly):
    n = points.shape[0]
    out = np.empty(n, dtype=np.bool_)
    for i in prange(n):
        out[i] = inside_ray(points[i, 0], points[i, 1], poly)
    return out


@njit
def is_left(x0, y0, x1, y1, x, y):
    return (x1 - x0) * (y - y0) - (x - x0) * (y1 - y0)


@njit(parallel=True)
def winding_numbers(points, poly):
    n = points.shape[0]
    m = poly.shape[0]
    wn = np.zeros(n, dtype=np.int64)
    for p in prange(n):
        x, y = points[p, 0], points[p, 1]
        w = 0
        for i in range(m):
            x0, y0 = poly[i, 0], poly[i, 1]
            x1, y1 = poly[(i + 1) % m, 0], poly[(i + 1) % m, 1]
            if y0 <= y:
                if y1 > y and is_left(x0, y0, x1, y1, x, y) > 0:
                    w += 1
            elif y1 <= y and is_left(x0, y0, x1, y1, x, y) < 0:
                w -= 1
        wn[p] = w
    return wn


@njit
def regular_polygon(nverts, radius):
    t = np.linspace(0.0, 2.0 * np.pi, nverts + 1)[:-1]
    poly = np.empty((nverts, 2))
    poly[:, 0] = radius * np.cos(t)
    poly[:, 1] = radius * np.sin(t)
    return poly


@njit(parallel=True)
def distance_to_polyline(points, line):
    n = points.shape[0]
    out = np.empty(n)
    for p in prange(n):
        best = np.inf
        for i in range(line.shape[0] - 1):
            ax, ay = line[i]
            bx, by = line[i + 1]
            dx, dy = bx - ax, by - ay
            L2 = dx * dx + dy * dy
            t = 0.0
            if L2 > 0:
                t = ((points[p, 0] - ax) * dx + (points[p, 1] - ay) * dy) / L2
                t = min(1.0, max(0.0, t))
            qx = ax + t * dx - points[p, 0]
            qy = ay + t * dy - points[p, 1]
            best = min(best, qx * qx + qy * qy)
        out[p] = np.sqrt(best)
    return out


KPC_CASES = {
    "points_in_polygon": {
        "args": {"points": ("n", 2), "poly": {"kind": "array", "shape": ("m", 2), "low": -0.9, "high": 0.9}},
        "sizes": [{"n": 1, "m": 3}, {"n": 100, "m": 7}, {"n": 200000, "m": 50}],
        "layouts": ["C", "F"],
    },
    "winding_numbers": {
        "args": {"points": ("n", 2), "poly": {"kind": "array", "shape": ("m", 2), "low": -0.9, "high": 0.9}},
        "sizes": [{"n": 1, "m": 3}, {"n": 100, "m": 7}, {"n": 200000, "m": 50}],
    },
    "regular_polygon": {
        "args": {"nverts": {"kind": "scalar", "value": "n"}, "radius": {"kind": "scalar", "value": 2.5}},
        "sizes": [{"n": 3}, {"n": 500000}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "distance_to_polyline": {
        "args": {"points": ("n", 2), "line": ("m", 2)},
        "sizes": [{"n": 1, "m": 1}, {"n": 10, "m": 4}, {"n": 100000, "m": 60}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
}
