"""Decorator spellings and options; eager signatures as strings, type objects and lists."""
import numba
import numba as nb
from numba import float64, int64, jit, njit


@njit(fastmath=True, cache=True, nogil=True, boundscheck=False)
def a(x):
    return x + 1.0


@nb.njit("f8(f8[:, :], i8)")
def b(m, i):
    return m[i, 0]


@numba.jit(nopython=True, parallel=True)
def c(v):
    return v[0]


@jit
def d(x):
    return x * 2


@jit(float64(float64[:], int64))
def e(v, k):
    return v[k]


@njit(["f4(f4)", "f8(f8)"], error_model="numpy")
def f(x):
    return x / 2


@numba.njit(locals={"acc": numba.float32})
def g(v):
    acc = 0.0
    for i in range(v.shape[0]):
        acc += v[i]
    return acc
