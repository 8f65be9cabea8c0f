"""2-D stencils written with plain `range` loops (no prange).

Exercises: a 5-point Laplacian on the interior of an `(n+2, m+2)` grid
writing an `(n, m)` result (index shifts between input and output); a
9-point box blur; a red-black Gauss-Seidel sweep whose inner loop starts
at a parity-dependent offset and steps by 2 (updates in place, so the
two colours must run one after the other).
"""
from numba import njit


@njit
def laplacian(u, out, h):
    inv_h2 = 1.0 / (h * h)
    for i in range(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            out[i - 1, j - 1] = (
                u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
            ) * inv_h2


@njit
def box_blur(src, dst):
    n, m = src.shape
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            acc = 0.0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    acc += src[i + di, j + dj]
            dst[i, j] = acc / 9.0


@njit
def red_black_sweep(u, f, h2):
    n, m = u.shape
    for color in range(2):
        for i in range(1, n - 1):
            start = 1 + (i + color) % 2
            for j in range(start, m - 1, 2):
                u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h2 * f[i, j])


KPC_CASES = {
    "laplacian": {
        "args": {"u": ("n+2", "m+2"), "out": ("n", "m"), "h": {"kind": "scalar", "value": 0.5}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "m": 0}, {"n": 1, "m": 1}, {"n": 7, "m": 5}, {"n": 33, "m": 30}],
        "writes": ["out"],
        "layouts": ["C", "F", "strided"],
    },
    "box_blur": {
        "args": {"src": ("n", "m"), "dst": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 3, "m": 4}, {"n": 33, "m": 17}],
        "writes": ["dst"],
        "layouts": ["C", "F", "strided"],
    },
    "red_black_sweep": {
        "args": {"u": ("n", "m"), "f": ("n", "m"), "h2": {"kind": "scalar", "value": 0.01}},
        "dtypes": ["float64"],
        "sizes": [{"n": 2, "m": 2}, {"n": 5, "m": 6}, {"n": 33, "m": 17}],
        "writes": ["u"],
        "layouts": ["C", "F", "strided"],
    },
}
