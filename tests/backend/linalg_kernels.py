"""Kernels whose np.linalg / np.histogram / np.cov calls raise, for test_linalg.py."""
import numpy as np
from numba import njit, prange


@njit
def solve(a, b):
    return np.linalg.solve(a, b)


@njit
def inverse(a):
    return np.linalg.inv(a)


@njit
def factor(a):
    return np.linalg.cholesky(a)


@njit
def histogram(x, nbins):
    return np.histogram(x, bins=nbins)


@njit
def histogram_between(x, nbins, lo, hi):
    return np.histogram(x, bins=nbins, range=(lo, hi))


@njit
def histogram_edges(x, edges):
    return np.histogram(x, edges)


@njit
def covariance(m):
    return np.cov(m)


@njit
def covariance_xy(m, y):
    return np.cov(m, y)


@njit
def covariance_columns(m, y):
    return np.cov(m, y, rowvar=False)


@njit(parallel=True)
def inverses(a, out):
    for i in prange(a.shape[0]):
        out[i] = np.linalg.inv(a[i])
