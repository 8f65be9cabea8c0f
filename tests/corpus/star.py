"""Seed kernel: radius-2 star stencil (Parallel Research Kernels style).

Exercises: a 2-D interior loop nest with offsets `i +- 1`, `i +- 2` in
both directions, weights computed from the radius, accumulation into an
existing output array (`out[i, j] += ...`), a parallel outer `prange`.
"""
from numba import njit, prange


@njit(parallel=True)
def star(inp, out):
    r = 2
    n, m = inp.shape
    for i in prange(r, n - r):
        for j in range(r, m - r):
            acc = 0.0
            for k in range(1, r + 1):
                w = 1.0 / (2.0 * k * r)
                acc += w * (inp[i, j + k] - inp[i, j - k])
                acc += w * (inp[i + k, j] - inp[i - k, j])
            out[i, j] += acc


KPC_CASES = {
    "star": {
        "args": {"inp": ("n", "m"), "out": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "m": 0}, {"n": 4, "m": 4}, {"n": 5, "m": 9}, {"n": 33, "m": 40}],
        "writes": ["out"],
        "layouts": ["C", "F", "strided"],
    },
}
