"""range with 1, 2 and 3 arguments, negative steps, and prange in its three spellings."""
import numba
import numba as nb
from numba import njit, prange


@njit
def reverse_copy(a, out):
    n = a.shape[0]
    for i in range(n - 1, -1, -1):
        out[n - 1 - i] = a[i]
    for k in range(0, n, 2):
        out[k] = out[k] * 2.0


@njit(parallel=True)
def scale_all(a, b, c, s):
    for i in prange(a.shape[0]):
        a[i] *= s
    for i in numba.prange(b.shape[0]):
        b[i] *= s
    for i in nb.prange(1, c.shape[0], 3):
        c[i] *= s
