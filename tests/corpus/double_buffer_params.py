"""Explicit PDE time loops that double-buffer the caller's own arrays.

Exercises: `u, v = v, u` on two parameters around a parallel stencil (the most common shape of
explicit finite-difference codes: the caller passes both buffers), boundary values set by
host statements between sweeps, and the slice form `v[1:-1] = u[1:-1] + ...` with `v = u.copy()`
before the loop; the same serial, with prange, in 2-D, without a return, returning the
other buffer and reducing the last one. Found by the long-tail suite: kpc declared the
parameters as const views and the swap did not compile (issue 32); the GPU issue needs these shapes on the device.
"""
from numba import njit, prange


@njit(parallel=True)
def heat_swap(u, v, c, steps):
    n = u.shape[0]
    for _ in range(steps):
        for i in prange(1, n - 1):
            v[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        u, v = v, u
    return u


@njit
def heat_slices(u, c, steps):
    v = u.copy()
    for _ in range(steps):
        v[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u, v = v, u
    return u


@njit(parallel=True)
def wave_2d(u, u_prev, c2, steps):
    n, m = u.shape
    u_next = u_prev.copy()
    for _ in range(steps):
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
                u_next[i, j] = 2.0 * u[i, j] - u_prev[i, j] + c2 * lap
        u_prev, u, u_next = u, u_next, u_prev
    return u


@njit
def heat_params_serial(u, v, c, steps):
    n = u.shape[0]
    for _ in range(steps):
        for i in range(1, n - 1):
            v[i] = u[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1])
        u, v = v, u
    return u


@njit(parallel=True)
def heat_slices_prange_copy(u, a, steps):
    v = u.copy()
    for _ in range(steps):
        v[1:-1] = u[1:-1] + a * (u[2:] - 2 * u[1:-1] + u[:-2])
        u, v = v, u
    return u


@njit(parallel=True)
def heat_params_prange_noreturn(u, v, c, steps):
    n = u.shape[0]
    for _ in range(steps):
        for i in prange(1, n - 1):
            v[i] = u[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1])
        u, v = v, u


@njit(parallel=True)
def jacobi_2d_slices(u, a, steps):
    v = u.copy()
    for _ in range(steps):
        v[1:-1, 1:-1] = u[1:-1, 1:-1] + a * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
        u, v = v, u
    return u


@njit
def jacobi_2d_params(u, v, a, steps):
    n, m = u.shape
    for _ in range(steps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                v[i, j] = u[i, j] + a * (u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4 * u[i, j])
        u, v = v, u
    return v


@njit(parallel=True)
def heat_slices_params(u, v, a, steps):
    for _ in range(steps):
        v[1:-1] = u[1:-1] + a * (u[2:] - 2 * u[1:-1] + u[:-2])
        u, v = v, u
    return u.sum()


KPC_CASES = {
    "heat_swap": {
        "args": {"u": ("n",), "v": ("n",), "c": {"kind": "scalar", "value": 0.2},
                 "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "steps": 0}, {"n": 9, "steps": 1}, {"n": 40, "steps": 4}, {"n": 101, "steps": 7}],
        "writes": ["u", "v"],
    },
    "heat_slices": {
        "args": {"u": ("n",), "c": {"kind": "scalar", "value": 0.2}, "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "steps": 1}, {"n": 10, "steps": 2}, {"n": 64, "steps": 5}],
        "writes": ["u"],
    },
    "wave_2d": {
        "args": {"u": ("n", "m"), "u_prev": ("n", "m"), "c2": {"kind": "scalar", "value": 0.1},
                 "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "m": 4, "steps": 1}, {"n": 17, "m": 12, "steps": 3}, {"n": 40, "m": 33, "steps": 6}],
        "writes": ["u", "u_prev"],
    },
    "heat_params_serial": {
        "args": {"u": ("n",), "v": ("n",), "c": {"kind": "scalar", "value": 0.2},
                 "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "steps": 0}, {"n": 9, "steps": 1}, {"n": 40, "steps": 4}, {"n": 101, "steps": 7}],
        "writes": ["u", "v"],
    },
    "heat_slices_prange_copy": {
        "args": {"u": ("n",), "a": {"kind": "scalar", "value": 0.2}, "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "steps": 1}, {"n": 10, "steps": 2}, {"n": 200, "steps": 5}],
        "writes": ["u"],
    },
    "heat_params_prange_noreturn": {
        "args": {"u": ("n",), "v": ("n",), "c": {"kind": "scalar", "value": 0.2},
                 "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "steps": 0}, {"n": 9, "steps": 1}, {"n": 100, "steps": 5}],
        "writes": ["u", "v"],
    },
    "jacobi_2d_slices": {
        "args": {"u": ("n", "m"), "a": {"kind": "scalar", "value": 0.1}, "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "m": 3, "steps": 1}, {"n": 17, "m": 12, "steps": 3}, {"n": 70, "m": 33, "steps": 4}],
        "writes": ["u"],
    },
    "jacobi_2d_params": {
        "args": {"u": ("n", "m"), "v": ("n", "m"), "a": {"kind": "scalar", "value": 0.1},
                 "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "m": 3, "steps": 1}, {"n": 17, "m": 12, "steps": 2}, {"n": 40, "m": 33, "steps": 5}],
        "writes": ["u", "v"],
    },
    "heat_slices_params": {
        "args": {"u": ("n",), "v": ("n",), "a": {"kind": "scalar", "value": 0.2},
                 "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "steps": 1}, {"n": 10, "steps": 2}, {"n": 150, "steps": 3}],
        "writes": ["u", "v"],
    },
}
