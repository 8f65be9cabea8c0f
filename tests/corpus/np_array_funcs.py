"""NumPy array functions inside kernels: np.roll, np.convolve, np.bincount, np.nonzero /
np.flatnonzero / np.where(cond), np.diag, np.fill_diagonal, np.cumsum along an axis and a
slice step held in a variable.

Exercises: rolling by positive, negative and oversized shifts (1-D and 2-D, which rolls the
flattened array), a periodic upwind step written with np.roll, np.convolve in its three modes
with the longer operand first or second, bincount with and without weights and minlength (also
bound to a name and read in a `prange`), the
indices of nonzero elements of 1-D and 2-D arrays, np.diag both ways with offsets, filling a
diagonal with a number, with an array of values and wrapped, an integral image from two
cumulative sums, and `a[::k]` with `k` an argument.
"""
import numpy as np
from numba import njit, prange


@njit
def roll_by(a, shift):
    return np.roll(a, shift)


@njit
def roll_matrix(a, shift):
    return np.roll(a, shift) * 2


@njit(fastmath=True)
def upwind_periodic(u0, c, nsteps):
    u = u0.copy()
    for _ in range(nsteps):
        u = u - c * (u - np.roll(u, 1))
    return u


@njit
def convolve_full(x, h):
    return np.convolve(x, h)


@njit
def convolve_modes(x, h):
    same = np.convolve(x, h, "same")
    valid = np.convolve(x, h, mode="valid")
    return same, valid


@njit
def smooth_same(x, h):
    full = np.convolve(x, h)
    start = (h.size - 1) // 2
    return full[start:start + x.size]


@njit
def count_labels(labels):
    return np.bincount(labels)


@njit
def count_labels_min(labels, k):
    return np.bincount(labels, minlength=k)


@njit(parallel=True)
def share_of_label(labels, k):
    sizes = np.bincount(labels, minlength=k)
    share = np.empty(labels.shape[0])
    for i in prange(labels.shape[0]):
        share[i] = 1.0 / sizes[labels[i]]
    return share, sizes.max()


@njit
def weighted_counts(labels, weights):
    return np.bincount(labels, weights=weights)


@njit
def positive_positions(x):
    return np.nonzero(x > 0)[0]


@njit
def big_entries(a, threshold):
    rows, cols = np.nonzero(a > threshold)
    return rows, cols, rows * a.shape[1] + cols


@njit
def flat_positions(a):
    return np.flatnonzero(a > 0.25)


@njit
def where_positions(a):
    h, w = a.shape
    cols = np.where(a < 0)[1]
    return cols, w


@njit
def primes_upto(n):
    is_prime = np.ones(n + 1, dtype=np.bool_)
    is_prime[:2] = False
    i = 2
    while i * i <= n:
        if is_prime[i]:
            is_prime[i * i::i] = False
        i += 1
    return np.nonzero(is_prime)[0]


@njit
def diag_matrix(v, k):
    return np.diag(v, k)


@njit
def diag_of(a, k):
    return np.diag(a, k) + np.diag(a)[0]


@njit
def correlation(X):
    n, d = X.shape
    Xc = X - X.sum(axis=0) / n
    cov = Xc.T @ Xc / (n - 1)
    std = np.sqrt(np.diag(cov))
    return cov / np.outer(std, std)


@njit
def zero_diagonal(W):
    D = W.copy()
    np.fill_diagonal(D, 0.0)
    return D


@njit
def fill_diagonal_values(a, values):
    np.fill_diagonal(a, values)


@njit
def fill_diagonal_wrapped(a, value):
    np.fill_diagonal(a, value, wrap=True)
    return a.sum()


@njit
def integral_image(img):
    return np.cumsum(np.cumsum(img, axis=0), axis=1)


@njit
def running_rows(a):
    return a.cumsum(axis=-1)


@njit
def every_kth(a, k):
    return a[::k].copy()


@njit
def downsample(img, factor):
    return img[::factor, ::factor].copy()


@njit
def strided_sum(a, start, step):
    return a[start::step].sum()


KPC_CASES = {
    "roll_by": {
        "args": {"a": ("n",), "shift": {"kind": "scalar", "value": "n // 3 - 2"}},
        "dtypes": ["float64", "int32", "bool"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 100}],
        "layouts": ["C", "strided"],
    },
    "roll_matrix": {
        "args": {"a": ("n", "m"), "shift": {"kind": "scalar", "value": "n * m + 3"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 5, "m": 7}],
        "layouts": ["C", "F", "strided"],
    },
    "upwind_periodic": {
        "args": {"u0": ("n",), "c": {"kind": "scalar", "value": 0.4}, "nsteps": {"kind": "scalar", "value": "s"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "s": 3}, {"n": 300, "s": 20}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "convolve_full": {
        "args": {"x": ("n",), "h": ("m",)},
        "dtypes": ["float64", "float32", "int64", "int32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 3, "m": 8}, {"n": 200, "m": 9}],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-5},
    },
    "convolve_modes": {
        "args": {"x": ("n",), "h": ("m",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 4, "m": 7}, {"n": 8, "m": 7}, {"n": 101, "m": 6}],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-10},
        "atol": {"float64": 1e-12},
    },
    "smooth_same": {
        "args": {"x": ("n",), "h": ("m",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "m": 3}, {"n": 300, "m": 9}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "count_labels": {
        "args": {"labels": {"kind": "index", "shape": ("n",), "high": "k"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "k": 3}, {"n": 1, "k": 3}, {"n": 500, "k": 10}],
        "layouts": ["C", "strided"],
    },
    "count_labels_min": {
        "args": {"labels": {"kind": "index", "shape": ("n",), "high": "k", "dtype": "int32"},
                 "k": {"kind": "scalar", "value": "k + n % 3"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "k": 3}, {"n": 500, "k": 10}],
    },
    "share_of_label": {
        "args": {"labels": {"kind": "index", "shape": ("n",), "high": "k"}, "k": {"kind": "scalar", "value": "k"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 1, "k": 1}, {"n": 500, "k": 10}],
    },
    "weighted_counts": {
        "args": {"labels": {"kind": "index", "shape": ("n",), "high": "k"}, "weights": ("n",)},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"n": 1, "k": 3}, {"n": 500, "k": 10}],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-10, "float32": 1e-6},
        "atol": {"float64": 1e-12, "float32": 1e-6},
    },
    "positive_positions": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 200}],
        "layouts": ["C", "strided"],
    },
    "big_entries": {
        "args": {"a": ("n", "m"), "threshold": {"kind": "scalar", "value": 0.5}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 13, "m": 17}],
        "layouts": ["C", "F", "strided"],
    },
    "flat_positions": {
        "args": {"a": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 13, "m": 17}],
        "layouts": ["C", "F"],
    },
    "where_positions": {
        "args": {"a": ("n", "m")},
        "dtypes": ["float64", "int32"],
        "sizes": [{"n": 2, "m": 2}, {"n": 13, "m": 17}],
        "layouts": ["C", "F"],
    },
    "primes_upto": {
        "args": {"n": {"kind": "scalar", "value": "n"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 1}, {"n": 2}, {"n": 1000}],
    },
    "diag_matrix": {
        "args": {"v": ("n",), "k": {"kind": "scalar", "value": "n // 2 - 2"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 9}],
        "layouts": ["C", "strided"],
    },
    "diag_of": {
        "args": {"a": ("n", "m"), "k": {"kind": "scalar", "value": "m - n - 1"}},
        "dtypes": ["float64", "int32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 6, "m": 9}, {"n": 9, "m": 4}],
        "layouts": ["C", "F", "strided"],
    },
    "correlation": {
        "args": {"X": ("n", "d")},
        "dtypes": ["float64"],
        "sizes": [{"n": 4, "d": 3}, {"n": 100, "d": 8}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "zero_diagonal": {
        "args": {"W": ("n", "m")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1, "m": 1}, {"n": 30, "m": 30}, {"n": 5, "m": 8}],
        "layouts": ["C", "F"],
    },
    "fill_diagonal_values": {
        "args": {"a": ("n", "m"), "values": ("k",)},
        "dtypes": ["float64", "int32"],
        "sizes": [{"n": 6, "m": 4, "k": 3}, {"n": 3, "m": 9, "k": 5}],
        "writes": ["a"],
        "layouts": ["C", "F"],
    },
    "fill_diagonal_wrapped": {
        "args": {"a": ("n", "m"), "value": {"kind": "scalar", "value": 5.0}},
        "dtypes": ["float64"],
        "sizes": [{"n": 7, "m": 3}, {"n": 3, "m": 7}, {"n": 20, "m": 6}],
        "writes": ["a"],
    },
    "integral_image": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64", "int64", "int32"],
        "sizes": [{"h": 1, "w": 1}, {"h": 27, "w": 35}],
        "layouts": ["C", "F", "strided"],
        "rtol": {"float64": 1e-12},
    },
    "running_rows": {
        "args": {"a": {"kind": "array", "shape": ("n", "m"), "low": 0, "high": 9}},
        "dtypes": ["float32", "int32", "uint8"],
        "sizes": [{"n": 3, "m": 0}, {"n": 9, "m": 40}],
        "rtol": {"float32": 1e-4},
        "atol": {"float32": 1e-5},
    },
    "every_kth": {
        "args": {"a": ("n",), "k": {"kind": "scalar", "value": "n // 4 + 1"}},
        "dtypes": ["float64", "int32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 30}],
        "layouts": ["C", "strided"],
    },
    "downsample": {
        "args": {"img": ("h", "w"), "factor": {"kind": "scalar", "value": "f"}},
        "dtypes": ["float64"],
        "sizes": [{"h": 1, "w": 1, "f": 2}, {"h": 31, "w": 20, "f": 3}],
        "layouts": ["C", "F"],
    },
    "strided_sum": {
        "args": {"a": ("n",), "start": {"kind": "scalar", "value": "s"}, "step": {"kind": "scalar", "value": "k"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 30, "s": 2, "k": 3}, {"n": 30, "s": 27, "k": -4}, {"n": 30, "s": -1, "k": -1},
                  {"n": 5, "s": 9, "k": 2}, {"n": 30, "s": -40, "k": 7}],
    },
}
