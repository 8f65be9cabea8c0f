"""Dense matrix multiply three ways: the naive triple loop, a parallel i-k-j loop, and NumPy's `@` / `np.dot`.
The kind of code found in "Numba vs NumPy" tutorials and benchmark notebooks.
"""
import numpy as np
import numba
from numba import njit, prange


@njit
def matmul_naive(A, B):
    n, k = A.shape
    m = B.shape[1]
    C = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            acc = 0.0
            for p in range(k):
                acc += A[i, p] * B[p, j]
            C[i, j] = acc
    return C


@njit(parallel=True)
def matmul_ikj(A, B, C):
    # i-k-j order: the inner loop walks rows of B and C contiguously
    for i in prange(A.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] = 0.0
        for p in range(A.shape[1]):
            a = A[i, p]
            for j in range(B.shape[1]):
                C[i, j] += a * B[p, j]


@numba.jit(nopython=True)
def gram_and_trace(X):
    G = X.T @ X
    t = 0.0
    for i in range(G.shape[0]):
        t += G[i, i]
    return G, t


@njit
def normalized_matvec(A, x):
    y = np.dot(A, x)
    return y / np.sqrt(np.dot(y, y))


KPC_CASES = {
    "matmul_naive": {
        "args": {"A": ("n", "k"), "B": ("k", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "k": 4, "m": 5}, {"n": 40, "k": 33, "m": 20}],
        "rtol": {"float32": 1e-4},
    },
    "matmul_ikj": {
        "args": {"A": ("n", "k"), "B": ("k", "m"), "C": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "k": 4, "m": 5}, {"n": 40, "k": 33, "m": 20}],
        "writes": ["C"],
    },
    "gram_and_trace": {
        "args": {"X": ("n", "k")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 5, "k": 3}, {"n": 50, "k": 12}],
        "rtol": {"float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-5},
    },
    "normalized_matvec": {
        "args": {"A": ("n", "k"), "x": ("k",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "k": 3}, {"n": 60, "k": 25}],
        "layouts": ["C", "F"],
    },
}
