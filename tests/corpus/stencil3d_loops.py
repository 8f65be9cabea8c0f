"""3-D stencils written with plain `range` loops.

Exercises: a 7-point heat-equation step on the interior of a 3-D grid
(three nested loops, neighbours along every axis, a scalar coefficient),
and a 3-D central-difference divergence of a vector field stored as an
`(n, m, k, 3)` array (4-D indexing with a constant last index).
"""
from numba import njit


@njit
def heat_step_3d(u, out, alpha):
    n, m, k = u.shape
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            for l in range(1, k - 1):
                out[i, j, l] = u[i, j, l] + alpha * (
                    u[i - 1, j, l] + u[i + 1, j, l]
                    + u[i, j - 1, l] + u[i, j + 1, l]
                    + u[i, j, l - 1] + u[i, j, l + 1]
                    - 6.0 * u[i, j, l]
                )


@njit
def divergence(v, out, h):
    n, m, k, _ = v.shape
    inv = 0.5 / h
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            for l in range(1, k - 1):
                out[i, j, l] = inv * (
                    v[i + 1, j, l, 0] - v[i - 1, j, l, 0]
                    + v[i, j + 1, l, 1] - v[i, j - 1, l, 1]
                    + v[i, j, l + 1, 2] - v[i, j, l - 1, 2]
                )


KPC_CASES = {
    "heat_step_3d": {
        "args": {"u": ("n", "m", "k"), "out": ("n", "m", "k"), "alpha": {"kind": "scalar", "value": 0.1}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 2, "m": 2, "k": 2}, {"n": 3, "m": 4, "k": 5}, {"n": 17, "m": 9, "k": 12}],
        "writes": ["out"],
        "layouts": ["C", "F", "strided"],
    },
    "divergence": {
        "args": {"v": ("n", "m", "k", 3), "out": ("n", "m", "k"), "h": {"kind": "scalar", "value": 0.25}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "m": 3, "k": 3}, {"n": 9, "m": 7, "k": 5}],
        "writes": ["out"],
        "layouts": ["C", "F", "strided"],
    },
}
