"""Kernels of tests/backend/test_array_functions.py: NumPy array functions on arguments where Numba raises."""
import numpy as np
from numba import njit


@njit
def convolve(a, v):
    return np.convolve(a, v)


@njit
def convolve_valid(a, v):
    return np.convolve(a, v, "valid")


@njit
def bincount(x, minlength):
    return np.bincount(x, minlength=minlength)


@njit
def weighted_bincount(x, w):
    return np.bincount(x, w)


@njit
def every(a, step):
    return a[1::step].sum()


@njit
def thin_out(a, step):
    a[::step] = 0.0
    return a



@njit
def kron(a, b):
    return np.kron(a, b)
