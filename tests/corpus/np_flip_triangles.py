"""Triangles and reversals of arrays, as linear-algebra and signal kernels write them.

Exercises: `np.triu`/`np.tril` with and without a diagonal offset, in sums and products;
`np.flip`, `np.fliplr`, `np.flipud` read directly and through a local bound to the
reversed view (`y = np.flip(x)`); a reversed 1-D signal added to itself (a palindrome
test). Translated by lower-numpy as index maps (`x[n - 1 - i]`), never copied.
"""
import numpy as np
from numba import njit


@njit
def triangles(a):
    return np.triu(a) + 2.0 * np.tril(a, -1) + np.triu(a, 1) * np.tril(a)


@njit
def reversals(a, v):
    y = np.flip(a)
    return y * 2.0 + np.fliplr(a) - np.flipud(a), np.flip(v) + v


KPC_CASES = {
    "triangles": {
        "args": {"a": ("n", "m")},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 4, "m": 6}, {"n": 9, "m": 3}],
        "layouts": ["C", "F", "strided"],
    },
    "reversals": {
        "args": {"a": ("n", "m"), "v": ("k",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "m": 1, "k": 1}, {"n": 4, "m": 6, "k": 7}, {"n": 17, "m": 5, "k": 30}],
        "layouts": ["C", "F", "strided"],
    },
}
