"""Arrays that shrink by one element per step, rebound to a new array each step, inside work
that a `prange` loop runs once per item.

Exercises: a binomial tree written with NumPy (`prices = prices[1:] * d`, `values =
np.maximum(cont, K - prices)`) called once per option from a `prange` loop, and the same
shrinking rebinding written directly in the `prange` body (pairwise averages of a row until
one value is left). Numba allocates a new array per step; kpc's function called from a
parallel loop used to refuse it ("array variable 'prices' must be assigned once, before its
uses": c2_02_binomial_tree.american_book of the second collection, issue 32).
"""
import math

import numpy as np
from numba import njit, prange


@njit
def american_put(S, K, T, r, sigma, steps):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    prices = S * d ** np.arange(steps, -1, -1) * u ** np.arange(0, steps + 1)
    values = np.maximum(K - prices, 0.0)
    for i in range(steps - 1, -1, -1):
        prices = prices[1:] * d
        cont = disc * (p * values[1:] + (1 - p) * values[:-1])
        values = np.maximum(cont, K - prices)
    return values[0]


@njit(parallel=True)
def put_book(S, K, sigma, r, steps):
    n = S.shape[0]
    out = np.empty(n)
    for i in prange(n):
        out[i] = american_put(S[i], K[i], 1.0, r, sigma[i], steps)
    return out


@njit(parallel=True)
def pairwise_tops(a):
    n, m = a.shape
    out = np.empty(n)
    for i in prange(n):
        row = np.empty(m)
        for j in range(m):
            row[j] = a[i, j]
        for _ in range(m - 1):
            row = 0.5 * (row[1:] + row[:-1])
        out[i] = row[0]
    return out


KPC_CASES = {
    "put_book": {
        "args": {"S": {"kind": "array", "shape": ("n",), "low": 80.0, "high": 120.0},
                 "K": {"kind": "array", "shape": ("n",), "low": 90.0, "high": 110.0},
                 "sigma": {"kind": "array", "shape": ("n",), "low": 0.1, "high": 0.4},
                 "r": {"kind": "scalar", "value": 0.03}, "steps": {"kind": "scalar", "value": "s"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "s": 1}, {"n": 7, "s": 20}, {"n": 150, "s": 64}],
        "rtol": 1e-10,
    },
    "pairwise_tops": {
        "args": {"a": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 5, "m": 6}, {"n": 130, "m": 40}],
        "rtol": 1e-12,
    },
}
