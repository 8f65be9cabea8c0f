"""Two arrays that trade places every sweep, the way time-stepping codes double-buffer.

Exercises: `u, v = v, u` on arrays inside a serial loop around a parallel sweep, then
returning one of them (the result is whichever array the name holds after the last
swap, so an odd and an even number of sweeps return different allocations); a swap
between an argument and an allocated array, the argument written in place.
Found by hand: kpc once returned the array first allocated under the name, which was
the wrong one after an odd number of sweeps.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def smooth(u0, steps):
    u = u0.copy()
    v = np.empty_like(u)
    for s in range(steps):
        for i in prange(1, u.shape[0] - 1):
            v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1]
        v[0] = u[0]
        v[-1] = u[-1]
        u, v = v, u
    return u


@njit
def heat_in_place(a, steps):
    b = np.empty_like(a)
    src, dst = a, b
    for s in range(steps):
        for i in range(1, src.shape[0] - 1):
            dst[i] = src[i] + 0.1 * (src[i - 1] - 2.0 * src[i] + src[i + 1])
        dst[0] = src[0]
        dst[-1] = src[-1]
        src, dst = dst, src
    return src


KPC_CASES = {
    "smooth": {
        "args": {"u0": ("n",), "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "steps": 0}, {"n": 9, "steps": 1}, {"n": 9, "steps": 2}, {"n": 100, "steps": 5}],
        "layouts": ["C", "strided"],
    },
    "heat_in_place": {
        "args": {"a": ("n",), "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "steps": 1}, {"n": 9, "steps": 2}, {"n": 50, "steps": 3}],
        "writes": ["a"],
        "layouts": ["C", "strided"],
    },
}
