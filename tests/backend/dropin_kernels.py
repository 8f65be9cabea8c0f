"""Kernels for the drop-in module tests: a docstring, a default argument, a function kpc
cannot translate (it stays Numba), and functions compiled on first call."""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def scaled_sum(x, factor=2.0):
    """Sum of ``factor * x``."""
    s = 0.0
    for i in prange(x.shape[0]):
        s += factor * x[i]
    return s


@njit
def normalized(x):
    """A new array: ``x / x.max()`` computed with explicit loops."""
    out = np.empty(x.shape[0])
    top = x[0]
    for i in range(x.shape[0]):
        top = max(top, x[i])
    for i in range(x.shape[0]):
        out[i] = x[i] / top
    return out


@njit
def with_list(n):
    items = [i * i for i in range(n)]
    return len(items)
