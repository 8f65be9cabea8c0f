"""2-D Jacobi iteration with NumPy slices (PolyBench jacobi-2d).

Exercises: `B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + ...)`
with five shifted 2-D slices, ping-pong between two arrays in a time
loop, and a Laplace solver step that writes `A[1:-1, 1:-1]` from four
shifted slices of itself and returns the max change (`np.max(np.abs(...))`).
"""
import numpy as np
from numba import njit


@njit
def jacobi_2d(tsteps, A, B):
    for t in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


@njit
def laplace_step(A):
    old = A[1:-1, 1:-1].copy()
    A[1:-1, 1:-1] = 0.25 * (A[:-2, 1:-1] + A[2:, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:])
    return np.max(np.abs(A[1:-1, 1:-1] - old))


KPC_CASES = {
    "jacobi_2d": {
        "args": {"tsteps": {"kind": "scalar", "value": "t"}, "A": ("n", "n"), "B": ("n", "n")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"t": 1, "n": 2}, {"t": 2, "n": 7}, {"t": 4, "n": 33}],
        "writes": ["A", "B"],
        "layouts": ["C", "F", "strided"],
    },
    "laplace_step": {
        "args": {"A": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "m": 3}, {"n": 7, "m": 5}, {"n": 33, "m": 20}],
        "writes": ["A"],
        "layouts": ["C", "F", "strided"],
    },
}
