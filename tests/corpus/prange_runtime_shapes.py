"""Arrays with a run-time shape allocated inside parallel loops and in helpers called from them.

Exercises: a prefix `np.zeros(i + 1)` whose length the loop index gives; the difference of two
rows (`d = pos[i] - pos[j]`) rebound to its minimum image (`d = d - box * np.round(d / box)`) in
a pair loop, as molecular-dynamics codes write it; a helper (an edit distance) allocating its
table from its arguments' lengths, called for every pair from a `prange` loop; a parallel
kernel returning a new array called for each channel of an image (`out[:, :, k] = f(img[:, :, k])`);
`np.empty_like` of a row. Numba allocates each of these at every call or iteration; kpc does the
same on host spaces, from the heap (it used to keep these kernels as Numba: "an array allocated
inside a parallel loop needs a constant shape").
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def prefix_means(x):
    n = x.shape[0]
    out = np.empty(n)
    for i in prange(n):
        head = np.zeros(i + 1)
        for k in range(i + 1):
            head[k] = x[k] * (k + 1)
        out[i] = head.sum() / (i + 1)
    return out


@njit(parallel=True)
def pair_energy(pos, box):
    n = pos.shape[0]
    energy = 0.0
    for i in prange(n - 1):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            d = d - box * np.round(d / box)
            energy += 1.0 / (1.0 + (d ** 2).sum())
    return energy


@njit
def _edit_distance(a, b):
    n, m = a.shape[0], b.shape[0]
    table = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        table[i, 0] = i
    for j in range(m + 1):
        table[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            table[i, j] = min(table[i - 1, j] + 1, table[i, j - 1] + 1, table[i - 1, j - 1] + cost)
    return table[n, m]


@njit(parallel=True)
def all_pairs(seqs, cut):
    k = seqs.shape[0]
    out = np.zeros((k, k), dtype=np.int64)
    for i in prange(k):
        for j in range(k):
            out[i, j] = _edit_distance(seqs[i, :cut + i % 3], seqs[j, :cut])
    return out


@njit(parallel=True)
def _scaled(img, f):
    h, w = img.shape
    out = np.empty((h, w))
    for i in prange(h):
        for j in range(w):
            out[i, j] = img[i, j] * f + i - j
    return out


@njit
def per_channel(img):
    c = img.shape[2]
    out = np.empty(img.shape)
    for k in range(c):
        out[:, :, k] = _scaled(img[:, :, k], k + 1.0)
    return out


@njit(parallel=True)
def centered_rows(x):
    out = np.empty_like(x)
    for i in prange(x.shape[0]):
        row = np.empty_like(x[i])
        m = x[i].mean()
        for j in range(x.shape[1]):
            row[j] = x[i, j] - m
        out[i] = row
    return out


KPC_CASES = {
    "prefix_means": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 70}, {"n": 300}],
        "layouts": ["C", "strided"],
    },
    "pair_energy": {
        "args": {"pos": {"kind": "array", "shape": ("n", "d"), "low": 0.0, "high": 5.0},
                 "box": {"kind": "scalar", "value": 5.0}},
        "dtypes": ["float64"],
        "sizes": [{"n": 2, "d": 3}, {"n": 80, "d": 3}, {"n": 70, "d": 2}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
    },
    "all_pairs": {
        "args": {"seqs": {"kind": "index", "shape": ("k", "m"), "high": 4},
                 "cut": {"kind": "scalar", "value": "m - 2"}},
        "sizes": [{"k": 1, "m": 3}, {"k": 9, "m": 8}, {"k": 70, "m": 6}],
    },
    "per_channel": {
        "args": {"img": ("h", "w", "c")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"h": 2, "w": 3, "c": 1}, {"h": 70, "w": 9, "c": 3}],
    },
    "centered_rows": {
        "args": {"x": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 80, "m": 5}],
        "layouts": ["C", "strided"],
    },
}
