"""Finite-difference pricing of a European put on the Black-Scholes PDE: explicit scheme with swapped buffers,
implicit/Crank-Nicolson steps with a Thomas tridiagonal solver. Computational-finance course code.
"""
import numpy as np
from numba import njit


@njit
def thomas(a, b, c, d):
    n = d.shape[0]
    cp = np.empty(n)
    dp = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.empty(n)
    x[n - 1] = dp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


@njit
def explicit_put(K, r, sigma, T, Smax, nS, nT):
    dS = Smax / nS
    dt = T / nT
    S = np.linspace(0.0, Smax, nS + 1)
    V = np.maximum(K - S, 0.0)
    Vn = np.empty_like(V)
    for n in range(nT):
        tau = (n + 1) * dt
        for i in range(1, nS):
            delta = (V[i + 1] - V[i - 1]) / (2 * dS)
            gamma = (V[i + 1] - 2 * V[i] + V[i - 1]) / (dS * dS)
            Vn[i] = V[i] + dt * (0.5 * sigma ** 2 * S[i] ** 2 * gamma + r * S[i] * delta - r * V[i])
        Vn[0] = K * np.exp(-r * tau)
        Vn[nS] = 0.0
        V, Vn = Vn, V
    return S, V


@njit
def crank_nicolson_put(K, r, sigma, T, Smax, nS, nT):
    dt = T / nT
    S = np.linspace(0.0, Smax, nS + 1)
    j = np.arange(nS + 1).astype(np.float64)
    alpha = 0.25 * dt * (sigma ** 2 * j ** 2 - r * j)
    beta = -0.5 * dt * (sigma ** 2 * j ** 2 + r)
    gamma = 0.25 * dt * (sigma ** 2 * j ** 2 + r * j)
    V = np.maximum(K - S, 0.0)
    a = -alpha[1:nS]
    b = 1.0 - beta[1:nS]
    c = -gamma[1:nS]
    for n in range(nT):
        tau = (n + 1) * dt
        rhs = alpha[1:nS] * V[0:nS - 1] + (1.0 + beta[1:nS]) * V[1:nS] + gamma[1:nS] * V[2:nS + 1]
        left = K * np.exp(-r * tau)
        rhs[0] += alpha[1] * left
        V[1:nS] = thomas(a, b, c, rhs)
        V[0] = left
        V[nS] = 0.0
    return V


@njit
def price_at(S_grid, V, S0):
    return np.interp(S0, S_grid, V)


@njit
def explicit_put_at(K, r, sigma, T, Smax, nS, nT, S0):
    S, V = explicit_put(K, r, sigma, T, Smax, nS, nT)
    return price_at(S, V, S0)


KPC_CASES = {
    "explicit_put": {
        "args": {"K": {"kind": "scalar", "value": 100.0}, "r": {"kind": "scalar", "value": 0.05},
                 "sigma": {"kind": "scalar", "value": 0.2}, "T": {"kind": "scalar", "value": 1.0},
                 "Smax": {"kind": "scalar", "value": 300.0}, "nS": {"kind": "scalar", "value": "s"},
                 "nT": {"kind": "scalar", "value": "t"}},
        "sizes": [{"s": 2, "t": 1}, {"s": 20, "t": 100}, {"s": 800, "t": 60000}],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
    "crank_nicolson_put": {
        "args": {"K": {"kind": "scalar", "value": 100.0}, "r": {"kind": "scalar", "value": 0.05},
                 "sigma": {"kind": "scalar", "value": 0.2}, "T": {"kind": "scalar", "value": 1.0},
                 "Smax": {"kind": "scalar", "value": 300.0}, "nS": {"kind": "scalar", "value": "s"},
                 "nT": {"kind": "scalar", "value": "t"}},
        "sizes": [{"s": 3, "t": 1}, {"s": 20, "t": 10}, {"s": 1000, "t": 1000}],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
    "explicit_put_at": {
        "args": {"K": {"kind": "scalar", "value": 100.0}, "r": {"kind": "scalar", "value": 0.05},
                 "sigma": {"kind": "scalar", "value": 0.2}, "T": {"kind": "scalar", "value": 1.0},
                 "Smax": {"kind": "scalar", "value": 300.0}, "nS": {"kind": "scalar", "value": "s"},
                 "nT": {"kind": "scalar", "value": "t"}, "S0": {"kind": "scalar", "value": 100.0}},
        "sizes": [{"s": 2, "t": 1}, {"s": 600, "t": 40000}],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
}
