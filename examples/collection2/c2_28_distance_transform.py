"""Distance transforms of binary images: two-pass chamfer (3-4), exact 1-D squared EDT by lower envelope, 2-D EDT.
Image-analysis code from microscopy pipelines, written out as loops.
"""
import numpy as np
from numba import njit, prange

INF = 1e20


@njit
def chamfer_34(mask):
    h, w = mask.shape
    d = np.where(mask, 0, 1 << 30).astype(np.int64)
    for i in range(h):
        for j in range(w):
            v = d[i, j]
            if i > 0:
                v = min(v, d[i - 1, j] + 3)
                if j > 0:
                    v = min(v, d[i - 1, j - 1] + 4)
                if j < w - 1:
                    v = min(v, d[i - 1, j + 1] + 4)
            if j > 0:
                v = min(v, d[i, j - 1] + 3)
            d[i, j] = v
    for i in range(h - 1, -1, -1):
        for j in range(w - 1, -1, -1):
            v = d[i, j]
            if i < h - 1:
                v = min(v, d[i + 1, j] + 3)
                if j > 0:
                    v = min(v, d[i + 1, j - 1] + 4)
                if j < w - 1:
                    v = min(v, d[i + 1, j + 1] + 4)
            if j < w - 1:
                v = min(v, d[i, j + 1] + 3)
            d[i, j] = v
    return d


@njit
def edt_1d(f):
    n = f.shape[0]
    d = np.empty(n)
    v = np.zeros(n, dtype=np.int64)
    z = np.empty(n + 1)
    k = 0
    v[0] = 0
    z[0] = -INF
    z[1] = INF
    for q in range(1, n):
        s = ((f[q] + q * q) - (f[v[k]] + v[k] * v[k])) / (2.0 * q - 2.0 * v[k])
        while s <= z[k]:
            k -= 1
            s = ((f[q] + q * q) - (f[v[k]] + v[k] * v[k])) / (2.0 * q - 2.0 * v[k])
        k += 1
        v[k] = q
        z[k] = s
        z[k + 1] = INF
    k = 0
    for q in range(n):
        while z[k + 1] < q:
            k += 1
        d[q] = (q - v[k]) ** 2 + f[v[k]]
    return d


@njit(parallel=True)
def edt_2d(mask):
    h, w = mask.shape
    f = np.where(mask, 0.0, INF)
    tmp = np.empty((h, w))
    for j in prange(w):
        tmp[:, j] = edt_1d(f[:, j].copy())
    out = np.empty((h, w))
    for i in prange(h):
        out[i, :] = edt_1d(tmp[i, :].copy())
    return np.sqrt(out)


@njit
def signed_distance(mask):
    inside = edt_2d(~mask)
    outside = edt_2d(mask)
    return outside - inside


KPC_CASES = {
    "chamfer_34": {
        "args": {"mask": {"kind": "array", "shape": ("h", "w"), "dtype": "bool"}},
        "sizes": [{"h": 1, "w": 1}, {"h": 5, "w": 7}, {"h": 1500, "w": 1500}],
        "layouts": ["C", "F"],
    },
    "edt_1d": {
        "args": {"f": {"kind": "array", "shape": ("n",), "low": 0.0, "high": 100.0}},
        "sizes": [{"n": 1}, {"n": 9}, {"n": 1000000}],
        "rtol": 1e-12,
    },
    "edt_2d": {
        "args": {"mask": {"kind": "array", "shape": ("h", "w"), "dtype": "bool"}},
        "sizes": [{"h": 1, "w": 1}, {"h": 6, "w": 5}, {"h": 700, "w": 700}],
        "rtol": 1e-12,
    },
    "signed_distance": {
        "args": {"mask": {"kind": "array", "shape": ("h", "w"), "dtype": "bool"}},
        "sizes": [{"h": 2, "w": 2}, {"h": 6, "w": 5}, {"h": 450, "w": 450}],
        "rtol": 1e-12,
    },
}
