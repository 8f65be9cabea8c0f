"""Seed kernel: iterative star stencil that rewrites sub-blocks in place.

Exercises: slice assignment into an interior sub-block of a larger array
(`grid[1:-1, 1:-1] = ...` reading overlapping shifted slices of the same
array: NumPy evaluates the right-hand side fully before writing), a
strided sub-block update (`grid[::2, ::2] *= ...`), an outer serial
iteration loop around the array expressions, an integer scalar parameter.
"""
import numpy as np
from numba import njit


@njit
def star2(grid, steps):
    for _ in range(steps):
        grid[1:-1, 1:-1] = 0.2 * (
            grid[1:-1, 1:-1]
            + grid[:-2, 1:-1]
            + grid[2:, 1:-1]
            + grid[1:-1, :-2]
            + grid[1:-1, 2:]
        )
        grid[::2, ::2] *= 0.5
        grid[0, :] = grid[1, :]
        grid[-1, :] = grid[-2, :]
    return np.abs(grid).max()


KPC_CASES = {
    "star2": {
        "args": {"grid": ("n", "m"), "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64", "float32"],
        "sizes": [
            {"n": 2, "m": 2, "steps": 1},
            {"n": 3, "m": 7, "steps": 2},
            {"n": 17, "m": 33, "steps": 5},
        ],
        "writes": ["grid"],
        "layouts": ["C", "F", "strided"],
    },
}
