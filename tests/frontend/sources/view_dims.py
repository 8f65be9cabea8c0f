"""View ranks through the call graph: a row passed to a helper that reads item[0] makes the caller's array 2-D."""
from numba import njit


@njit
def first(item):
    return item[0]


@njit
def row_sum(row):
    s = 0.0
    for k in range(row.shape[0]):
        s += row[k]
    return s


@njit
def plane_total(block):
    t = 0.0
    for i in range(block.shape[0]):
        t += row_sum(block[i]) + first(block[i])
    return t


@njit
def volume_total(volume):
    t = 0.0
    for p in range(volume.shape[0]):
        t += plane_total(volume[p])
    return t
