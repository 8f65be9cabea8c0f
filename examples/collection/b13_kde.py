"""Gaussian kernel density estimation on a grid (parallel loops and NumPy broadcasting) with Silverman's bandwidth, and a 2-D KDE.
Common in data-analysis notebooks that outgrow scipy.stats.gaussian_kde.
"""
import numpy as np
from numba import njit, prange

SQRT_2PI = np.sqrt(2.0 * np.pi)


@njit
def gaussian(u):
    return np.exp(-0.5 * u * u) / SQRT_2PI


@njit(parallel=True)
def kde_1d(samples, grid, bandwidth):
    n = samples.shape[0]
    out = np.empty(grid.shape[0])
    for i in prange(grid.shape[0]):
        s = 0.0
        for j in range(n):
            s += gaussian((grid[i] - samples[j]) / bandwidth)
        out[i] = s / (n * bandwidth)
    return out


@njit
def kde_numpy(samples, grid, h):
    u = (grid[:, None] - samples[None, :]) / h
    return np.exp(-0.5 * u ** 2).sum(axis=1) / (samples.size * h * SQRT_2PI)


@njit
def silverman_bandwidth(x):
    n = x.size
    std = np.std(x)
    iqr = np.percentile(x, 75.0) - np.percentile(x, 25.0)
    return 0.9 * min(std, iqr / 1.34) * n ** (-0.2)


@njit
def kde_auto(samples, grid):
    h = silverman_bandwidth(samples)
    return kde_1d(samples, grid, h), h


@njit(parallel=True)
def kde_2d(points, gx, gy, h):
    nx, ny = gx.shape[0], gy.shape[0]
    dens = np.zeros((nx, ny))
    norm = 1.0 / (points.shape[0] * 2.0 * np.pi * h * h)
    for a in prange(nx):
        for b in range(ny):
            s = 0.0
            for p in range(points.shape[0]):
                dx = (gx[a] - points[p, 0]) / h
                dy = (gy[b] - points[p, 1]) / h
                s += np.exp(-0.5 * (dx * dx + dy * dy))
            dens[a, b] = s * norm
    return dens


KPC_CASES = {
    "kde_1d": {
        "args": {"samples": ("n",), "grid": ("g",), "bandwidth": {"kind": "scalar", "value": 0.3}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "g": 5}, {"n": 500, "g": 64}],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
    },
    "kde_numpy": {
        "args": {"samples": ("n",), "grid": ("g",), "h": {"kind": "scalar", "value": 0.3}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "g": 5}, {"n": 500, "g": 64}],
        "rtol": 1e-10,
    },
    "kde_auto": {
        "args": {"samples": ("n",), "grid": ("g",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "g": 5}, {"n": 500, "g": 64}],
        "rtol": 1e-10,
    },
    "kde_2d": {
        "args": {"points": ("n", 2), "gx": ("a",), "gy": ("b",), "h": {"kind": "scalar", "value": 0.25}},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "a": 3, "b": 2}, {"n": 200, "a": 20, "b": 16}],
        "rtol": 1e-10,
    },
}
