"""Sorting small rows: in-place insertion sort per row in parallel, a 4-element sorting network, row medians and stable argsort per row.
Seen in median filters, order statistics and non-maximum suppression code.
"""
import numpy as np
from numba import njit, prange


@njit
def insertion_sort(a):
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key


@njit(parallel=True)
def sort_rows(A):
    for i in prange(A.shape[0]):
        insertion_sort(A[i])


@njit
def _cswap(v, i, j):
    if v[i] > v[j]:
        v[i], v[j] = v[j], v[i]


@njit
def sort4_network(A):
    out = A.copy()
    for r in range(out.shape[0]):
        row = out[r]
        _cswap(row, 0, 1)
        _cswap(row, 2, 3)
        _cswap(row, 0, 2)
        _cswap(row, 1, 3)
        _cswap(row, 1, 2)
    return out


@njit
def row_medians(A):
    out = np.empty(A.shape[0])
    for i in range(A.shape[0]):
        out[i] = np.median(A[i])
    return out


@njit
def argsort_rows(A):
    idx = np.empty(A.shape, dtype=np.int64)
    for i in range(A.shape[0]):
        idx[i] = np.argsort(A[i], kind="mergesort")
    return idx


KPC_CASES = {
    "sort_rows": {
        "args": {"A": ("n", "m")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 50, "m": 17}],
        "writes": ["A"],
        "layouts": ["C", "F"],
    },
    "sort4_network": {
        "args": {"A": ("n", 4)},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 1}, {"n": 100}],
    },
    "row_medians": {
        "args": {"A": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 2, "m": 3}, {"n": 40, "m": 10}],
    },
    "argsort_rows": {
        "args": {"A": ("n", "m")},
        "dtypes": ["int64"],
        "sizes": [{"n": 2, "m": 3}, {"n": 40, "m": 25}],
    },
}
