"""Reductions over enough iterations for several chunks of kpc::reduce_chunk (tests/backend/kokkos)."""
from numba import njit, prange


@njit(parallel=True)
def stats(x):
    s = 0.0
    lo = x[0]
    hi = x[0]
    for i in prange(x.shape[0]):
        s += x[i]
        lo = min(lo, x[i])
        hi = max(hi, x[i])
    return s, lo, hi


@njit(parallel=True)
def int_sum_and_product(x):
    s = 0
    p = 1
    for i in prange(x.shape[0]):
        s += x[i]
        p *= 1 + (x[i] == 0)
    return s, p


@njit(parallel=True)
def stepped_sum(x):
    s = 0.0
    for i in prange(3, x.shape[0], 2):
        s += x[i]
    return s
