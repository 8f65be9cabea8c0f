"""Monte-Carlo estimate of pi and 2-D random walks (mean squared displacement).

As in intro-to-Numba blog posts. `mc_pi` and `random_walks` draw from np.random (kpc's random
stream differs), so they are NOT in KPC_CASES; `mc_pi_given` / `walk_msd_given` take pre-drawn samples.
"""
import random
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def mc_pi(nsamples):
    acc = 0
    for i in prange(nsamples):
        x = random.random()
        y = random.random()
        if x * x + y * y < 1.0:
            acc += 1
    return 4.0 * acc / nsamples


@njit
def random_walks(nwalkers, nsteps):
    pos = np.zeros((nwalkers, 2))
    msd = np.zeros(nsteps)
    for t in range(nsteps):
        angles = np.random.uniform(0.0, 2 * np.pi, nwalkers)
        pos[:, 0] += np.cos(angles)
        pos[:, 1] += np.sin(angles)
        msd[t] = np.mean(pos[:, 0] ** 2 + pos[:, 1] ** 2)
    return msd


@njit(parallel=True)
def mc_pi_given(xy):
    n = xy.shape[0]
    inside = 0
    for i in prange(n):
        if xy[i, 0] ** 2 + xy[i, 1] ** 2 < 1.0:
            inside += 1
    return 4.0 * inside / n


@njit
def walk_msd_given(steps):
    # steps: (nsteps, nwalkers) array of +-1-ish increments along x; returns MSD per step
    paths = np.cumsum(steps, axis=0)
    return (paths ** 2).sum(axis=1) / steps.shape[1]


KPC_CASES = {
    "mc_pi_given": {
        "args": {"xy": {"kind": "array", "shape": ("n", 2), "low": 0.0, "high": 1.0}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 1000}],
    },
    "walk_msd_given": {
        "args": {"steps": ("t", "w")},
        "dtypes": ["float64"],
        "sizes": [{"t": 1, "w": 1}, {"t": 50, "w": 30}],
        "rtol": 1e-10,
    },
}
