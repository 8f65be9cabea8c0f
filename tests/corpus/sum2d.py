"""Seed kernel: sum of a 2-D array with a serial double loop.

Exercises: `@njit` without options, nested `range` over `arr.shape`, a
scalar float accumulator fed by float32/int64 elements (Numba unifies it
to float64), all three memory layouts.
"""
from numba import njit


@njit
def sum2d(arr):
    M, N = arr.shape
    result = 0.0
    for i in range(M):
        for j in range(N):
            result += arr[i, j]
    return result


KPC_CASES = {
    "sum2d": {
        "args": {"arr": ("m", "n")},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"m": 0, "n": 0}, {"m": 1, "n": 1}, {"m": 7, "n": 3}, {"m": 33, "n": 100}],
        "layouts": ["C", "F", "strided"],
    },
}
