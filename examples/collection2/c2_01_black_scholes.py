"""European option pricing with Black-Scholes: prices, greeks and a Newton implied-volatility solver.
Written like the pricing notebooks of quantitative-finance courses.
"""
import math

import numpy as np
from numba import njit, prange


@njit(cache=True)
def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@njit(cache=True)
def norm_pdf(x):
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


@njit(cache=True)
def d1_d2(S, K, T, r, sigma):
    sq = sigma * math.sqrt(T)
    d1 = (math.log(S / K) + (r + 0.5 * sigma * sigma) * T) / sq
    return d1, d1 - sq


@njit(parallel=True, fastmath=True)
def bs_price(S, K, T, r, sigma, is_call):
    n = S.shape[0]
    out = np.empty(n)
    for i in prange(n):
        d1, d2 = d1_d2(S[i], K[i], T[i], r, sigma[i])
        disc = math.exp(-r * T[i])
        if is_call[i]:
            out[i] = S[i] * norm_cdf(d1) - K[i] * disc * norm_cdf(d2)
        else:
            out[i] = K[i] * disc * norm_cdf(-d2) - S[i] * norm_cdf(-d1)
    return out


@njit(parallel=True)
def bs_greeks(S, K, T, r, sigma):
    n = S.shape[0]
    greeks = np.zeros((n, 4))
    for i in prange(n):
        d1, d2 = d1_d2(S[i], K[i], T[i], r, sigma[i])
        sqT = math.sqrt(T[i])
        greeks[i, 0] = norm_cdf(d1)
        greeks[i, 1] = norm_pdf(d1) / (S[i] * sigma[i] * sqT)
        greeks[i, 2] = S[i] * norm_pdf(d1) * sqT
        greeks[i, 3] = -S[i] * norm_pdf(d1) * sigma[i] / (2 * sqT) - r * K[i] * math.exp(-r * T[i]) * norm_cdf(d2)
    return greeks


@njit
def call_price(S, K, T, r, sigma):
    d1, d2 = d1_d2(S, K, T, r, sigma)
    return S * norm_cdf(d1) - K * math.exp(-r * T) * norm_cdf(d2)


@njit
def implied_vol(prices, S, K, T, r, tol=1e-8, max_iter=50):
    n = prices.shape[0]
    vols = np.full(n, np.nan)
    for i in range(n):
        sigma = 0.3
        it = 0
        while it < max_iter:
            diff = call_price(S[i], K[i], T[i], r, sigma) - prices[i]
            if abs(diff) < tol:
                vols[i] = sigma
                break
            d1, _ = d1_d2(S[i], K[i], T[i], r, sigma)
            vega = S[i] * norm_pdf(d1) * math.sqrt(T[i])
            if vega < 1e-12:
                break
            sigma -= diff / vega
            if sigma <= 0.0:
                sigma = 1e-4
            it += 1
    return vols


@njit
def bs_price_vectorized(S, K, T, r, sigma):
    sq = sigma * np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / sq
    d2 = d1 - sq
    cdf1 = np.empty_like(d1)
    cdf2 = np.empty_like(d2)
    for i in range(d1.size):
        cdf1[i] = norm_cdf(d1[i])
        cdf2[i] = norm_cdf(d2[i])
    return S * cdf1 - K * np.exp(-r * T) * cdf2


KPC_CASES = {
    "bs_price": {
        "args": {"S": {"kind": "array", "shape": ("n",), "low": 50.0, "high": 150.0},
                 "K": {"kind": "array", "shape": ("n",), "low": 80.0, "high": 120.0},
                 "T": {"kind": "array", "shape": ("n",), "low": 0.1, "high": 2.0},
                 "r": {"kind": "scalar", "value": 0.03},
                 "sigma": {"kind": "array", "shape": ("n",), "low": 0.1, "high": 0.6},
                 "is_call": {"kind": "array", "shape": ("n",), "dtype": "bool"}},
        "sizes": [{"n": 1}, {"n": 1000}, {"n": 1000000}],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
    "bs_greeks": {
        "args": {"S": {"kind": "array", "shape": ("n",), "low": 50.0, "high": 150.0},
                 "K": {"kind": "array", "shape": ("n",), "low": 80.0, "high": 120.0},
                 "T": {"kind": "array", "shape": ("n",), "low": 0.1, "high": 2.0},
                 "r": {"kind": "scalar", "value": 0.03},
                 "sigma": {"kind": "array", "shape": ("n",), "low": 0.1, "high": 0.6}},
        "sizes": [{"n": 1}, {"n": 500000}],
        "layouts": ["C", "strided"],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
    "implied_vol": {
        "args": {"prices": {"kind": "array", "shape": ("n",), "low": 5.0, "high": 30.0},
                 "S": {"kind": "array", "shape": ("n",), "low": 90.0, "high": 110.0},
                 "K": {"kind": "array", "shape": ("n",), "low": 90.0, "high": 110.0},
                 "T": {"kind": "array", "shape": ("n",), "low": 0.5, "high": 2.0},
                 "r": {"kind": "scalar", "value": 0.02},
                 "tol": {"kind": "scalar", "value": 1e-8},
                 "max_iter": {"kind": "scalar", "value": 50}},
        "sizes": [{"n": 1}, {"n": 50000}],
        "rtol": 1e-7,
        "atol": 1e-9,
    },
    "bs_price_vectorized": {
        "args": {"S": {"kind": "array", "shape": ("n",), "low": 50.0, "high": 150.0},
                 "K": {"kind": "array", "shape": ("n",), "low": 80.0, "high": 120.0},
                 "T": {"kind": "array", "shape": ("n",), "low": 0.1, "high": 2.0},
                 "r": {"kind": "scalar", "value": 0.03},
                 "sigma": {"kind": "array", "shape": ("n",), "low": 0.1, "high": 0.6}},
        "sizes": [{"n": 1}, {"n": 500000}],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
}
