"""NumPy broadcasting by run-time extents: element-wise expressions, stores and in-place
updates whose operands have extents of 1 at run time, and NPBench's 4-D softmax."""

import numpy as np
from numba import njit, prange


@njit
def subtract(x, m):
    return x - m


@njit
def store_difference(x, m, out):
    out[:] = x - m


@njit
def add_into(a, b):
    a += b


@njit(parallel=True)
def subtract_rows(x, m, out):
    for i in prange(x.shape[0]):
        out[i] = x[i] - m


@njit(parallel=True)
def subtract_prefixes(x, m, out):
    for i in prange(x.shape[0]):
        out[i, :i + 1] = x[i, :i + 1] - m


@njit
def softmax4d(x):
    new_shape = (x.shape[0], x.shape[1], x.shape[2], 1)
    tmp_max = np.empty(new_shape, dtype=x.dtype)
    for i in range(x.shape[3]):
        tmp_max[:, :, :, 0] = np.max(x[:, :, :, i])
    tmp_out = np.exp(x - tmp_max)
    tmp_sum = np.reshape(np.sum(tmp_out, axis=-1), new_shape)
    return tmp_out / tmp_sum
