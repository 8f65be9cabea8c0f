"""Numba's float32 rules: float32 op float32 stays float32, a Python float literal widens."""
# golden-signature: mixed(float32[:], int32, int16)
from numba import njit


@njit
def mixed(a, k, s):
    x = a[0] * a[1]
    y = a[0] * 2.0
    z = a[0] * 2
    w = a[0] / a[1]
    v = a[0] + s
    u = k + k
    t = k / k
    p = a[0] ** k
    return x, y, z, w, v, u, t, p
