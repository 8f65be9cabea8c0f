"""NumPy reductions as functions and methods, with and without axis."""
# golden-signature: reduce(float32[:, :], int32[:])
import numpy as np
from numba import njit


@njit
def reduce(a, k):
    total = np.sum(a)
    cols = a.sum(axis=0)
    rows = np.mean(a, axis=1)
    big = a.max()
    where = np.argmax(k)
    ints = np.sum(k)
    return total + cols[0] + rows[0] + big + where + ints + np.std(a)
