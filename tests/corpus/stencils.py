"""Numba's ``@stencil`` kernels, as its documentation and public code write them.

Exercises: 1-D, 2-D and 3-D stencils with constant relative indices (a Jacobi sweep, a
centred difference, a 7-point Laplacian), the border Numba leaves (0, or ``cval``), a
``neighborhood`` with a loop over relative indices (a moving average), ``standard_indexing``
(weights read as a plain array), two relative-indexed inputs, integer input arrays, and
stencils called from ``@njit(parallel=True)`` kernels: a time loop of sweeps, ``out=`` into a
preallocated array, a stencil of an array expression, and a division in a stencil called from a
parallel kernel (with a zero divisor, NumPy's inf/nan as Numba's parfor gives:
``tests/backend/test_stencil.py``). Calls from Python with ``out=``:
``tests/backend/test_stencil.py``.
"""
import numpy as np
from numba import njit, stencil


@stencil
def jacobi(a):
    return 0.25 * (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1])


@stencil(cval=-1.0)
def centred_diff(x):
    return 0.5 * (x[1] - x[-1])


@stencil(neighborhood=((-2, 2),))
def moving_average(x):
    total = 0.0
    for i in range(-2, 3):
        total += x[i]
    return total / 5


@stencil(standard_indexing=("w",))
def weighted3(x, w):
    return w[0] * x[-1] + w[1] * x[0] + w[2] * x[1]


@stencil
def laplacian3d(u):
    return (u[-1, 0, 0] + u[1, 0, 0] + u[0, -1, 0] + u[0, 1, 0] + u[0, 0, -1] + u[0, 0, 1]
            - 6.0 * u[0, 0, 0])


@stencil
def upwind(u, c):
    if c[0, 0] > 0:
        return c[0, 0] * (u[0, 0] - u[-1, 0])
    return c[0, 0] * (u[1, 0] - u[0, 0])


@stencil
def box_sum(a):
    return a[-1, -1] + a[-1, 0] + a[-1, 1] + a[0, -1] + a[0, 0] + a[0, 1] + a[1, -1] + a[1, 0] + a[1, 1]


@njit(parallel=True)
def jacobi_steps(a, steps):
    b = a.copy()
    for _ in range(steps):
        b = jacobi(b)
    return b


@njit(parallel=True)
def jacobi_into(a, out):
    jacobi(a, out=out)
    return out.sum()


@njit(parallel=True)
def smoothed_gradient(x):
    return centred_diff(moving_average(x) * 2.0)


@stencil
def neighbour_ratio(a):
    return a[0, 1] / a[0, -1]


@njit(parallel=True)
def ratios(a):
    # a parfor in Numba (error_model='numpy'): a zero neighbour gives inf or nan; the same stencil
    # called from Python raises ZeroDivisionError
    return neighbour_ratio(a)


KPC_CASES = {
    "jacobi": {
        "args": {"a": ("n", "m")},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 2, "m": 5}, {"n": 17, "m": 33}, {"n": 64, "m": 48}],
        "layouts": ["C", "F", "strided"],
    },
    "centred_diff": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 3}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "moving_average": {
        "args": {"x": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 4}, {"n": 5}, {"n": 257}],
        "layouts": ["C", "strided"],
    },
    "weighted3": {
        "args": {"x": ("n",), "w": ("k",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 50, "k": 3}],
    },
    "laplacian3d": {
        "args": {"u": ("n", "m", "p")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 2, "m": 3, "p": 4}, {"n": 9, "m": 10, "p": 11}],
        "layouts": ["C", "F", "strided"],
    },
    "upwind": {
        "args": {"u": ("n", "m"), "c": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 20, "m": 7}],
        "layouts": ["C", "F"],
    },
    "box_sum": {
        "args": {"a": ("n", "m")},
        "dtypes": ["int64", "float64"],
        "sizes": [{"n": 3, "m": 3}, {"n": 31, "m": 29}],
    },
    "jacobi_steps": {
        "args": {"a": ("n", "m"), "steps": {"kind": "scalar", "value": 4}},
        "dtypes": ["float64"],
        "sizes": [{"n": 16, "m": 12}, {"n": 70, "m": 65}],
    },
    "jacobi_into": {
        "args": {"a": ("n", "m"), "out": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 16, "m": 12}, {"n": 70, "m": 65}],
        "writes": ["out"],
    },
    "ratios": {  # no zeros: plain Python raises where Numba's parfor gives inf (test_stencil has zeros)
        "args": {"a": {"kind": "array", "shape": ("n", "m"), "low": 1, "high": 4}},
        "dtypes": ["int64"],
        "sizes": [{"n": 6, "m": 9}],
    },
    "smoothed_gradient": {
        "args": {"x": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 3}, {"n": 200}],
    },
}
