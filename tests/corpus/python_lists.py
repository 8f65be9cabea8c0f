"""Python lists built in a kernel: appended to, popped, sorted, iterated, measured and made arrays.

Exercises: peaks collected with `peaks.append(i)` and returned as `np.array(peaks, dtype=...)`
(none found: an empty array); a depth-first flood fill whose stack is a list of `(r, c)`
tuples (`y, x = todo.pop()`, `while len(todo) > 0`, eight appends per cell); a list created again in each row of
a sparse product (Gustavson: `cols = []`, `cols.sort()`, `for c in cols`) next to
lists that grow across rows (`len(out_cols)`); a list started from a literal whose appends
mix ints and floats (Numba unifies them: float64); `pop()` past the end
(`IndexError: pop from empty list`, as in Numba); `while stack:` and `if not stack:`; a list of tuples iterated with
`for a, b in pairs`. Lists grow past their first buffer in the larger sizes.
"""
import numpy as np
from numba import njit


@njit
def peaks_above(x, threshold):
    peaks = []
    for i in range(1, x.shape[0] - 1):
        if x[i] > threshold and x[i] >= x[i - 1] and x[i] > x[i + 1]:
            peaks.append(i)
    return np.array(peaks, dtype=np.int64)


@njit
def fill_region(img, seed_r, seed_c, new_value):
    """8-connected fill from a seed; returns the filled image and how many cells changed."""
    out = img.copy()
    rows, cols = out.shape
    target = out[seed_r, seed_c]
    changed = 0
    if target == new_value:
        return out, changed
    todo = [(seed_r, seed_c)]
    while len(todo) > 0:
        y, x = todo.pop()
        if 0 <= y < rows and 0 <= x < cols and out[y, x] == target:
            out[y, x] = new_value
            changed += 1
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    if dy != 0 or dx != 0:
                        todo.append((y + dy, x + dx))
    return out, changed


@njit
def csr_square(per_row, idx, val, ncols):
    """The sparse product of a CSR matrix with itself, one row at a time (Gustavson)."""
    n = idx.shape[0] // per_row
    row_start = np.arange(0, (n + 1) * per_row, per_row)
    dense = np.zeros(ncols)
    seen = np.zeros(ncols, dtype=np.bool_)
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    out_cols = []
    out_vals = []
    for row in range(n):
        cols = []
        for p in range(row_start[row], row_start[row + 1]):
            mid = idx[p] % n
            for q in range(row_start[mid], row_start[mid + 1]):
                if not seen[idx[q]]:
                    seen[idx[q]] = True
                    cols.append(idx[q])
                dense[idx[q]] += val[p] * val[q]
        cols.sort()
        for c in cols:
            out_cols.append(c)
            out_vals.append(dense[c])
            dense[c] = 0.0
            seen[c] = False
        out_ptr[row + 1] = len(out_cols)
    return out_ptr, np.array(out_cols), np.array(out_vals)


@njit
def mixed_values(x):
    values = [1, 2]
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            values.append(x[i])
        else:
            values.append(i)
    total = 0.0
    for v in values:
        total += v
    return total, len(values), np.asarray(values)


@njit
def pop_all(x, extra):
    kept = [0.0]
    kept.pop()
    for i in range(x.shape[0]):
        kept.append(x[i] * 2.0)
    total = 0.0
    for _ in range(x.shape[0] + extra):
        total += kept.pop()
    return total


@njit
def drain(x):
    stack = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            stack.append(x[i])
    if not stack:
        return -1.0
    s = 0.0
    while stack:
        s = s * 0.5 + stack.pop()
    return s


@njit
def pair_sums(a, b):
    pairs = []
    for i in range(a.shape[0]):
        pairs.append((a[i], b[i] * 0.5))
    sa = 0
    sb = 0.0
    for p, q in pairs:
        sa += p
        sb += q
    last_a, last_b = pairs.pop()
    return sa, sb, last_a, last_b


KPC_CASES = {
    "peaks_above": {
        "args": {"x": ("n",), "threshold": {"kind": "scalar", "value": 0.6}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 2}, {"n": 40}, {"n": 5000}],
    },
    "fill_region": {
        "args": {"img": {"kind": "index", "shape": ("h", "w"), "high": "k"},
                 "seed_r": {"kind": "scalar", "value": "h // 2"}, "seed_c": {"kind": "scalar", "value": "w // 2"},
                 "new_value": {"kind": "scalar", "value": 7}},
        "dtypes": ["int64"],
        "sizes": [{"h": 1, "w": 1, "k": 2}, {"h": 6, "w": 9, "k": 2}, {"h": 60, "w": 50, "k": 1}],
    },
    "csr_square": {
        "args": {"per_row": {"kind": "scalar", "value": "r"},
                 "idx": {"kind": "index", "shape": ("nnz",), "high": "n"},
                 "val": ("nnz",), "ncols": {"kind": "scalar", "value": "n"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "r": 1, "nnz": 1}, {"n": 20, "r": 3, "nnz": 60}, {"n": 300, "r": 5, "nnz": 1500}],
        "rtol": 1e-12,
    },
    "mixed_values": {
        "args": {"x": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 0}, {"n": 5}, {"n": 100}],
        "rtol": 1e-12,
    },
    "pop_all": {
        "args": {"x": ("n",), "extra": {"kind": "scalar", "value": "e"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 0, "e": 0}, {"n": 3, "e": 1}, {"n": 30, "e": 0}, {"n": 0, "e": 1}],
        "rtol": 1e-12,
    },
    "drain": {
        "args": {"x": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 60}],
        "rtol": 1e-12,
    },
    "pair_sums": {
        "args": {"a": {"kind": "index", "shape": ("n",), "high": 9}, "b": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 7}, {"n": 50}],
        "rtol": 1e-12,
    },
}
