"""Monte-Carlo simulation of geometric Brownian motion paths and path-dependent payoffs.
`simulate_gbm` draws from np.random (kpc's random stream differs) so it is not in KPC_CASES;
the other kernels take pre-drawn standard normals, the way reproducible pricing code does.
"""
import math

import numpy as np
from numba import njit, prange


@njit
def simulate_gbm(S0, mu, sigma, T, nsteps, npaths, seed):
    np.random.seed(seed)
    dt = T / nsteps
    paths = np.empty((npaths, nsteps + 1))
    paths[:, 0] = S0
    for i in range(npaths):
        for t in range(nsteps):
            z = np.random.standard_normal()
            paths[i, t + 1] = paths[i, t] * math.exp((mu - 0.5 * sigma ** 2) * dt + sigma * math.sqrt(dt) * z)
    return paths


@njit(parallel=True)
def gbm_paths(S0, mu, sigma, T, Z):
    npaths, nsteps = Z.shape
    dt = T / nsteps
    drift = (mu - 0.5 * sigma * sigma) * dt
    vol = sigma * np.sqrt(dt)
    paths = np.empty((npaths, nsteps + 1))
    for i in prange(npaths):
        paths[i, 0] = S0
        for t in range(nsteps):
            paths[i, t + 1] = paths[i, t] * np.exp(drift + vol * Z[i, t])
    return paths


@njit
def gbm_paths_cumsum(S0, mu, sigma, T, Z):
    npaths, nsteps = Z.shape
    dt = T / nsteps
    increments = (mu - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * Z
    log_paths = np.cumsum(increments, axis=1)
    return S0 * np.exp(log_paths)


@njit(parallel=True)
def asian_call(S0, K, r, sigma, T, Z):
    npaths, nsteps = Z.shape
    dt = T / nsteps
    payoff_sum = 0.0
    for i in prange(npaths):
        s = S0
        avg = 0.0
        for t in range(nsteps):
            s *= math.exp((r - 0.5 * sigma * sigma) * dt + sigma * math.sqrt(dt) * Z[i, t])
            avg += s
        avg /= nsteps
        payoff_sum += max(avg - K, 0.0)
    return math.exp(-r * T) * payoff_sum / npaths


@njit
def barrier_up_and_out(S0, K, B, r, sigma, T, Z):
    npaths, nsteps = Z.shape
    dt = T / nsteps
    payoffs = np.zeros(npaths)
    for i in range(npaths):
        s = S0
        knocked = False
        for t in range(nsteps):
            s = s * math.exp((r - 0.5 * sigma * sigma) * dt + sigma * math.sqrt(dt) * Z[i, t])
            if s >= B:
                knocked = True
                break
        if not knocked:
            payoffs[i] = max(s - K, 0.0)
    price = math.exp(-r * T) * payoffs.mean()
    stderr = payoffs.std() / math.sqrt(npaths)
    return price, stderr


KPC_CASES = {
    "gbm_paths": {
        "args": {"S0": {"kind": "scalar", "value": 100.0}, "mu": {"kind": "scalar", "value": 0.05},
                 "sigma": {"kind": "scalar", "value": 0.2}, "T": {"kind": "scalar", "value": 1.0},
                 "Z": {"kind": "array", "shape": ("p", "t"), "low": -3.0, "high": 3.0}},
        "sizes": [{"p": 1, "t": 1}, {"p": 20000, "t": 100}],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
    },
    "gbm_paths_cumsum": {
        "args": {"S0": {"kind": "scalar", "value": 100.0}, "mu": {"kind": "scalar", "value": 0.05},
                 "sigma": {"kind": "scalar", "value": 0.2}, "T": {"kind": "scalar", "value": 1.0},
                 "Z": {"kind": "array", "shape": ("p", "t"), "low": -3.0, "high": 3.0}},
        "sizes": [{"p": 1, "t": 1}, {"p": 10000, "t": 100}],
        "rtol": 1e-9,
    },
    "asian_call": {
        "args": {"S0": {"kind": "scalar", "value": 100.0}, "K": {"kind": "scalar", "value": 100.0},
                 "r": {"kind": "scalar", "value": 0.03}, "sigma": {"kind": "scalar", "value": 0.25},
                 "T": {"kind": "scalar", "value": 1.0},
                 "Z": {"kind": "array", "shape": ("p", "t"), "low": -3.0, "high": 3.0}},
        "sizes": [{"p": 1, "t": 1}, {"p": 50000, "t": 64}],
        "rtol": 1e-9,
    },
    "barrier_up_and_out": {
        "args": {"S0": {"kind": "scalar", "value": 100.0}, "K": {"kind": "scalar", "value": 100.0},
                 "B": {"kind": "scalar", "value": 130.0}, "r": {"kind": "scalar", "value": 0.03},
                 "sigma": {"kind": "scalar", "value": 0.25}, "T": {"kind": "scalar", "value": 1.0},
                 "Z": {"kind": "array", "shape": ("p", "t"), "low": -3.0, "high": 3.0}},
        "sizes": [{"p": 1, "t": 1}, {"p": 2, "t": 5}, {"p": 30000, "t": 100}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
}
