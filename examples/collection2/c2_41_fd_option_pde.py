"""Finite-difference pricing of a European put on the Black-Scholes PDE: explicit scheme with swapped buffers,
backward Euler on the log-price heat equation with a tridiagonal solver. Computational-finance course code.
"""
import numpy as np
from numba import njit


@njit
def solve_tridiagonal(lower, diag, upper, rhs):
    # constant-coefficient tridiagonal system, solved in place in a copy of rhs
    n = rhs.shape[0]
    x = rhs.copy()
    w = np.empty(n)
    w[0] = diag
    for i in range(1, n):
        f = lower / w[i - 1]
        w[i] = diag - f * upper
        x[i] -= f * x[i - 1]
    x[n - 1] /= w[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = (x[i] - upper * x[i + 1]) / w[i]
    return x


@njit
def implicit_heat_put(K, r, sigma, T, xmax, nx, nt):
    # log-price transform turns Black-Scholes into a heat equation; backward Euler in tau
    dx = 2.0 * xmax / nx
    dt = 0.5 * sigma * sigma * T / nt
    k = 2.0 * r / (sigma * sigma)
    x = np.linspace(-xmax, xmax, nx + 1)
    u = np.maximum(np.exp(0.5 * (k - 1) * x) - np.exp(0.5 * (k + 1) * x), 0.0)
    lam = dt / (dx * dx)
    for n in range(nt):
        tau = (n + 1) * dt
        rhs = u[1:nx].copy()
        left = np.exp(0.5 * (k - 1) * x[0] + 0.25 * (k - 1) ** 2 * tau)
        rhs[0] += lam * left
        u[1:nx] = solve_tridiagonal(-lam, 1.0 + 2.0 * lam, -lam, rhs)
        u[0] = left
        u[nx] = 0.0
    S = K * np.exp(x)
    V = K * np.exp(-0.5 * (k - 1) * x - 0.25 * (k + 1) ** 2 * 0.5 * sigma * sigma * T) * u
    return S, V


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
    "implicit_heat_put": {
        "args": {"K": {"kind": "scalar", "value": 100.0}, "r": {"kind": "scalar", "value": 0.05},
                 "sigma": {"kind": "scalar", "value": 0.2}, "T": {"kind": "scalar", "value": 1.0},
                 "xmax": {"kind": "scalar", "value": 3.0}, "nx": {"kind": "scalar", "value": "s"},
                 "nt": {"kind": "scalar", "value": "t"}},
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
