"""Scatter updates in parallel loops: the Kokkos target privatizes the arrays a loop only
updates with ``+=`` / ``-=`` (per-thread copies, summed after the loop) and keeps atomics
for the rest."""

import numpy as np
from numba import njit, prange


@njit(parallel=True)
def count_labels(idx, hist):
    for i in prange(idx.shape[0]):
        hist[idx[i]] += 1


@njit(parallel=True)
def signed_counts(idx, sign, out):
    for i in prange(idx.shape[0]):
        if sign[i] > 0:
            out[idx[i]] += 1.0
        else:
            out[idx[i]] -= 0.5


@njit(parallel=True)
def histogram2d(rows, cols, weights, hist):
    for i in prange(rows.shape[0]):
        hist[rows[i], cols[i]] += weights[i]


@njit(parallel=True)
def counts_and_total(idx, weights, hist):
    total = 0.0
    for i in prange(idx.shape[0]):
        hist[idx[i]] += weights[i]
        total += weights[i]
    return total
