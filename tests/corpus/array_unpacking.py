"""Arrays unpacked into names, as Numba does: `ax, ay = line[i]` (the elements of a row),
`r, s = a` (the rows of a 2-D array), `x, y, z = a * 2.0 + 1.0` (a computed array), and
`i, j = idx[i]` (a name that the value reads, assigned by the unpacking). An array whose
length is not the number of names raises ValueError: tests/backend/test_array_unpacking.py.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def segment_lengths(line):
    out = np.empty(line.shape[0] - 1)
    for i in prange(line.shape[0] - 1):
        ax, ay = line[i]
        bx, by = line[i + 1]
        out[i] = np.sqrt((bx - ax) ** 2 + (by - ay) ** 2)
    return out


@njit
def follow_pairs(idx, steps):
    i = 0
    j = 1
    for _ in range(steps):
        i, j = idx[i]
    return i * 10 + j


@njit
def row_difference(a):
    r, s = a
    return r.sum() - 2.0 * s.sum()


@njit
def unpack_computed(a):
    x, y, z = a * 2.0 + 1.0
    return x - y * z


KPC_CASES = {
    "segment_lengths": {
        "args": {"line": ("n", "d")},
        "sizes": [{"n": 2, "d": 2}, {"n": 300, "d": 2}],
        "layouts": ["C", "F"],
    },
    "follow_pairs": {
        "args": {"idx": {"kind": "index", "shape": ("n", "d"), "high": "n"},
                 "steps": {"kind": "scalar", "value": 5}},
        "sizes": [{"n": 3, "d": 2}, {"n": 40, "d": 2}],
    },
    "row_difference": {
        "args": {"a": ("k", "m")},
        "sizes": [{"k": 2, "m": 1}, {"k": 2, "m": 7}],
        "layouts": ["C", "F"],
    },
    "unpack_computed": {
        "args": {"a": ("m",)},
        "sizes": [{"m": 3}],
    },
}
