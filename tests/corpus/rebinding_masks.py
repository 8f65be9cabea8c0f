"""Boolean-mask reads, names rebound to another rank, dtypes as values, nested tuple targets.

Exercises: `x[x > 0]` and `x[mask]` read into a new 1-D array (Numba: the true elements in
order; a mask shorter than the array selects from its front) then reduced, scaled or returned;
`X[labels == g]` of a 2-D `X` (the rows where the mask is true) then read by column; a 4-D
argument rebound to its 2-D reshape (`x = x.reshape(n, -1)`) and a local rebound through two
ranks (`c = c.reshape(n, -1)` then `c = c.sum(axis=1)`): Numba types each binding on its own,
and kpc gives the new binding its own name; a dtype object held in a local (`dt = np.float32;
np.zeros(n, dt)`); nested tuple targets (`(a, b), c = (1, 2), 3`, `for i, (u, v) in
enumerate(zip(x, y))`). These kernels used to stay Numba ("boolean mask read", "parameter 'x'
... is assigned a f64[:, :]").
"""
import numpy as np
from numba import njit


@njit
def positives_sum(x):
    pos = x[x > 0]
    return pos.sum() + pos.shape[0]


@njit
def masked_scale(x, y):
    sel = x[y > y.mean()] * 2
    return sel


@njit
def masked_mean(x, lo):
    m = x > lo
    if m.any():
        return x[m].mean()
    return 0.0


@njit
def mask_param(x, m):
    return x[m] + 1


@njit
def flatten_rows(x):
    n = x.shape[0]
    x = x.reshape(n, -1)
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            s += x[i, j] * (j + 1)
    return s


@njit
def row_sums(c):
    c = c.reshape(c.shape[0], -1)
    c = c.sum(axis=1)
    return c


@njit
def as_float32(x):
    dt = np.float32
    y = np.zeros(x.shape[0], dt)
    for i in range(x.shape[0]):
        y[i] = x[i] / 3
    return y


@njit
def nested_tuples(x, y):
    (a, b), c = (1, 2), 3
    s = 0.0
    for i, (u, v) in enumerate(zip(x, y)):
        s += (a * u - b * v) * c + i
    return s


@njit
def _extremes(x):
    return (x.min(), x.max()), x.shape[0]


@njit
def spread(x):
    (lo, hi), n = _extremes(x)
    (w, (p, q)) = n, (hi, lo)
    return (p - q) * w + lo


@njit
def filled(n, dtype=np.float64):
    out = np.empty(n, dtype=dtype)
    for i in range(n):
        out[i] = i * 1.5 - 2
    return out


@njit
def filled_both(n):
    a = filled(n, np.int32)
    b = filled(n)
    c = filled(n, dtype=np.float32)
    return a.sum() + b.sum() + c.sum(), a[n - 1], c[n // 2]


@njit
def group_skew(X, labels, k):
    # per group and column: median minus mean of the rows with that label (NaN for an empty group)
    skew = np.full((k, X.shape[1]), np.nan)
    for g in range(k):
        rows = X[labels == g]
        if rows.shape[0] < 1:
            continue
        for j in range(rows.shape[1]):
            column = rows[:, j]
            skew[g, j] = np.median(column) - column.mean()
    return skew


@njit
def front_rows(X, m):
    picked = X[m]
    return picked.sum(axis=0), picked.shape[0]


KPC_CASES = {
    "positives_sum": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 9}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "masked_scale": {
        "args": {"x": ("n",), "y": {"kind": "array", "shape": ("n",), "dtype": "float64"}},
        "dtypes": ["float64", "int32"],
        "sizes": [{"n": 1}, {"n": 8}, {"n": 77}],
        "layouts": ["C", "strided"],
    },
    "masked_mean": {
        "args": {"x": ("n",), "lo": {"kind": "scalar", "value": 0.5}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 12}, {"n": 200}],
    },
    "group_skew": {
        "args": {"X": ("n", "d"), "labels": {"kind": "index", "shape": ("n",), "high": "k"},
                 "k": {"kind": "scalar", "value": "k + 1"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "d": 1, "k": 2}, {"n": 40, "d": 3, "k": 4}],
        "layouts": ["C", "F"],
    },
    "front_rows": {
        "args": {"X": ("n", "d"), "m": {"kind": "array", "shape": ("n",), "dtype": "bool"}},
        "dtypes": ["float64", "int32"],
        "sizes": [{"n": 1, "d": 2}, {"n": 30, "d": 3}],
        "layouts": ["C", "F"],
    },
    "mask_param": {
        "args": {"x": ("n",), "m": {"kind": "array", "shape": ("n",), "dtype": "bool"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 5}, {"n": 64}],
        "layouts": ["C", "strided"],
    },
    "flatten_rows": {
        "args": {"x": ("n", 2, 3, "m")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 4, "m": 5}, {"n": 9, "m": 2}],
    },
    "row_sums": {
        "args": {"c": ("n", "m", 3)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 3}, {"n": 6, "m": 4}, {"n": 20, "m": 7}],
    },
    "as_float32": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 3}, {"n": 50}],
        "layouts": ["C", "strided"],
    },
    "nested_tuples": {
        "args": {"x": ("n",), "y": ("m",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 5, "m": 5}, {"n": 17, "m": 11}],
        "layouts": ["C", "strided"],
    },
    "spread": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1}, {"n": 6}, {"n": 40}],
        "layouts": ["C", "strided"],
    },
    "filled": {
        "args": {"n": {"kind": "scalar", "value": "n"}},
        "sizes": [{"n": 0}, {"n": 1}, {"n": 33}],
    },
    "filled_both": {
        "args": {"n": {"kind": "scalar", "value": "n"}},
        "sizes": [{"n": 1}, {"n": 33}],
    },
}
