"""Historical and parametric Value-at-Risk, expected shortfall and drawdowns of portfolios.
Risk-management style code: returns matrix times weights, sorting, quantiles.
"""
import math

import numpy as np
from numba import njit, prange


@njit
def portfolio_returns(R, w):
    return R @ w


@njit
def historical_var(returns, alpha):
    losses = np.sort(-returns)
    k = int(math.ceil((1.0 - alpha) * losses.shape[0])) - 1
    k = min(max(k, 0), losses.shape[0] - 1)
    var = losses[k]
    tail = losses[k:]
    es = tail.mean()
    return var, es


@njit
def var_quantile(returns, alpha):
    return -np.quantile(returns, 1.0 - alpha)


@njit(parallel=True)
def rolling_var(returns, window, alpha):
    n = returns.shape[0]
    out = np.full(n, np.nan)
    for t in prange(window - 1, n):
        seg = np.sort(returns[t - window + 1:t + 1])
        k = int((1.0 - alpha) * window)
        out[t] = -seg[k]
    return out


@njit
def max_drawdown(prices):
    peak = prices[0]
    mdd = 0.0
    start = 0
    best_start = 0
    best_end = 0
    for i in range(prices.shape[0]):
        if prices[i] > peak:
            peak = prices[i]
            start = i
        dd = (peak - prices[i]) / peak
        if dd > mdd:
            mdd = dd
            best_start = start
            best_end = i
    return mdd, best_start, best_end


@njit
def parametric_var(R, w, z):
    mu = np.zeros(R.shape[1])
    for j in range(R.shape[1]):
        mu[j] = R[:, j].mean()
    X = R - mu
    cov = X.T @ X / (R.shape[0] - 1)
    sigma = math.sqrt(w @ cov @ w)
    return -(w @ mu) + z * sigma


KPC_CASES = {
    "portfolio_returns": {
        "args": {"R": {"kind": "array", "shape": ("n", "k"), "low": -0.05, "high": 0.05}, "w": ("k",)},
        "sizes": [{"n": 1, "k": 1}, {"n": 200000, "k": 20}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "historical_var": {
        "args": {"returns": {"kind": "array", "shape": ("n",), "low": -0.05, "high": 0.05},
                 "alpha": {"kind": "scalar", "value": 0.99}},
        "sizes": [{"n": 1}, {"n": 100}, {"n": 200000}],
        "layouts": ["C", "strided"],
        "rtol": 1e-10,
    },
    "var_quantile": {
        "args": {"returns": {"kind": "array", "shape": ("n",), "low": -0.05, "high": 0.05},
                 "alpha": {"kind": "scalar", "value": 0.95}},
        "sizes": [{"n": 1}, {"n": 100}, {"n": 500000}],
        "rtol": 1e-10,
    },
    "rolling_var": {
        "args": {"returns": {"kind": "array", "shape": ("n",), "low": -0.05, "high": 0.05},
                 "window": {"kind": "scalar", "value": "w"}, "alpha": {"kind": "scalar", "value": 0.95}},
        "sizes": [{"n": 10, "w": 4}, {"n": 3000, "w": 200}],
    },
    "max_drawdown": {
        "args": {"prices": {"kind": "array", "shape": ("n",), "low": 50.0, "high": 150.0}},
        "sizes": [{"n": 1}, {"n": 1000}, {"n": 2000000}],
        "layouts": ["C", "strided"],
        "rtol": 1e-12,
    },
    "parametric_var": {
        "args": {"R": {"kind": "array", "shape": ("n", "k"), "low": -0.05, "high": 0.05}, "w": ("k",),
                 "z": {"kind": "scalar", "value": 2.326}},
        "sizes": [{"n": 2, "k": 1}, {"n": 100000, "k": 30}],
        "rtol": 1e-8,
        "atol": 1e-12,
    },
}
