"""Numba kernels of the distributed examples (heat_mpi.py, dask_blocks.py): plain Numba code that
kpc builds into a Kokkos module; each example runs them on its own part of the data."""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def heat_step(u, v, alpha):
    """One explicit Euler step of the 2-D heat equation: v's interior from u's five-point stencil."""
    for i in prange(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            v[i, j] = u[i, j] + alpha * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])


@njit(parallel=True)
def smooth_energy(block):
    """A block-wise kernel: each element replaced by exp(-x^2) * sqrt(1 + x^2), a few flops per
    byte, so that blocks are compute-bound enough to scale over workers."""
    out = np.empty_like(block)
    for i in prange(block.shape[0]):
        for j in range(block.shape[1]):
            x = block[i, j]
            s = 0.0
            for k in range(8):
                s += np.exp(-x * x * (k + 1)) * np.sqrt(1.0 + x * x * k)
            out[i, j] = s
    return out
