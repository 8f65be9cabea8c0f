"""Kernels for test_order_routines.py: argsort orders of equal keys, percentile errors, NaNs."""
import numpy as np
from numba import njit, prange


@njit
def argsort_default(x):
    return np.argsort(x)


@njit
def argsort_method(x):
    return x.argsort(kind="quicksort")


@njit
def percentile(x, q):
    return np.percentile(x, q)


@njit
def quantile(x, q):
    return np.quantile(x, q)


@njit
def percentiles(x, qs):
    return np.percentile(x, qs)


@njit
def median(x):
    return np.median(x)


@njit(parallel=True)
def row_percentiles(m, q):
    out = np.empty(m.shape[0])
    for i in prange(m.shape[0]):
        out[i] = np.percentile(m[i], q)
    return out


@njit
def argsort_heapsort(x):
    return np.argsort(x, kind="heapsort")


@njit(parallel=True)
def window_medians(x):
    out = np.zeros(x.shape[0])
    for i in prange(2, x.shape[0] - 2):
        out[i] = np.median(x[i - 2:i + 3])
    return out
