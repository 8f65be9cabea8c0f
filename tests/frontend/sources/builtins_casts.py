"""abs, min, max, len, round and the casts int/float/bool/np.float32/numba.int32."""
# golden-signature: clamp_all(float32[:], float32, float32)
# golden-signature: conversions(float64, int64)
import numba
import numpy as np
from numba import njit


@njit
def clamp_all(a, lo, hi):
    n = len(a)
    for i in range(n):
        a[i] = min(max(a[i], lo), hi)
    return abs(a[0] - a[n - 1])


@njit
def conversions(x, k):
    i = int(x)
    f = float(k)
    b = bool(k)
    s = np.float32(x)
    t = numba.int32(k)
    return i, f, b, s, t, round(x), max(i, k, 0)
