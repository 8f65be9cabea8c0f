"""Some kernels kpc cannot translate: each is recorded with its diagnostic, the rest translate."""
import numpy as np
from numba import njit


def plain_python(x):
    return x + 1


@njit
def fine(a):
    return a[0] * 2.0


@njit
def uses_list(n):
    xs = [i for i in range(n)]
    return len(xs)


@njit
def calls_python(x):
    return plain_python(x)


@njit
def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


@njit
def calls_rejected(n):
    return factorial(n) + 1


@njit(forceobj=True)
def object_mode(x):
    return x
