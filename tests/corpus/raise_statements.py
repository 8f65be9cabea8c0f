"""Kernels that check their input and raise, the way users validate arguments in Numba.

Exercises: `raise ValueError("text")` and a bare `raise ValueError` in serial code, a `raise`
inside a `prange` loop (Numba runs that loop serially, so the first failing iteration raises)
and inside a serial loop nested in one, a helper that raises called from host code (the
radix-2 FFT's power-of-two check), `IndexError` and `KeyError`. Found by the second collection
(c2_21_dijkstra.bellman_ford, c2_06_fft_radix2.fft_iterative, c2_31_quantiles.trimmed_mean):
kpc kept every kernel with a `raise` as Numba (issue 32).
"""
import numpy as np
from numba import njit, prange


@njit
def normalized(x):
    n = x.shape[0]
    if n == 0:
        raise ValueError("cannot normalize an empty vector")
    norm = 0.0
    for i in range(n):
        norm += x[i] * x[i]
    out = np.empty(n)
    for i in range(n):
        out[i] = x[i] / np.sqrt(norm)
    return out


@njit
def trimmed_total(x, k):
    if 2 * k >= x.shape[0]:
        raise ValueError
    total = 0.0
    for i in range(k, x.shape[0] - k):
        total += x[i]
    return total


@njit(parallel=True)
def relax_edges(src, dst, w, dist):
    for k in prange(src.shape[0]):
        if dist[src[k]] + w[k] < dist[dst[k]]:
            raise ValueError("negative cycle")
    total = 0.0
    for i in range(dist.shape[0]):
        total += dist[i]
    return total


@njit(parallel=True)
def bounded_rows(a, limit, out):
    for i in prange(a.shape[0]):
        s = 0
        for j in range(a.shape[1]):
            if a[i, j] > limit:
                raise IndexError("entry above the limit")
            s += a[i, j]
        out[i] = s


@njit
def check_power_of_two(n):
    if n & (n - 1) != 0:
        raise KeyError("length must be a power of two")
    return n


@njit
def doubled_halves(x):
    n = check_power_of_two(x.shape[0])
    out = np.zeros(n)
    for i in range(n // 2):
        out[i] = 2.0 * x[2 * i]
        out[n // 2 + i] = 2.0 * x[2 * i + 1]
    return out


KPC_CASES = {
    "normalized": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 17}, {"n": 500}],
        "rtol": {"float64": 1e-12, "float32": 1e-5},
    },
    "trimmed_total": {
        "args": {"x": {"kind": "array", "shape": ("n",), "values": "sorted"}, "k": {"kind": "scalar", "value": "k"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "k": 2}, {"n": 5, "k": 2}, {"n": 100, "k": 10}, {"n": 0, "k": 0}],
        "rtol": 1e-12,
    },
    "relax_edges": {
        "args": {"src": {"kind": "index", "shape": ("e",), "high": "n"},
                 "dst": {"kind": "index", "shape": ("e",), "high": "n"},
                 "w": {"kind": "array", "shape": ("e",), "low": -0.05, "high": 1.0},
                 "dist": {"kind": "array", "shape": ("n",), "low": 0.0, "high": 0.5}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "e": 0}, {"n": 5, "e": 3}, {"n": 6, "e": 8}, {"n": 50, "e": 400}],
        "rtol": 1e-12,
    },
    "bounded_rows": {
        "args": {"a": ("n", "m"), "limit": {"kind": "scalar", "value": "lim"}, "out": ("n",)},
        "dtypes": ["int64", "int32"],
        "sizes": [{"n": 1, "m": 1, "lim": 10}, {"n": 30, "m": 7, "lim": 10}, {"n": 200, "m": 9, "lim": 8}],
        "writes": ["out"],
    },
    "doubled_halves": {
        "args": {"x": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 6}, {"n": 8}, {"n": 1024}],
    },
}
