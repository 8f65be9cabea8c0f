"""Nested parallelism: a `prange` whose body runs inner `prange` loops or inner reductions.

Exercises: a row-wise softmax whose rows reduce a max and a sum over long inner loops;
a matrix-vector product and a row-norm sum whose dot products are inner `prange`
reductions (the second one adds into a reduction of the outer loop); a 2-level
nested-prange stencil with a per-row coefficient (not a perfect nest, so not an MDRange)
and the perfectly nested one (an MDRange); rows centred in place (a reduction, then
writes that need its result); two reductions in one inner loop (integer and float); a
triangular inner reduction into the outer reduction variable; and inner loops that must
stay serial (a running sum, a constant trip count of 3). The Kokkos target runs the
first kinds as TeamPolicy regions (one team per row, the inner loops across the team's
threads); results must equal Numba's up to the reassociation of reductions.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def softmax_rows(x):
    n, m = x.shape
    out = np.empty((n, m))
    for i in prange(n):
        top = x[i, 0]
        for j in range(m):
            top = max(top, x[i, j])
        s = 0.0
        for j in prange(m):
            e = np.exp(x[i, j] - top)
            out[i, j] = e
            s += e
        for j in prange(m):
            out[i, j] /= s
    return out


@njit(parallel=True)
def matvec_nested(A, x):
    n, m = A.shape
    y = np.empty(n)
    for i in prange(n):
        acc = 0.0
        for j in prange(m):
            acc += A[i, j] * x[j]
        y[i] = acc
    return y


@njit(parallel=True)
def row_norm_sum(A):
    total = 0.0
    for i in prange(A.shape[0]):
        row = 0.0
        for j in prange(A.shape[1]):
            row += A[i, j] * A[i, j]
        total += np.sqrt(row)
    return total


@njit(parallel=True)
def scaled_laplacian(u, w, out):
    n, m = u.shape
    for i in prange(1, n - 1):
        c = w[i]
        for j in prange(1, m - 1):
            out[i, j] = c * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])


@njit(parallel=True)
def laplacian(u, out):
    n, m = u.shape
    for i in prange(1, n - 1):
        for j in prange(1, m - 1):
            out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@njit(parallel=True)
def center_rows(x):
    m = x.shape[1]
    for i in prange(x.shape[0]):
        s = 0.0
        for j in range(m):
            s += x[i, j]
        mean = s / m
        for j in prange(m):
            x[i, j] -= mean


@njit(parallel=True)
def row_ranges(x):
    n, m = x.shape
    out = np.zeros(n, dtype=x.dtype)
    for i in prange(n):
        lo = x[i, 0]
        hi = x[i, 0]
        for j in range(1, m):
            lo = min(lo, x[i, j])
            hi = max(hi, x[i, j])
        out[i] = hi - lo
    return out


@njit(parallel=True)
def upper_sum(A):
    s = 0.0
    for i in prange(A.shape[0]):
        for j in range(i, A.shape[1]):
            s += A[i, j]
    return s


@njit(parallel=True)
def running_rows(x):
    n, m = x.shape
    out = np.empty((n, m))
    for i in prange(n):
        acc = 0.0
        for j in range(m):
            acc += x[i, j]
            out[i, j] = acc
        for k in range(3):
            out[i, 0] += k
    return out


KPC_CASES = {
    "softmax_rows": {
        "args": {"x": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 1, "m": 300}, {"n": 3, "m": 257}, {"n": 40, "m": 70}],
        "layouts": ["C", "F", "strided"],
    },
    "matvec_nested": {
        "args": {"A": ("n", "m"), "x": ("m",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 1, "m": 0}, {"n": 1, "m": 500}, {"n": 3, "m": 129}, {"n": 50, "m": 40}],
        "layouts": ["C", "F", "strided"],
    },
    "row_norm_sum": {
        "args": {"A": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 0, "m": 2}, {"n": 1, "m": 400}, {"n": 3, "m": 100}, {"n": 64, "m": 33}],
        "layouts": ["C", "strided"],
    },
    "scaled_laplacian": {
        "args": {"u": ("n", "m"), "w": ("n",), "out": ("n", "m")},
        "writes": ["out"],
        "dtypes": ["float64"],
        "sizes": [{"n": 2, "m": 2}, {"n": 3, "m": 300}, {"n": 5, "m": 80}, {"n": 40, "m": 50}],
        "layouts": ["C", "F", "strided"],
    },
    "laplacian": {
        "args": {"u": ("n", "m"), "out": ("n", "m")},
        "writes": ["out"],
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "m": 3}, {"n": 30, "m": 41}],
        "layouts": ["C"],
    },
    "center_rows": {
        "args": {"x": ("n", "m")},
        "writes": ["x"],
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 1, "m": 500}, {"n": 3, "m": 200}, {"n": 33, "m": 65}],
        "layouts": ["C", "strided"],
    },
    "row_ranges": {
        "args": {"x": ("n", "m")},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 1, "m": 600}, {"n": 3, "m": 100}, {"n": 20, "m": 45}],
        "layouts": ["C", "F"],
    },
    "upper_sum": {
        "args": {"A": ("n", "m")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0, "m": 0}, {"n": 1, "m": 300}, {"n": 3, "m": 150}, {"n": 60, "m": 60}],
        "layouts": ["C", "strided"],
    },
    "running_rows": {
        "args": {"x": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 3, "m": 100}, {"n": 25, "m": 40}],
        "layouts": ["C"],
    },
}
