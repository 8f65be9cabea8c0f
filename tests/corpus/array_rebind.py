"""Array names bound in several places: in both branches of an `if`, to slices in a loop,
to a new array expression in every step.

Exercises: `y = np.zeros(n)` / `y = np.ones(n)` in the two branches, then written and
returned; a name bound to one argument, another argument or a fresh array depending on a
flag, written through and returned (the caller sees the write in the argument it picked);
a window that shrinks by rebinding to a slice (`w = w[k:]`) in a `while` loop, 1-D and
2-D; `v = v / v.sum() + 1.0` in a time loop (a new array per step, the last one returned);
a power iteration written with `@`; a parameter rebound to its own copy (`u = u.copy()`), to
a slice (`x = x[k:]`), or to a copy in one branch only (the caller's array is written when
the copy is not made); a copy returned after its rows were passed to a helper that swaps their
elements (`row = out[r]`: another name viewing part of it); a name rebound to the result of
inlined helpers that read it (`h = _center(h)`: the helper's parameter views the old array
after `h` is bound to the new one, so that array must stay alive: it used to be freed, and
the helper read freed memory); a name bound to such an array and returned after the name it
came from was rebound (`y = h; h = h + 1.0; return y, h`). kpc declares such a name once as a view (a handle:
rebinding copies nothing) and keeps the NumPy array it last viewed alive; it used to keep
these kernels as Numba ("array variable 'y' ... is assigned in several places").
"""
import numpy as np
from numba import njit


@njit
def branch_alloc(x, flag):
    if flag > 0:
        y = np.zeros(x.shape[0])
    else:
        y = np.ones(x.shape[0])
    for i in range(x.shape[0]):
        y[i] += 2.0 * x[i]
    return y


@njit
def pick(x, z, mode):
    if mode == 0:
        out = x
    elif mode == 1:
        out = z
    else:
        out = np.zeros_like(x)
    out[0] = 42.0
    for i in range(1, out.shape[0]):
        out[i] = out[i - 1] * 0.5 + out[i]
    return out


@njit
def window(x, k):
    s = 0.0
    w = x
    while w.shape[0] > k:
        s += w[0] * w.shape[0]
        w = w[k:]
    return s + w.sum()


@njit
def shrink2d(a):
    total = 0.0
    b = a
    while b.shape[0] > 1 and b.shape[1] > 1:
        total += b[0, 0] + b.sum()
        b = b[1:, 1:]
    return total


@njit
def normalize_steps(x, steps):
    v = x.copy()
    for k in range(steps):
        v = v / (np.abs(v).sum() + 1.0) + 1.0
    return v


@njit
def power_iteration(a, steps):
    v = np.ones(a.shape[1])
    for k in range(steps):
        w = a @ v
        v = w / np.sqrt((w * w).sum() + 1.0)
    return v


@njit
def smooth_copy(u, steps):
    u = u.copy()
    for k in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


@njit
def tail_sum(x, k):
    x = x[k:]
    return x.sum()


@njit
def maybe_copy(x, flag):
    if flag > 0:
        x = x.copy()
    x[0] = -1
    return x


@njit
def _order(v, i, j):
    if v[i] > v[j]:
        v[i], v[j] = v[j], v[i]


@njit
def sort3_rows(a):
    out = a.copy()
    for r in range(out.shape[0]):
        row = out[r]
        _order(row, 0, 1)
        _order(row, 1, 2)
        _order(row, 0, 1)
    return out


@njit
def backward_induction(v, p, disc):
    """A binomial tree's backward induction: a temporary read once (inlined) that reads the
    name its result rebinds; the new array must not be allocated under that name first."""
    values = v.copy()
    floor = v * 0.5
    for _ in range(v.shape[0] - 1):
        floor = floor[1:] * disc
        cont = disc * (p * values[1:] + (1 - p) * values[:-1])
        values = np.maximum(cont, floor)
    return values[0]


@njit
def _center(x):
    return x - x.sum() / x.shape[0]


@njit
def _clip_low(x):
    return np.maximum(x, 0.0)


@njit
def helpers_rebind(x, w):
    h = x @ w
    h = _center(h)
    h = _clip_low(h)
    return h * 2.0


@njit
def alias_kept(x):
    h = x * 2.0
    y = h
    h = h + 1.0
    return y + 0.5, y, h


KPC_CASES = {
    "alias_kept": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1}, {"n": 300}],
        "layouts": ["C", "strided"],
    },
    "helpers_rebind": {
        "args": {"x": ("n", "d"), "w": ("d", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "d": 1, "m": 1}, {"n": 3, "d": 2, "m": 4}, {"n": 40, "d": 3, "m": 30}],
        "layouts": ["C", "F"],
    },
    "backward_induction": {
        "args": {"v": ("n",), "p": {"kind": "scalar", "value": 0.45}, "disc": {"kind": "scalar", "value": 0.98}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 2}, {"n": 9}, {"n": 40}],
        "layouts": ["C", "strided"],
    },
    "branch_alloc": {
        "args": {"x": ("n",), "flag": {"kind": "scalar", "value": "flag"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "flag": 1}, {"n": 7, "flag": 1}, {"n": 7, "flag": 0}, {"n": 50, "flag": -3}],
        "layouts": ["C", "strided"],
    },
    "pick": {
        "args": {"x": ("n",), "z": ("n",), "mode": {"kind": "scalar", "value": "mode"}},
        "writes": ["x", "z"],
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "mode": 0}, {"n": 6, "mode": 0}, {"n": 6, "mode": 1}, {"n": 9, "mode": 2}],
        "layouts": ["C", "strided"],
    },
    "window": {
        "args": {"x": ("n",), "k": {"kind": "scalar", "value": "k"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "k": 1}, {"n": 10, "k": 3}, {"n": 31, "k": 4}],
        "layouts": ["C", "strided"],
    },
    "shrink2d": {
        "args": {"a": ("n", "m")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 5, "m": 7}, {"n": 12, "m": 4}],
        "layouts": ["C", "F", "strided"],
    },
    "normalize_steps": {
        "args": {"x": ("n",), "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 3, "steps": 0}, {"n": 8, "steps": 1}, {"n": 40, "steps": 5}],
        "layouts": ["C", "strided"],
    },
    "power_iteration": {
        "args": {"a": ("n", "n"), "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "steps": 2}, {"n": 6, "steps": 0}, {"n": 6, "steps": 4}, {"n": 20, "steps": 8}],
        "layouts": ["C", "F"],
    },
    "smooth_copy": {
        "args": {"u": ("n", "m"), "steps": {"kind": "scalar", "value": "steps"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 2, "m": 2, "steps": 1}, {"n": 6, "m": 9, "steps": 3}],
        "layouts": ["C", "strided"],  # F: u.copy() is C, Numba unifies u to layout A; kpc keeps it as Numba
    },
    "tail_sum": {
        "args": {"x": ("n",), "k": {"kind": "scalar", "value": "k"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "k": 0}, {"n": 9, "k": 3}, {"n": 9, "k": 12}],
        "layouts": ["C", "strided"],
    },
    "maybe_copy": {
        "args": {"x": ("n",), "flag": {"kind": "scalar", "value": "flag"}},
        "writes": ["x"],
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "flag": 1}, {"n": 5, "flag": 0}, {"n": 5, "flag": 1}],
        "layouts": ["C", "strided"],
    },
    "sort3_rows": {
        "args": {"a": ("n", 3)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1}, {"n": 8}],
        "layouts": ["C", "strided"],
    },
}
