"""Three levels of parallelism: a `prange` over batches whose body runs a `prange` over rows,
whose body runs loops over the columns.

Exercises: a batched matrix-vector product (an inner reduction per row, its result written
once per row); batched row norms summed into one total (a reduction at every level); a
batched row-wise softmax (a max and a sum per row, writes read back by the next loop of the
same row); a 3-D Laplacian with a coefficient per plane; a per-row scale written to memory
then read back; a per-row factor set beside a write (the columns stay serial: the value
would be set on one lane only); and rows with a running sum (a scan stays serial). Each
batch reads a value of its own first, as real code does (a perfect nest of the batch and row
loops would be one MDRange instead).
The Kokkos target runs the first kinds as TeamPolicy regions (a team per batch, the rows
across its threads, the columns across each thread's vector lanes); results must equal
Numba's up to the reassociation of reductions.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def batched_matvec(A, x, alpha):
    nb, n, m = A.shape
    y = np.empty((nb, n), dtype=A.dtype)
    for b in prange(nb):
        scale = alpha[b]
        for i in prange(n):
            acc = 0.0
            for k in prange(m):
                acc += A[b, i, k] * x[b, k]
            y[b, i] = scale * acc
    return y


@njit(parallel=True)
def batched_row_norms(A, weights):
    total = 0.0
    for b in prange(A.shape[0]):
        weight = weights[b]
        for i in prange(A.shape[1]):
            r = 0.0
            for k in prange(A.shape[2]):
                r += A[b, i, k] * A[b, i, k]
            total += weight * np.sqrt(r)
    return total


@njit(parallel=True)
def batched_softmax(x, temperature):
    nb, n, m = x.shape
    out = np.empty_like(x)
    for b in prange(nb):
        t = temperature[b]
        for i in prange(n):
            top = x[b, i, 0]
            for k in range(m):
                top = max(top, x[b, i, k])
            s = 0.0
            for k in prange(m):
                e = np.exp((x[b, i, k] - top) / t)
                out[b, i, k] = e
                s += e
            for k in prange(m):
                out[b, i, k] /= s
    return out


@njit(parallel=True)
def plane_laplacian(u, w, out):
    nz, ny, nx = u.shape
    for p in prange(1, nz - 1):
        c = w[p]
        for i in prange(1, ny - 1):
            for j in prange(1, nx - 1):
                out[p, i, j] = c * (u[p - 1, i, j] + u[p + 1, i, j] + u[p, i - 1, j] + u[p, i + 1, j]
                                    + u[p, i, j - 1] + u[p, i, j + 1] - 6.0 * u[p, i, j])


@njit(parallel=True)
def scale_rows(x, f):
    for b in prange(x.shape[0]):
        base = 1.0 + b
        for i in prange(x.shape[1]):
            f[b, i] = 2.0 * x[b, i, 0]
            g = f[b, i] + base
            for k in prange(x.shape[2]):
                x[b, i, k] *= g


@njit(parallel=True)
def flag_rows(x, f):
    for b in prange(x.shape[0]):
        base = 1.0 + b
        for i in prange(x.shape[1]):
            if x[b, i, 0] > 0.0:
                f[b, i] = 1.0
                g = base
            else:
                g = -base
            for k in prange(x.shape[2]):
                x[b, i, k] *= g


@njit(parallel=True)
def running_rows(x):
    out = np.empty_like(x)
    for b in prange(x.shape[0]):
        start = 0.5 * b
        for i in prange(x.shape[1]):
            acc = start
            for k in range(x.shape[2]):
                acc += x[b, i, k]
                out[b, i, k] = acc
    return out


KPC_CASES = {
    "batched_matvec": {
        "args": {"A": ("b", "n", "m"), "x": ("b", "m"), "alpha": ("b",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"b": 0, "n": 2, "m": 3}, {"b": 1, "n": 1, "m": 1}, {"b": 2, "n": 3, "m": 300},
                  {"b": 5, "n": 40, "m": 70}],
        "layouts": ["C", "F", "strided"],
    },
    "batched_row_norms": {
        "args": {"A": ("b", "n", "m"), "weights": ("b",)},
        "dtypes": ["float64"],
        "sizes": [{"b": 1, "n": 0, "m": 2}, {"b": 1, "n": 1, "m": 400}, {"b": 3, "n": 17, "m": 100}],
        "layouts": ["C", "strided"],
    },
    "batched_softmax": {
        "args": {"x": ("b", "n", "m"), "temperature": ("b",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"b": 1, "n": 1, "m": 1}, {"b": 2, "n": 3, "m": 257}, {"b": 4, "n": 33, "m": 65}],
        "layouts": ["C", "F", "strided"],
    },
    "plane_laplacian": {
        "args": {"u": ("z", "y", "x"), "w": ("z",), "out": ("z", "y", "x")},
        "writes": ["out"],
        "dtypes": ["float64"],
        "sizes": [{"z": 2, "y": 2, "x": 2}, {"z": 3, "y": 4, "x": 300}, {"z": 9, "y": 17, "x": 40}],
        "layouts": ["C", "F", "strided"],
    },
    "scale_rows": {
        "args": {"x": ("b", "n", "m"), "f": ("b", "n")},
        "writes": ["x", "f"],
        "dtypes": ["float64"],
        "sizes": [{"b": 1, "n": 1, "m": 1}, {"b": 3, "n": 5, "m": 100}],
        "layouts": ["C", "strided"],
    },
    "flag_rows": {
        "args": {"x": ("b", "n", "m"), "f": ("b", "n")},
        "writes": ["x", "f"],
        "dtypes": ["float64"],
        "sizes": [{"b": 1, "n": 1, "m": 1}, {"b": 3, "n": 5, "m": 100}],
        "layouts": ["C", "strided"],
    },
    "running_rows": {
        "args": {"x": ("b", "n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"b": 1, "n": 1, "m": 1}, {"b": 3, "n": 20, "m": 40}],
        "layouts": ["C"],
    },
}
