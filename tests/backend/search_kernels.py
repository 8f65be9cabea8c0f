"""Kernels of tests/backend/test_searches.py: searches of sorted data on arguments where Numba raises."""
import numpy as np
from numba import njit, prange


@njit
def digitize(x, bins):
    return np.digitize(x, bins)


@njit
def digitize_one(x, bins):
    return np.digitize(x, bins, True)


@njit(parallel=True)
def digitize_each(x, bins):
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in prange(x.shape[0]):
        out[i] = np.digitize(x[i], bins)
    return out


@njit
def interp(x, xp, fp):
    return np.interp(x, xp, fp)


@njit
def interp_one(x, xp, fp):
    return np.interp(x, xp, fp)
