"""Kernels that use the arrays other kernels return: bound to a name, unpacked from a tuple,
nested as an argument, returned, written after the call, called in a loop.

Exercises: `y = scaled(x, 2.0)`; `lo, hi = split(x)` (a tuple of two new arrays);
`back(u, forward(l, b))` (a call inside another call's arguments); `return scaled(x, 3.0)`
and `return split(x)`; `y, n = with_count(x)` (an array and a scalar, through two levels); a returned tuple bound
to one name and read by constant indices (`parts = split(x)` ... `parts[0]`, `parts[-1]`);
a helper that writes its argument and returns it (the caller's array is written and returned
as itself); a helper called in every step of a loop, its result rebound (`v = step(v)`);
keyword and default arguments. kpc inlines such calls (pass inline-array-calls): a Kokkos
kernel cannot hand a view back to another; it used to keep every caller as Numba.
"""
import numpy as np
from numba import njit


@njit
def scaled(x, a=2.0):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = a * x[i]
    return out


@njit
def split(x):
    lo = np.empty_like(x)
    hi = np.empty_like(x)
    for i in range(x.shape[0]):
        lo[i] = min(x[i], 0)
        hi[i] = max(x[i], 0)
    return lo, hi


@njit
def with_count(x):
    y = scaled(x)
    return y, x.shape[0]


@njit
def clip_in_place(x, limit):
    for i in range(x.shape[0]):
        if x[i] > limit:
            x[i] = limit
    return x


@njit
def forward(l, b):
    n = b.shape[0]
    y = np.zeros(n)
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= l[i, j] * y[j]
        y[i] = s / l[i, i]
    return y


@njit
def back(u, y):
    n = y.shape[0]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = y[i]
        for j in range(i + 1, n):
            s -= u[i, j] * x[j]
        x[i] = s / u[i, i]
    return x


@njit
def bound(x):
    y = scaled(x, a=3.0)
    return y.sum()


@njit
def unpacked(x):
    lo, hi = split(x)
    return (hi - lo).sum(), lo.min()


@njit
def returned(x):
    return scaled(x, 3.0)


@njit
def returned_pair(x):
    return split(x)


@njit
def mixed(x):
    y, n = with_count(x)
    return y.sum() + n


@njit
def solve_lu(m, b):
    n = m.shape[0]
    a = m + n * np.eye(n)
    l = np.tril(a)
    u = np.triu(a)
    for i in range(n):
        u[i, i] = 1.0
    return back(u, forward(l, b))


@njit
def clipped(x, limit):
    y = clip_in_place(x, limit)
    y[0] = -1
    return y


@njit
def steps(x, k):
    v = x.copy()
    for s in range(k):
        v = scaled(v, 0.5)
    return v


@njit
def indexed_parts(x):
    parts = split(x)
    pair = with_count(x)
    return parts[0].sum() - parts[-1].sum() + pair[1], parts[1] * 2


KPC_CASES = {
    "bound": {"args": {"x": ("n",)}, "dtypes": ["float64", "int64"], "sizes": [{"n": 1}, {"n": 9}],
              "layouts": ["C", "strided"]},
    "unpacked": {"args": {"x": ("n",)}, "dtypes": ["float64", "int64"], "sizes": [{"n": 1}, {"n": 9}],
                 "layouts": ["C", "strided"]},
    "returned": {"args": {"x": ("n",)}, "dtypes": ["float64", "int64"], "sizes": [{"n": 1}, {"n": 9}],
                 "layouts": ["C", "strided"]},
    "returned_pair": {"args": {"x": ("n",)}, "dtypes": ["float64", "int64"], "sizes": [{"n": 1}, {"n": 9}],
                      "layouts": ["C", "strided"]},
    "mixed": {"args": {"x": ("n",)}, "dtypes": ["float64", "int64"], "sizes": [{"n": 1}, {"n": 9}],
              "layouts": ["C", "strided"]},
    "solve_lu": {"args": {"m": ("n", "n"), "b": ("n",)}, "dtypes": ["float64"],
                 "sizes": [{"n": 1}, {"n": 4}, {"n": 12}], "layouts": ["C", "F"]},
    "clipped": {"args": {"x": ("n",), "limit": {"kind": "scalar", "value": 0.25}}, "writes": ["x"],
                "dtypes": ["float64"], "sizes": [{"n": 1}, {"n": 9}], "layouts": ["C", "strided"]},
    "steps": {"args": {"x": ("n",), "k": {"kind": "scalar", "value": "k"}}, "dtypes": ["float64", "int64"],
              "sizes": [{"n": 3, "k": 0}, {"n": 9, "k": 3}], "layouts": ["C", "strided"]},
    "indexed_parts": {"args": {"x": ("n",)}, "dtypes": ["float64", "int64"], "sizes": [{"n": 1}, {"n": 9}],
                      "layouts": ["C", "strided"]},
}
