"""Arrays allocated inside parallel loops: one temporary per iteration.

Exercises: `np.empty(3)` / `np.zeros((2, 2))` / `np.zeros(4, dtype=np.int64)` / `np.full`
in a `prange` body (kpc keeps each on the thread's stack: a constant shape of at most
256 elements), filled, read and reduced (`t.sum()`) inside the iteration; a helper that
allocates its own scratch array, called from a parallel loop; `np.empty(m)` and
`np.zeros((w, 2))` whose shape the loop does not change (kpc allocates one block per
thread before the loop). Real kernels do this for a stencil's neighbourhood, a small
per-point matrix, per-point counters or a row's temporary.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def median3(x):
    n = x.shape[0]
    out = np.zeros(n)
    for i in prange(1, n - 1):
        t = np.empty(3)
        t[0] = x[i - 1]
        t[1] = x[i]
        t[2] = x[i + 1]
        for a in range(2):  # two passes of a bubble sort
            for b in range(2 - a):
                if t[b] > t[b + 1]:
                    t[b], t[b + 1] = t[b + 1], t[b]
        out[i] = t[1]
    return out


@njit(parallel=True)
def local_det(x, y):
    n = x.shape[0]
    out = np.empty(n - 1)
    for i in prange(n - 1):
        m = np.zeros((2, 2))
        m[0, 0] = x[i]
        m[0, 1] = y[i]
        m[1, 0] = x[i + 1]
        m[1, 1] = y[i + 1]
        out[i] = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0] + m.sum()
    return out


@njit(parallel=True)
def digit_counts(keys):
    n = keys.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in prange(n):
        counts = np.zeros(4, dtype=np.int64)
        k = abs(keys[i])
        for j in range(6):
            counts[int(k % 4)] += 1
            k = k // 4
        best = 0
        for j in range(1, 4):
            if counts[j] > counts[best]:
                best = j
        out[i] = best * 10 + counts[best]
    return out


@njit
def horner(c0, x):
    c = np.full(4, c0)
    c[1] = 0.5
    acc = 0.0
    for k in range(3, -1, -1):
        acc = acc * x + c[k]
    return acc


@njit(parallel=True)
def poly_all(x, out):
    for i in prange(x.shape[0]):
        out[i] = horner(1.5, x[i])


@njit(parallel=True)
def row_weights(x):
    n, m = x.shape
    out = np.empty(n)
    for i in prange(n):
        t = np.empty(m)
        top = x[i, 0]
        for j in range(m):
            top = max(top, x[i, j])
        s = 0.0
        for j in range(m):
            t[j] = np.exp(x[i, j] - top)
            s += t[j]
        acc = 0.0
        for j in range(m):
            acc += t[j] / s * j
        out[i] = acc
    return out


@njit(parallel=True)
def window_moments(x, w):
    n = x.shape[0]
    out = np.zeros(n - w + 1)
    for i in prange(n - w + 1):
        buf = np.zeros((w, 2))
        for k in range(w):
            buf[k, 0] = x[i + k]
            buf[k, 1] = x[i + k] * x[i + k]
        out[i] = buf.sum()
    return out


KPC_CASES = {
    "row_weights": {
        "args": {"x": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 7, "m": 5}, {"n": 200, "m": 33}],
        "layouts": ["C", "strided"],
    },
    "window_moments": {
        "args": {"x": ("n",), "w": {"kind": "scalar", "value": "w"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "w": 3}, {"n": 50, "w": 4}, {"n": 1000, "w": 9}],
        "layouts": ["C", "strided"],
    },
    "median3": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3}, {"n": 17}, {"n": 1000}],
        "layouts": ["C", "strided"],
    },
    "local_det": {
        "args": {"x": ("n",), "y": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 2}, {"n": 33}, {"n": 500}],
        "layouts": ["C", "strided"],
    },
    "digit_counts": {
        "args": {"keys": ("n",)},
        "dtypes": ["int64", "int32"],
        "sizes": [{"n": 1}, {"n": 64}, {"n": 2000}],
        "layouts": ["C"],
    },
    "poly_all": {
        "args": {"x": ("n",), "out": ("n",)},
        "writes": ["out"],
        "dtypes": ["float64"],
        "sizes": [{"n": 5}, {"n": 300}],
        "layouts": ["C", "strided"],
    },
}
