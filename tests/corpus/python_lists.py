"""Python lists built in a kernel: appended to, popped, sorted, iterated, measured and made arrays.

Exercises: peaks collected with `peaks.append(i)` and returned as `np.array(peaks, dtype=...)`
(none found: an empty array); a depth-first flood fill whose stack is a list of `(r, c)`
tuples (`r, c = stack.pop()`, `while len(stack) > 0`); a list created again in each row of
a sparse product (Gustavson: `touched = []`, `touched.sort()`, `for col in touched`) next to
lists that grow across rows (`len(c_idx)`); a list started from a literal whose appends
mix ints and floats (Numba unifies them: float64); `pop()` past the end
(`IndexError: pop from empty list`, as in Numba); a list of tuples iterated with
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
    out = img.copy()
    h, w = out.shape
    old = out[seed_r, seed_c]
    if old == new_value:
        return out
    stack = [(seed_r, seed_c)]
    while len(stack) > 0:
        r, c = stack.pop()
        if r < 0 or r >= h or c < 0 or c >= w or out[r, c] != old:
            continue
        out[r, c] = new_value
        stack.append((r + 1, c))
        stack.append((r - 1, c))
        stack.append((r, c + 1))
        stack.append((r, c - 1))
    return out


@njit
def csr_square(per_row, idx, val, ncols):
    n = idx.shape[0] // per_row
    ptr = np.arange(0, (n + 1) * per_row, per_row)
    acc = np.zeros(ncols)
    mark = np.full(ncols, -1, dtype=np.int64)
    c_ptr = np.zeros(n + 1, dtype=np.int64)
    c_idx = []
    c_val = []
    for i in range(n):
        touched = []
        for ka in range(ptr[i], ptr[i + 1]):
            j = idx[ka] % n
            for kb in range(ptr[j], ptr[j + 1]):
                col = idx[kb]
                if mark[col] != i:
                    mark[col] = i
                    acc[col] = 0.0
                    touched.append(col)
                acc[col] += val[ka] * val[kb]
        touched.sort()
        for col in touched:
            c_idx.append(col)
            c_val.append(acc[col])
        c_ptr[i + 1] = len(c_idx)
    return c_ptr, np.array(c_idx), np.array(c_val)


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
    "pair_sums": {
        "args": {"a": {"kind": "index", "shape": ("n",), "high": 9}, "b": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 7}, {"n": 50}],
        "rtol": 1e-12,
    },
}
