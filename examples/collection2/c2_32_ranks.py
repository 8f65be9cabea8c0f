"""Ranks with ties (average, dense, ordinal), Spearman and Kendall correlation, Mann-Whitney U.
Non-parametric statistics implemented with argsort, as in scipy.stats replacements.
"""
import numpy as np
from numba import njit, prange


@njit
def rankdata_average(x):
    n = x.shape[0]
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(n)
    i = 0
    while i < n:
        j = i
        while j + 1 < n and x[order[j + 1]] == x[order[i]]:
            j += 1
        avg = 0.5 * (i + j) + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = avg
        i = j + 1
    return ranks


@njit
def rankdata_dense(x):
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    flags = np.empty(x.shape[0], dtype=np.int64)
    flags[0] = 1
    flags[1:] = xs[1:] != xs[:-1]
    dense = np.cumsum(flags)
    out = np.empty_like(dense)
    out[order] = dense
    return out


@njit
def spearman(x, y):
    rx = rankdata_average(x)
    ry = rankdata_average(y)
    rx -= rx.mean()
    ry -= ry.mean()
    return (rx * ry).sum() / np.sqrt((rx * rx).sum() * (ry * ry).sum())


@njit(parallel=True)
def kendall_tau(x, y):
    n = x.shape[0]
    concordant = 0
    discordant = 0
    for i in prange(n):
        for j in range(i + 1, n):
            s = np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
            if s > 0:
                concordant += 1
            elif s < 0:
                discordant += 1
    return (concordant - discordant) / (0.5 * n * (n - 1))


@njit
def mann_whitney_u(a, b):
    both = np.concatenate((a, b))
    r = rankdata_average(both)
    na = a.shape[0]
    u1 = r[:na].sum() - na * (na + 1) / 2.0
    return u1, na * b.shape[0] - u1


KPC_CASES = {
    "rankdata_average": {
        "args": {"x": {"kind": "index", "shape": ("n",), "high": "k"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "k": 1}, {"n": 1, "k": 3}, {"n": 20, "k": 5}, {"n": 100000, "k": 1000}],
    },
    "rankdata_dense": {
        "args": {"x": ("n",)},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 1}, {"n": 30}, {"n": 150000}],
    },
    "spearman": {
        "args": {"x": ("n",), "y": ("n",)},
        "sizes": [{"n": 2}, {"n": 30}, {"n": 100000}],
        "layouts": ["C", "strided"],
        "rtol": 1e-10,
    },
    "kendall_tau": {
        "args": {"x": ("n",), "y": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 2}, {"n": 30}, {"n": 4000}],
        "rtol": 1e-12,
    },
    "mann_whitney_u": {
        "args": {"a": ("n",), "b": ("m",)},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 8, "m": 11}, {"n": 60000, "m": 40000}],
        "rtol": 1e-12,
    },
}
