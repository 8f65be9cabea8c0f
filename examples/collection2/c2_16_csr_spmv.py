"""Sparse matrix-vector products in CSR and COO format, row-parallel, plus a CSR diagonal extraction.
The inner loop of every hand-rolled iterative solver; matrices are built from dense random data here.
"""
import numpy as np
from numba import njit, prange


@njit
def dense_to_csr(A, threshold):
    n, m = A.shape
    nnz = 0
    for i in range(n):
        for j in range(m):
            if abs(A[i, j]) > threshold:
                nnz += 1
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(nnz, dtype=np.int64)
    data = np.empty(nnz, dtype=A.dtype)
    k = 0
    for i in range(n):
        for j in range(m):
            if abs(A[i, j]) > threshold:
                indices[k] = j
                data[k] = A[i, j]
                k += 1
        indptr[i + 1] = k
    return indptr, indices, data


@njit(parallel=True)
def csr_matvec(indptr, indices, data, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n, dtype=data.dtype)
    for i in prange(n):
        acc = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            acc += data[k] * x[indices[k]]
        y[i] = acc
    return y


@njit
def dense_csr_matvec(A, threshold, x):
    indptr, indices, data = dense_to_csr(A, threshold)
    return csr_matvec(indptr, indices, data, x)


@njit
def coo_matvec(rows, cols, vals, x, n):
    y = np.zeros(n)
    for k in range(vals.shape[0]):
        y[rows[k]] += vals[k] * x[cols[k]]
    return y


@njit(parallel=True)
def csr_matvec_multi(A, threshold, X):
    indptr, indices, data = dense_to_csr(A, threshold)
    n = indptr.shape[0] - 1
    Y = np.zeros((n, X.shape[1]))
    for i in prange(n):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            Y[i, :] += data[k] * X[j, :]
    return Y


@njit
def csr_diagonal(A, threshold):
    indptr, indices, data = dense_to_csr(A, threshold)
    n = min(A.shape[0], A.shape[1])
    diag = np.zeros(n, dtype=data.dtype)
    for i in range(n):
        for k in range(indptr[i], indptr[i + 1]):
            if indices[k] == i:
                diag[i] = data[k]
                break
    return diag


KPC_CASES = {
    "dense_csr_matvec": {
        "args": {"A": ("n", "m"), "threshold": {"kind": "scalar", "value": 0.9}, "x": ("m",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 7, "m": 5}, {"n": 2000, "m": 2000}],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-5},
    },
    "coo_matvec": {
        "args": {"rows": {"kind": "index", "shape": ("k",), "high": "n"},
                 "cols": {"kind": "index", "shape": ("k",), "high": "m"},
                 "vals": ("k",), "x": ("m",), "n": {"kind": "scalar", "value": "n"}},
        "sizes": [{"k": 0, "n": 1, "m": 1}, {"k": 50, "n": 10, "m": 8}, {"k": 2000000, "n": 100000, "m": 100000}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "csr_matvec_multi": {
        "args": {"A": ("n", "m"), "threshold": {"kind": "scalar", "value": 0.8}, "X": ("m", "r")},
        "sizes": [{"n": 1, "m": 1, "r": 1}, {"n": 1500, "m": 1500, "r": 16}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "csr_diagonal": {
        "args": {"A": ("n", "m"), "threshold": {"kind": "scalar", "value": 0.5}},
        "sizes": [{"n": 1, "m": 1}, {"n": 5, "m": 7}, {"n": 1500, "m": 1500}],
    },
}
