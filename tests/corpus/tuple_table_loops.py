"""Loops over a table of constant tuples, unpacked into several names per row.

Exercises: `for di, dj, v in ((-1, 0, -1.0), (0, 0, 4.0), ...)` (a five-point stencil's offsets
and weights, building a CSR matrix with a counter carried across rows), the same table as a
module constant, and a `prange` over rows whose body walks such a table. Found by the second
collection (c2_17_csr_build.laplacian_2d_csr): the tuple loop target was refused (issue 32).
"""
import numpy as np
from numba import njit, prange

NEIGHBOURS = ((-1, -1, 0.5), (-1, 1, 0.5), (1, -1, 0.5), (1, 1, 0.5), (0, 0, -2.0))


@njit
def laplacian_csr(nx, ny):
    n = nx * ny
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(5 * n, dtype=np.int64)
    data = np.empty(5 * n)
    k = 0
    for i in range(nx):
        for j in range(ny):
            row = i * ny + j
            for di, dj, v in ((-1, 0, -1.0), (0, -1, -1.0), (0, 0, 4.0), (0, 1, -1.0), (1, 0, -1.0)):
                ii, jj = i + di, j + dj
                if 0 <= ii < nx and 0 <= jj < ny:
                    indices[k] = ii * ny + jj
                    data[k] = v
                    k += 1
            indptr[row + 1] = k
    return indptr, indices[:k], data[:k]


@njit(parallel=True)
def diagonal_stencil(a):
    n, m = a.shape
    out = np.zeros((n, m))
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            s = 0.0
            for di, dj, w in NEIGHBOURS:
                s += w * a[i + di, j + dj]
            out[i, j] = s
    return out


@njit
def weighted_moves(x, steps):
    total = 0
    pos = 0
    for _ in range(steps):
        for step, weight in ((1, 3), (-2, 1), (3, 2)):
            pos = (pos + step) % x.shape[0]
            total += weight * x[pos]
    return total


KPC_CASES = {
    "laplacian_csr": {
        "args": {"nx": {"kind": "scalar", "value": "a"}, "ny": {"kind": "scalar", "value": "b"}},
        "sizes": [{"a": 1, "b": 1}, {"a": 3, "b": 4}, {"a": 60, "b": 45}],
    },
    "diagonal_stencil": {
        "args": {"a": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 2, "m": 2}, {"n": 9, "m": 7}, {"n": 130, "m": 70}],
        "rtol": 1e-12,
    },
    "weighted_moves": {
        "args": {"x": ("n",), "steps": {"kind": "scalar", "value": "s"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 1, "s": 0}, {"n": 5, "s": 3}, {"n": 101, "s": 50}],
    },
}
