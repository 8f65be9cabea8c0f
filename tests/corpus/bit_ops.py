"""Integer bit manipulation.

Exercises: `&`, `|`, `^`, `<<`, `>>` and `~` on int64 values (`>>` of a
negative value is an arithmetic shift), a popcount with a `while` loop
clearing the lowest set bit, a xorshift hash mixing step, and a parity
reduction with `^=` in a serial loop.
"""
import numba


@numba.njit
def popcounts(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        c = 0
        while v != 0:
            v &= v - 1
            c += 1
        out[i] = c


@numba.njit(parallel=True)
def xorshift_mix(x, out):
    for i in numba.prange(x.shape[0]):
        v = x[i]
        v ^= v << 13
        v ^= v >> 7
        v ^= v << 17
        out[i] = v


@numba.njit
def parity_and_mask(x, mask):
    acc = 0
    merged = 0
    for i in range(x.shape[0]):
        acc ^= x[i]
        merged |= x[i] & mask
    return acc, merged, ~merged, (acc >> 3) & 7


KPC_CASES = {
    "popcounts": {
        "args": {
            "x": {"kind": "array", "shape": ("n",), "low": 0, "high": 1000000000},
            "out": ("n",),
        },
        "dtypes": ["int64"],
        "sizes": [{"n": 0}, {"n": 33}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "xorshift_mix": {
        "args": {
            "x": {"kind": "array", "shape": ("n",), "low": -1000000, "high": 1000000},
            "out": ("n",),
        },
        "dtypes": ["int64"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
        "writes": ["out"],
    },
    "parity_and_mask": {
        "args": {
            "x": {"kind": "array", "shape": ("n",), "low": -5000, "high": 5000},
            "mask": {"kind": "scalar", "value": 1023},
        },
        "dtypes": ["int64"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 100}],
    },
}
