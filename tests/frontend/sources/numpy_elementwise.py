"""Array expressions: broadcasting, ufuncs on arrays and on scalars, np.where, .T, np.dot and @."""
# golden-signature: elementwise(float64[:, ::1], float64[::1], float32)
# golden-signature: products(float64[:, ::1], float64[::1])
import numpy as np
from numba import njit


@njit
def elementwise(a, b, s):
    c = a + b
    d = np.sqrt(np.abs(c)) * s
    e = np.where(d > 1.0, d, 0.0)
    f = a.T - 1
    g = -e ** 2
    h = np.sqrt(s)
    return c, d, e, f, g, h


@njit
def products(m, v):
    mv = m @ v
    mm = np.dot(m, m.T)
    vv = v @ v
    return mv, mm, vv
