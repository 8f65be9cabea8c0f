"""Matrix-matrix products written with explicit loops.

Exercises: a triple loop nest in i-k-j order accumulating into a freshly
allocated `np.zeros((n, m))` result, parallel over rows; the textbook
i-j-k order with a scalar accumulator writing into a caller-provided
output; the k loop bound taken from the other operand's shape.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def matmul_ikj(A, B):
    n, p = A.shape
    m = B.shape[1]
    C = np.zeros((n, m), dtype=A.dtype)
    for i in prange(n):
        for k in range(p):
            a = A[i, k]
            for j in range(m):
                C[i, j] += a * B[k, j]
    return C


@njit
def matmul_into(A, B, C):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            s = 0.0
            for k in range(B.shape[0]):
                s += A[i, k] * B[k, j]
            C[i, j] = s


KPC_CASES = {
    "matmul_ikj": {
        "args": {"A": ("n", "p"), "B": ("p", "m")},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 0, "p": 2, "m": 3}, {"n": 1, "p": 1, "m": 1}, {"n": 7, "p": 5, "m": 3}, {"n": 20, "p": 33, "m": 9}],
        "layouts": ["C", "F", "strided"],
    },
    "matmul_into": {
        "args": {"A": ("n", "p"), "B": ("p", "m"), "C": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "p": 0, "m": 0}, {"n": 3, "p": 0, "m": 2}, {"n": 7, "p": 5, "m": 3}, {"n": 17, "p": 20, "m": 9}],
        "writes": ["C"],
        "layouts": ["C", "F", "strided"],
    },
}
