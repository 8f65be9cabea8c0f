"""Tuple unpacking, swaps and returning tuples."""
# golden-signature: minmax(float64[:])
# golden-signature: fib(int64)
from numba import njit


@njit
def minmax(a):
    lo, hi = a[0], a[0]
    for i in range(1, a.shape[0]):
        if a[i] < lo:
            lo = a[i]
        if a[i] > hi:
            hi = a[i]
    return lo, hi


@njit
def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
