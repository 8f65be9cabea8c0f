"""Cox-Ross-Rubinstein binomial trees for European and American options, one tree per option.
A classic of derivatives-pricing lecture code, backward induction over a 1-D buffer.
"""
import math

import numpy as np
from numba import njit, prange


@njit
def crr_params(T, r, sigma, steps):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    return dt, u, d, p


@njit
def binomial_european(S, K, T, r, sigma, steps, call=True):
    dt, u, d, p = crr_params(T, r, sigma, steps)
    disc = math.exp(-r * dt)
    values = np.empty(steps + 1)
    for j in range(steps + 1):
        ST = S * u ** j * d ** (steps - j)
        values[j] = max(ST - K, 0.0) if call else max(K - ST, 0.0)
    for i in range(steps - 1, -1, -1):
        for j in range(i + 1):
            values[j] = disc * (p * values[j + 1] + (1 - p) * values[j])
    return values[0]


@njit
def binomial_american_put(S, K, T, r, sigma, steps):
    dt, u, d, p = crr_params(T, r, sigma, steps)
    disc = math.exp(-r * dt)
    prices = S * d ** np.arange(steps, -1, -1) * u ** np.arange(0, steps + 1)
    values = np.maximum(K - prices, 0.0)
    for i in range(steps - 1, -1, -1):
        prices = prices[1:] * d
        cont = disc * (p * values[1:] + (1 - p) * values[:-1])
        values = np.maximum(cont, K - prices)
    return values[0]


@njit(parallel=True)
def price_book(S, K, T, sigma, r, steps):
    n = S.shape[0]
    out = np.empty((n, 2))
    for i in prange(n):
        out[i, 0] = binomial_european(S[i], K[i], T[i], r, sigma[i], steps, True)
        out[i, 1] = binomial_european(S[i], K[i], T[i], r, sigma[i], steps, False)
    return out


@njit(parallel=True)
def american_book(S, K, T, sigma, r, steps):
    n = S.shape[0]
    out = np.empty(n)
    for i in prange(n):
        out[i] = binomial_american_put(S[i], K[i], T[i], r, sigma[i], steps)
    return out


KPC_CASES = {
    "binomial_european": {
        "args": {"S": {"kind": "scalar", "value": 100.0}, "K": {"kind": "scalar", "value": 95.0},
                 "T": {"kind": "scalar", "value": 1.0}, "r": {"kind": "scalar", "value": 0.05},
                 "sigma": {"kind": "scalar", "value": 0.25}, "steps": {"kind": "scalar", "value": "s"},
                 "call": {"kind": "scalar", "value": 1}},
        "sizes": [{"s": 1}, {"s": 50}, {"s": 20000}],
        "rtol": 1e-9,
    },
    "binomial_american_put": {
        "args": {"S": {"kind": "scalar", "value": 100.0}, "K": {"kind": "scalar", "value": 105.0},
                 "T": {"kind": "scalar", "value": 1.0}, "r": {"kind": "scalar", "value": 0.05},
                 "sigma": {"kind": "scalar", "value": 0.3}, "steps": {"kind": "scalar", "value": "s"}},
        "sizes": [{"s": 1}, {"s": 50}, {"s": 2000}],
        "rtol": 1e-9,
    },
    "price_book": {
        "args": {"S": {"kind": "array", "shape": ("n",), "low": 80.0, "high": 120.0},
                 "K": {"kind": "array", "shape": ("n",), "low": 90.0, "high": 110.0},
                 "T": {"kind": "array", "shape": ("n",), "low": 0.25, "high": 2.0},
                 "sigma": {"kind": "array", "shape": ("n",), "low": 0.1, "high": 0.5},
                 "r": {"kind": "scalar", "value": 0.04}, "steps": {"kind": "scalar", "value": "s"}},
        "sizes": [{"n": 1, "s": 3}, {"n": 2000, "s": 300}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "american_book": {
        "args": {"S": {"kind": "array", "shape": ("n",), "low": 80.0, "high": 120.0},
                 "K": {"kind": "array", "shape": ("n",), "low": 90.0, "high": 110.0},
                 "T": {"kind": "array", "shape": ("n",), "low": 0.25, "high": 2.0},
                 "sigma": {"kind": "array", "shape": ("n",), "low": 0.1, "high": 0.5},
                 "r": {"kind": "scalar", "value": 0.04}, "steps": {"kind": "scalar", "value": "s"}},
        "sizes": [{"n": 1, "s": 3}, {"n": 200, "s": 200}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
}
