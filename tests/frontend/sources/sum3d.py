"""Seed kernel: 3-D serial sum, the bounds read as arr.shape[k]."""
# golden-signature: sum3d(float32[:, :, ::1])
from numba import njit


@njit
def sum3d(arr):
    result = 0.0
    for i in range(arr.shape[0]):
        for j in range(arr.shape[1]):
            for k in range(arr.shape[2]):
                result += arr[i, j, k]
    return result
