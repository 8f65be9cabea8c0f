"""math functions and constants; module constants are frozen (GlobalConst), as Numba does."""
# golden-signature: gaussian(float64[:], float64[:], float64)
# golden-signature: rounding(float64)
import math
from math import pi, sqrt

from numba import njit

N = 3
TWO_PI = 2 * math.pi
SCALE = 1.0 / N


@njit
def gaussian(x, out, sigma):
    norm = 1.0 / (sigma * sqrt(TWO_PI))
    for i in range(x.shape[0]):
        out[i] = norm * math.exp(-0.5 * (x[i] / sigma) ** 2) * SCALE * N
    return math.atan2(out[0], pi) + math.e + math.inf * 0.0


@njit
def rounding(x):
    return math.floor(x), math.ceil(x), math.trunc(x), math.fabs(x), math.isnan(x), math.hypot(x, 1.0)
