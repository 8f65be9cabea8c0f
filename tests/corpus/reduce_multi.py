"""Several reductions computed together in one parallel loop.

Exercises: one `prange` feeding five reduction variables of different
kinds (sum, sum of squares, min, max, integer count) and a tuple of
derived statistics computed after the loop; a second kernel that counts
values in a half-open interval with a chained comparison.
"""
import math

import numba as nb
import numpy as np


@nb.njit(parallel=True)
def summary_stats(x):
    n = x.shape[0]
    s = 0.0
    ss = 0.0
    lo = np.inf
    hi = -np.inf
    positive = 0
    for i in nb.prange(n):
        v = x[i]
        s += v
        ss += v * v
        lo = min(lo, v)
        hi = max(hi, v)
        if v > 0:
            positive += 1
    if n == 0:
        return 0.0, 0.0, lo, hi, positive
    mean = s / n
    var = ss / n - mean * mean
    return mean, math.sqrt(max(var, 0.0)), lo, hi, positive


@nb.njit(parallel=True)
def count_in_band(x, lo, hi):
    inside = 0
    below = 0
    for i in nb.prange(x.shape[0]):
        if lo <= x[i] < hi:
            inside += 1
        elif x[i] < lo:
            below += 1
    return inside, below, x.shape[0] - inside - below


KPC_CASES = {
    "summary_stats": {
        "args": {"x": ("n",)},
        # not int64: Numba 0.68 casts the float init np.inf to int64 for the
        # private copy of a thread with no iterations, so lo/hi come back as
        # -9.2e18 when n < number of threads
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 33}, {"n": 100}],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-10},
        # std = sqrt(ss/n - mean**2): for n == 1 the variance is a float32
        # rounding residue (~1e-9) and the square root magnifies it
        "atol": {"float32": 3e-4},
    },
    "count_in_band": {
        "args": {
            "x": ("n",),
            "lo": {"kind": "scalar", "value": -0.25},
            "hi": {"kind": "scalar", "value": 0.5},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
    },
}
