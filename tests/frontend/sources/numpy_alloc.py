"""NumPy allocation: from shapes and dtypes, like another array, arange, full."""
# golden-signature: allocate(float64[:, :], int64, int64)
import numpy as np
from numba import njit


@njit
def allocate(a, n, m):
    e = np.empty((n, m), dtype=np.float32)
    z = np.zeros_like(a)
    o = np.ones(n)
    f = np.full((n, 2), 7)
    r = np.arange(n)
    s = np.zeros(a.shape, np.int32)
    i = np.empty_like(a, dtype=np.int64)
    return e[0, 0] + z[0, 0] + o[0] + f[0, 0] + r[0] + s[0, 0] + i[0, 0]
