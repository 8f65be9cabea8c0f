"""Returning nothing, a scalar, an array, and a tuple with an array."""
# golden-signature: fill(float64[:], float64)
# golden-signature: doubled(float64[:, :])
# golden-signature: split(int64[:])
import numpy as np
from numba import njit


@njit
def fill(a, v):
    for i in range(a.shape[0]):
        a[i] = v
    return


@njit
def doubled(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = 2.0 * a[i, j]
    return out


@njit
def split(a):
    evens = np.zeros(a.shape[0], dtype=np.int64)
    count = 0
    for i in range(a.shape[0]):
        if a[i] % 2 == 0:
            evens[count] = a[i]
            count += 1
    return evens, count
