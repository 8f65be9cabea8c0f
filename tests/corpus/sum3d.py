"""Seed kernel: sum of a 3-D array with three nested serial loops.

Exercises: `import numba` + `@numba.njit`, `arr.shape[k]` bounds, a triple
loop nest that a compiler may turn into an MDRange reduction.
"""
import numba


@numba.njit
def sum3d(arr):
    total = 0.0
    for i in range(arr.shape[0]):
        for j in range(arr.shape[1]):
            for k in range(arr.shape[2]):
                total += arr[i, j, k]
    return total


KPC_CASES = {
    "sum3d": {
        "args": {"arr": ("n", "m", "k")},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [
            {"n": 0, "m": 4, "k": 4},
            {"n": 1, "m": 1, "k": 1},
            {"n": 7, "m": 5, "k": 3},
            {"n": 20, "m": 17, "k": 9},
        ],
        "layouts": ["C", "F", "strided"],
    },
}
