"""Element, row and slice indexing, a[i][j], negative indices, shape/size/ndim, np.newaxis."""
# golden-signature: corners(float64[:, ::1])
# golden-signature: rows_and_slices(float64[:, ::1], int64)
# golden-signature: shapes(int32[:, :, :])
import numpy as np
from numba import njit


@njit
def corners(a):
    return a[0, 0] + a[0][-1] + a[-1, 0] + a[-1][-1]


@njit
def rows_and_slices(a, i):
    row = a[i]
    row2 = a[i, :]
    col = a[:, i]
    inner = a[1:-1, ::2]
    head = a[:i]
    col2d = row[:, np.newaxis]
    return row[0] + row2[-1] + col[0] + inner[0, 0] + head[0, 0] + col2d[0, 0]


@njit
def shapes(a):
    n, m, k = a.shape
    last = a.shape[-1]
    return n * m * k + a.size + a.ndim + last + a.shape[1]
