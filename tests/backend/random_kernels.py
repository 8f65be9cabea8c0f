"""Kernels that draw with np.random (and Python's random module), for test_random.py. Not corpus files: their streams
are not Numba's, so they are compared by distribution, not bit for bit."""

import random

import numpy as np
from numba import njit, prange

RANDOM = 0
RAND = 1
UNIFORM = 2
NORMAL = 3
STANDARD_NORMAL = 4
RANDN = 5
RANDINT = 6
RANDOM_SAMPLE = 7


@njit
def draw(which, a, b):
    """One draw of the function numbered ``which`` (a, b: its parameters), as a float."""
    if which == RANDOM:
        return np.random.random()
    if which == RAND:
        return np.random.rand()
    if which == UNIFORM:
        return np.random.uniform(a, b)
    if which == NORMAL:
        return np.random.normal(a, b)
    if which == STANDARD_NORMAL:
        return np.random.standard_normal()
    if which == RANDN:
        return np.random.randn()
    if which == RANDINT:
        return float(np.random.randint(int(a), int(b)))
    return np.random.random_sample()


@njit
def serial_draws(n, seed, which, a, b):
    np.random.seed(seed)
    out = np.empty(n)
    for i in range(n):
        out[i] = draw(which, a, b)
    return out


@njit(parallel=True)
def parallel_draws(n, seed, which, a, b):
    np.random.seed(seed)
    out = np.empty(n)
    for i in prange(n):
        if which == RANDOM:
            out[i] = np.random.random()
        elif which == RAND:
            out[i] = np.random.rand()
        elif which == UNIFORM:
            out[i] = np.random.uniform(a, b)
        elif which == NORMAL:
            out[i] = np.random.normal(loc=a, scale=b)
        elif which == STANDARD_NORMAL:
            out[i] = np.random.standard_normal()
        elif which == RANDN:
            out[i] = np.random.randn()
        elif which == RANDINT:
            out[i] = np.random.randint(int(a), int(b))
        else:
            out[i] = np.random.random_sample()
    return out


@njit(parallel=True)
def parallel_helper_draws(n, seed, which, a, b):
    np.random.seed(seed)
    out = np.empty(n)
    for i in prange(n):
        out[i] = draw(which, a, b)
    return out


@njit
def array_draws(n, seed):
    np.random.seed(seed)
    return (np.random.random(n), np.random.normal(2.0, 3.0, size=n), np.random.uniform(-1.0, 1.0, (n, 2)),
            np.random.randint(3, 9, n), np.random.rand(n, 2), np.random.randn(n),
            np.random.standard_normal(size=n))


@njit
def shifted(n, seed):
    np.random.seed(seed)
    return np.zeros(n) + np.random.random()


@njit
def unseeded(n):
    out = np.empty(n)
    for i in range(n):
        out[i] = np.random.random()
    return out


@njit
def reseed(seed):
    np.random.seed(seed)


@njit
def next_draw():
    return np.random.random()


@njit
def randint_between(low, high):
    return np.random.randint(low, high)


@njit(parallel=True)
def python_random_draws(n, seed):
    random.seed(seed)
    out = np.empty((n, 4))
    for i in prange(n):
        out[i, 0] = random.random()
        out[i, 1] = random.uniform(-2.0, 3.0)
        out[i, 2] = random.gauss(1.5, 0.5)
        out[i, 3] = random.randint(-3, 3)
    return out


@njit
def shuffled(x, seed):
    np.random.seed(seed)
    y = x.copy()
    np.random.shuffle(y)
    z = x.copy()
    random.shuffle(z)
    return y, z
