"""1-D Jacobi relaxation written with NumPy slices (PolyBench jacobi-1d).

Exercises: `B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])` and the
symmetric update of `A` from `B`, repeated `tsteps` times in a serial
time loop, both arrays updated in place; plus a variant that rebinds
names to swap buffers (`A, B = B, A`), which returns the final array.
"""
import numpy as np
from numba import njit


@njit
def jacobi_1d(tsteps, A, B):
    for t in range(tsteps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


@njit
def jacobi_1d_swap(tsteps, u):
    a = u.copy()
    b = np.empty_like(u)
    b[0] = a[0]
    b[-1] = a[-1]
    for t in range(tsteps):
        b[1:-1] = 0.5 * (a[:-2] + a[2:])
        a, b = b, a
    return a


KPC_CASES = {
    "jacobi_1d": {
        "args": {"tsteps": {"kind": "scalar", "value": "t"}, "A": ("n",), "B": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"t": 0, "n": 3}, {"t": 1, "n": 2}, {"t": 3, "n": 7}, {"t": 5, "n": 100}],
        "writes": ["A", "B"],
        "layouts": ["C", "strided"],
    },
    "jacobi_1d_swap": {
        "args": {"tsteps": {"kind": "scalar", "value": "t"}, "u": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"t": 0, "n": 2}, {"t": 4, "n": 33}],
        "layouts": ["C", "strided"],
    },
}
