"""Several parallel regions in one kernel with serial code between them.

Exercises: a `prange` reduction, a serial scalar computation using its
result, a second `prange` writing an array, then a third `prange`
reduction over that array; plus a kernel whose parallel regions are
separated by a serial loop carrying a dependence (a running maximum).
"""
import math

import numpy as np
from numba import njit, prange


@njit(parallel=True)
def standardize(x, out):
    n = x.shape[0]
    s = 0.0
    for i in prange(n):
        s += x[i]
    mean = s / n
    for i in prange(n):
        out[i] = x[i] - mean
    ss = 0.0
    for i in prange(n):
        ss += out[i] * out[i]
    std = math.sqrt(ss / n)
    if std > 0.0:
        for i in prange(n):
            out[i] /= std
    return mean, std


@njit(parallel=True)
def drawdown(prices):
    n = prices.shape[0]
    returns = np.empty(n)
    for i in prange(n):
        returns[i] = math.log(prices[i])
    peak = np.empty(n)
    running = -np.inf
    for i in range(n):
        running = max(running, returns[i])
        peak[i] = running
    worst = 0.0
    for i in prange(n):
        worst = min(worst, returns[i] - peak[i])
    return worst


KPC_CASES = {
    "standardize": {
        "args": {"x": ("n",), "out": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 2}, {"n": 33}, {"n": 100}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
    },
    "drawdown": {
        "args": {"prices": {"kind": "array", "shape": ("n",), "low": 0.5, "high": 2.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
}
