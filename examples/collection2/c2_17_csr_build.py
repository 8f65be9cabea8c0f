"""Building sparse matrices: COO to CSR by counting sort, duplicate summation, CSR transpose, 5-point Laplacian.
Assembly code from finite-element and graph libraries, written out in loops.
"""
import numpy as np
from numba import njit


@njit
def coo_to_csr(rows, cols, vals, n):
    nnz = rows.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    for k in range(nnz):
        indptr[rows[k] + 1] += 1
    for i in range(n):
        indptr[i + 1] += indptr[i]
    fill = indptr[:-1].copy()
    indices = np.empty(nnz, dtype=np.int64)
    data = np.empty(nnz, dtype=vals.dtype)
    for k in range(nnz):
        r = rows[k]
        dest = fill[r]
        indices[dest] = cols[k]
        data[dest] = vals[k]
        fill[r] += 1
    return indptr, indices, data


@njit
def sum_duplicates(indptr, indices, data):
    n = indptr.shape[0] - 1
    new_ptr = np.zeros(n + 1, dtype=np.int64)
    new_idx = np.empty_like(indices)
    new_dat = np.empty_like(data)
    k = 0
    for i in range(n):
        start, end = indptr[i], indptr[i + 1]
        order = np.argsort(indices[start:end], kind="mergesort")
        last = -1
        for t in order:
            j = indices[start + t]
            if j == last:
                new_dat[k - 1] += data[start + t]
            else:
                new_idx[k] = j
                new_dat[k] = data[start + t]
                k += 1
                last = j
        new_ptr[i + 1] = k
    return new_ptr, new_idx[:k].copy(), new_dat[:k].copy()


@njit
def coo_to_csr_summed(rows, cols, vals, n):
    indptr, indices, data = coo_to_csr(rows, cols, vals, n)
    return sum_duplicates(indptr, indices, data)


@njit
def csr_transpose(indptr, indices, data, ncols):
    nnz = indices.shape[0]
    t_ptr = np.zeros(ncols + 1, dtype=np.int64)
    for k in range(nnz):
        t_ptr[indices[k] + 1] += 1
    t_ptr = np.cumsum(t_ptr)
    nxt = t_ptr[:-1].copy()
    t_idx = np.empty(nnz, dtype=np.int64)
    t_dat = np.empty(nnz, dtype=data.dtype)
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            t_idx[nxt[j]] = i
            t_dat[nxt[j]] = data[k]
            nxt[j] += 1
    return t_ptr, t_idx, t_dat


@njit
def coo_transpose_csr(rows, cols, vals, n, m):
    indptr, indices, data = coo_to_csr(rows, cols, vals, n)
    return csr_transpose(indptr, indices, data, m)


@njit
def laplacian_2d_csr(nx, ny):
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


KPC_CASES = {
    "coo_to_csr": {
        "args": {"rows": {"kind": "index", "shape": ("k",), "high": "n"},
                 "cols": {"kind": "index", "shape": ("k",), "high": "n"},
                 "vals": ("k",), "n": {"kind": "scalar", "value": "n"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"k": 0, "n": 1}, {"k": 30, "n": 6}, {"k": 2000000, "n": 200000}],
    },
    "coo_to_csr_summed": {
        "args": {"rows": {"kind": "index", "shape": ("k",), "high": "n"},
                 "cols": {"kind": "index", "shape": ("k",), "high": "n"},
                 "vals": ("k",), "n": {"kind": "scalar", "value": "n"}},
        "sizes": [{"k": 0, "n": 1}, {"k": 40, "n": 5}, {"k": 500000, "n": 50000}],
        "rtol": 1e-12,
        "atol": 1e-12,
    },
    "coo_transpose_csr": {
        "args": {"rows": {"kind": "index", "shape": ("k",), "high": "n"},
                 "cols": {"kind": "index", "shape": ("k",), "high": "m"},
                 "vals": ("k",), "n": {"kind": "scalar", "value": "n"}, "m": {"kind": "scalar", "value": "m"}},
        "sizes": [{"k": 1, "n": 1, "m": 1}, {"k": 30, "n": 6, "m": 4}, {"k": 1000000, "n": 100000, "m": 80000}],
    },
    "laplacian_2d_csr": {
        "args": {"nx": {"kind": "scalar", "value": "a"}, "ny": {"kind": "scalar", "value": "b"}},
        "sizes": [{"a": 1, "b": 1}, {"a": 3, "b": 4}, {"a": 700, "b": 700}],
    },
}
