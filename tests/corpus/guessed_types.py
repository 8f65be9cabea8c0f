"""Kernels without signatures whose bodies say which parameters are integers.

Exercises the types kpc guesses for a file built without signatures (``kpc build
--explain``, the PyKokkos target's built types): a scatter index computed into a local
(`b = keys[i] % nbins; counts[b] += 1` makes `keys` an integer array and `nbins` an
integer), a range bound computed with `//`, a shift count; and a kernel whose guess
(float64 everywhere) does not type (`values[order]` needs an integer `order`): it is
typed at each call on both targets. The scatter runs in a `prange` and Numba's own
scatter is not atomic, so the Numba reference runs single-threaded.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def bin_counts(keys, nbins, counts):
    for i in prange(keys.shape[0]):
        b = keys[i] % nbins
        counts[b] += 1


@njit
def strided_sum(x, step):
    total = 0.0
    count = x.shape[0] // step
    for k in range(count):
        total += x[k * step]
    return total


@njit
def low_bits(x, bits):
    out = np.empty_like(x)
    mask = (1 << bits) - 1
    for i in range(x.shape[0]):
        out[i] = x[i] & mask
    return out


@njit
def gather_sum(values, order):
    picked = values[order]
    total = 0.0
    for i in range(order.shape[0]):
        total += picked[i] * (i + 1)
    return total


KPC_CASES = {
    "bin_counts": {
        "args": {
            "keys": {"kind": "index", "shape": ("n",), "high": "top"},
            "nbins": {"kind": "scalar", "value": "bins"},
            "counts": {"kind": "array", "shape": ("bins",), "dtype": "int64", "low": 0, "high": 3},
        },
        "sizes": [{"n": 0, "bins": 1, "top": 5}, {"n": 1, "bins": 3, "top": 9}, {"n": 1000, "bins": 7, "top": 100}],
        "dtypes": ["int64"],
        "writes": ["counts"],
        "serial_reference": True,
    },
    "strided_sum": {
        "args": {"x": ("n",), "step": {"kind": "scalar", "value": 3}},
        "sizes": [{"n": 0}, {"n": 2}, {"n": 100}],
        "dtypes": ["float64", "float32"],
    },
    "low_bits": {
        "args": {"x": {"kind": "index", "shape": ("n",), "high": 1000}, "bits": {"kind": "scalar", "value": 4}},
        "sizes": [{"n": 0}, {"n": 50}],
        "dtypes": ["int64"],
    },
    "gather_sum": {
        "args": {"values": ("n",), "order": {"kind": "index", "shape": ("m",), "high": "n"}},
        "sizes": [{"n": 1, "m": 0}, {"n": 10, "m": 30}],
        "dtypes": ["float64", "float32"],
    },
}
