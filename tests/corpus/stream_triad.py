"""STREAM kernels (copy, scale, add, triad) as loops and as array expressions.

Exercises: the triad `a[i] = b[i] + s * c[i]` as a `prange` loop and the
same triad as the whole-array expression `a[:] = b + s * c` (must be
lowered to one fused loop writing into `a`, no temporary), plus copy,
scale and add in loop form; the scalar `s` follows the array dtype.
"""
from numba import njit, prange


@njit(parallel=True)
def stream_copy(a, c):
    for i in prange(a.shape[0]):
        c[i] = a[i]


@njit(parallel=True)
def stream_scale(b, c, s):
    for i in prange(c.shape[0]):
        b[i] = s * c[i]


@njit(parallel=True)
def stream_add(a, b, c):
    for i in prange(a.shape[0]):
        c[i] = a[i] + b[i]


@njit(parallel=True)
def triad_loop(a, b, c, s):
    for i in prange(a.shape[0]):
        a[i] = b[i] + s * c[i]


@njit(parallel=True)
def triad_expr(a, b, c, s):
    a[:] = b + s * c


KPC_CASES = {
    "stream_copy": {
        "args": {"a": ("n",), "c": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "writes": ["c"],
        "layouts": ["C", "strided"],
    },
    "stream_scale": {
        "args": {"b": ("n",), "c": ("n",), "s": {"kind": "scalar", "value": 3.0, "dtype": "case"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "writes": ["b"],
        "layouts": ["C", "strided"],
    },
    "stream_add": {
        "args": {"a": ("n",), "b": ("n",), "c": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "writes": ["c"],
        "layouts": ["C", "strided"],
    },
    "triad_loop": {
        "args": {"a": ("n",), "b": ("n",), "c": ("n",), "s": {"kind": "scalar", "value": 3.0, "dtype": "case"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 100}],
        "writes": ["a"],
        "layouts": ["C", "strided"],
    },
    "triad_expr": {
        "args": {"a": ("n",), "b": ("n",), "c": ("n",), "s": {"kind": "scalar", "value": 3.0, "dtype": "case"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 100}],
        "writes": ["a"],
        "layouts": ["C", "strided"],
    },
}
