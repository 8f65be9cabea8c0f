"""Small Numba kernels that pin Python semantics the Kokkos backend must preserve
(compiled once per test session into one module, compared against Numba)."""
import math

import numpy as np
from numba import njit, prange


@njit
def floor_ops(a, b):
    return a // b, a % b


@njit
def float_floor_ops(x, y):
    return x // y, x % y


@njit
def powers(x, n):
    return x ** 2, x ** -2, x ** 0.5, x ** n, n ** 3, 2 ** n


@njit
def true_division(a, b):
    return a / b


@njit
def last_and_first(a):
    return a[-1], a[-len(a)], a[0]


@njit
def wrap_index(a, k):
    return a[k]


@njit
def extremes(a, b, c):
    return min(a, b), max(a, b, c), abs(a - b)


@njit
def chained(x, lo, hi):
    return lo <= x < hi


@njit
def countdown(n):
    total = 0
    for i in range(n, 0, -2):
        total = total * 3 + i
    return total


@njit
def stepped(start, stop, step):
    total = 0
    for i in range(start, stop, step):
        total += i
    return total


@njit
def float32_math(a):
    s = np.float32(0.0)
    for i in range(a.shape[0]):
        s += math.sqrt(a[i])
    return s


@njit
def float32_product(x, y):
    return x * y


@njit
def as_bool(a):
    n = 0
    for i in range(a.shape[0]):
        if a[i] and not a[i - 1]:
            n += 1
    return n


@njit
def shape_and_size(a):
    n, m = a.shape
    return n * 1000 + m, a.size, len(a)


@njit
def carried(a):
    last = 0.0
    out = 0.0
    for i in range(a.shape[0]):
        if i > 0:
            out += a[i] - last
        last = a[i]
    return out, last


@njit(parallel=True)
def scale_rows(a, out):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = 2.0 * a[i, j]


@njit(parallel=True)
def fill(out, value):
    for i in prange(out.shape[0]):
        out[i] = value


@njit
def int_overflow(a):
    return a * a * a


@njit
def truncation(x):
    return int(x), int(-x)


@njit(parallel=True)
def divide_all(a, d):
    for i in prange(a.shape[0]):
        a[i] = a[i] // d


@njit
def squares_until(n):
    out = np.zeros(n, dtype=np.int64)
    i = 0
    while i < n:
        out[i] = i * i
        i += 1
    return out


@njit
def true_div(x, y):
    return x / y


@njit
def floor_div(x, y):
    return x // y


@njit
def modulo(x, y):
    return x % y


@njit(error_model="numpy")
def numpy_divisions(x, y):
    return x / y, x // y, x % y


@njit
def array_divisions(x, y):
    return x / y, x // y, x % y


@njit(parallel=True)
def loop_division(x, d):  # a parfor: NumPy semantics inside, as Numba
    out = np.empty_like(x)
    for i in prange(x.shape[0]):
        out[i] = x[i] / d[i]
    return out


@njit
def divide_in_place(s, d):
    s /= d
    return s


@njit(boundscheck=True)
def checked_get(a, i):
    return a[i]


@njit(boundscheck=True, parallel=True)
def checked_column_sum(a, k):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i, k]
    return s


@njit(parallel=True)
def division_before_loop(x, d):
    t = x[0] / d[0]
    out = np.empty_like(x)
    for i in prange(x.shape[0]):
        out[i] = x[i] / d[i] + t
    return out


@njit(parallel=True)
def serial_loop_division(x, d):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] / d[i]
    return out


# NaNs in min/max: NumPy's rules without parallel=True (any NaN is the result; argmax is the
# first NaN); Numba's parfor reductions with it (NaNs skipped, from -inf/+inf).
@njit
def nan_extremes(a):
    return np.max(a), a.min(), np.argmax(a), a.argmin()


@njit(parallel=True)
def nan_extremes_parallel(a):
    return np.max(a), a.min(), np.argmax(a), a.argmin()


@njit
def nan_rows(a):
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = np.max(a[i]) + np.min(a[i] * 2.0)
    return out


@njit(parallel=True)
def nan_rows_parallel(a):
    out = np.empty(a.shape[0])
    for i in prange(a.shape[0]):
        out[i] = np.max(a[i]) + np.min(a[i] * 2.0)
    return out


@njit
def nan_ufuncs(a, b):
    out = np.maximum(a, b) + np.minimum(a, b) * 3.0 + np.fmax(a, b) * 5.0 + np.fmin(a, b) * 7.0
    for i in range(a.shape[0]):
        out[i] += np.maximum(a[i], b[i]) * 11.0 + np.fmin(a[i], b[i]) * 13.0
    return out


@njit
def complex_div(z, w):
    return z / w
