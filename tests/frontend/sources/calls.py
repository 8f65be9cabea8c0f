"""Kernels calling kernels: positional and keyword arguments, defaults, a helper used twice."""
# golden-signature: run(float64[:], float64[:])
from numba import njit


@njit
def axpy_one(a, x, y=0.0):
    return a * x + y


@njit
def saxpy(a, x, y, out):
    for i in range(x.shape[0]):
        out[i] = axpy_one(a, x[i], y=y[i])


@njit
def run(x, out):
    saxpy(2.0, x, x, out)
    return axpy_one(1.5, out[0]) + axpy_one(x=out[1], a=0.5)
