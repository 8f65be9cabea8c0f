"""Sparse-sparse and sparse-dense products in CSR: SpGEMM with a dense accumulator, row norms, scaling.
Gustavson's algorithm as implemented in teaching code for sparse linear algebra.
"""
import numpy as np
from numba import njit, prange


@njit
def random_csr(n, m, per_row, cols_flat, vals_flat):
    indptr = np.arange(0, (n + 1) * per_row, per_row).astype(np.int64)
    indices = np.empty(n * per_row, dtype=np.int64)
    for i in range(n):
        row = np.sort(cols_flat[i * per_row:(i + 1) * per_row])
        indices[i * per_row:(i + 1) * per_row] = row
    return indptr, indices, vals_flat[:n * per_row].copy()


@njit
def spgemm(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, ncols):
    n = a_ptr.shape[0] - 1
    acc = np.zeros(ncols)
    mark = np.full(ncols, -1, dtype=np.int64)
    c_ptr = np.zeros(n + 1, dtype=np.int64)
    c_idx = []
    c_val = []
    for i in range(n):
        touched = []
        for ka in range(a_ptr[i], a_ptr[i + 1]):
            j = a_idx[ka]
            av = a_val[ka]
            for kb in range(b_ptr[j], b_ptr[j + 1]):
                col = b_idx[kb]
                if mark[col] != i:
                    mark[col] = i
                    acc[col] = 0.0
                    touched.append(col)
                acc[col] += av * b_val[kb]
        touched.sort()
        for col in touched:
            c_idx.append(col)
            c_val.append(acc[col])
        c_ptr[i + 1] = len(c_idx)
    return c_ptr, np.array(c_idx, dtype=np.int64), np.array(c_val)


@njit
def spgemm_random(n, per_row, cols_a, vals_a, cols_b, vals_b):
    a = random_csr(n, n, per_row, cols_a, vals_a)
    b = random_csr(n, n, per_row, cols_b, vals_b)
    return spgemm(a[0], a[1], a[2], b[0], b[1], b[2], n)


@njit(parallel=True)
def csr_dense_matmul(n, per_row, cols, vals, B):
    indptr, indices, data = random_csr(n, B.shape[0], per_row, cols, vals)
    C = np.zeros((n, B.shape[1]))
    for i in prange(n):
        for k in range(indptr[i], indptr[i + 1]):
            C[i] += data[k] * B[indices[k]]
    return C


@njit
def csr_row_normalize(n, per_row, cols, vals):
    indptr, indices, data = random_csr(n, n, per_row, cols, vals)
    out = data.copy()
    norms = np.zeros(n)
    for i in range(n):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * data[k]
        norms[i] = np.sqrt(s)
        if norms[i] > 0:
            out[indptr[i]:indptr[i + 1]] /= norms[i]
    return out, norms


KPC_CASES = {
    "spgemm_random": {
        "args": {"n": {"kind": "scalar", "value": "n"}, "per_row": {"kind": "scalar", "value": "p"},
                 "cols_a": {"kind": "index", "shape": ("n*p",), "high": "n"}, "vals_a": ("n*p",),
                 "cols_b": {"kind": "index", "shape": ("n*p",), "high": "n"}, "vals_b": ("n*p",)},
        "sizes": [{"n": 1, "p": 1}, {"n": 6, "p": 2}, {"n": 5000, "p": 8}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "csr_dense_matmul": {
        "args": {"n": {"kind": "scalar", "value": "n"}, "per_row": {"kind": "scalar", "value": "p"},
                 "cols": {"kind": "index", "shape": ("n*p",), "high": "m"}, "vals": ("n*p",), "B": ("m", "r")},
        "sizes": [{"n": 1, "p": 1, "m": 1, "r": 1}, {"n": 20000, "p": 10, "m": 20000, "r": 16}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "csr_row_normalize": {
        "args": {"n": {"kind": "scalar", "value": "n"}, "per_row": {"kind": "scalar", "value": "p"},
                 "cols": {"kind": "index", "shape": ("n*p",), "high": "n"}, "vals": ("n*p",)},
        "sizes": [{"n": 1, "p": 1}, {"n": 50000, "p": 10}],
        "rtol": 1e-12,
    },
}
