"""Every Python operator on scalars: arithmetic, //, %, **, bitwise, unary, comparisons, and/or/not."""
# golden-signature: arith(int64, int64, float64)
# golden-signature: bits(int64, int64)
# golden-signature: logic(float64, float64, float64)
from numba import njit


@njit
def arith(a, b, x):
    s = a + b - a * b
    q = a / b
    f = a // b
    r = a % b
    p = a ** 2
    y = x ** b
    z = -x + +x
    return s, q, f, r, p, y, z


@njit
def bits(a, b):
    return (a & b) | (a ^ b), a << 3, b >> 1, ~a


@njit
def logic(x, lo, hi):
    inside = lo <= x < hi
    outside = x < lo or x >= hi
    neither = not inside and not outside
    sign = 1.0 if x > 0 else -1.0 if x < 0 else 0.0
    return inside, outside, neither, sign, x != lo, x == hi
