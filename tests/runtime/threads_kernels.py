"""Kernels that tests/runtime/test_threads_fork.py calls from threads and child processes."""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def total(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


@njit
def serial_total(a):
    # Numba runs this loop serially; kpc's parallel reduction must measure faster to be kept
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@njit(parallel=True)
def churn(a, rounds):
    s = 0.0
    for i in prange(a.shape[0]):
        x = a[i]
        for r in range(rounds):
            x = np.sin(x) + 1.0
        s += x
    return s


@njit(parallel=True)
def count_labels(idx, hist):
    for i in prange(idx.shape[0]):
        hist[idx[i]] += 1


@njit
def floor_quotients(a, d):
    s = 0
    for i in range(a.shape[0]):
        s += a[i] // d
    return s
