"""Array reshaping chains: block pooling via reshape, space-to-depth, patch extraction, a vectorized radix-2 FFT.
NumPy-first code that was later wrapped in @njit, with reshapes, transposes and rank changes.
"""
import numpy as np
from numba import njit


@njit
def block_mean(img, b):
    h, w = img.shape
    hb, wb = h // b, w // b
    x = np.ascontiguousarray(img[:hb * b, :wb * b])
    x = x.reshape(hb, b, wb, b)
    return x.sum(axis=3).sum(axis=1) / (b * b)


@njit
def space_to_depth(x, b):
    c, h, w = x.shape
    y = x.reshape(c, h // b, b, w // b, b)
    y = y.transpose((2, 4, 0, 1, 3))
    return np.ascontiguousarray(y).reshape(c * b * b, h // b, w // b)


@njit
def patches(img, p):
    h, w = img.shape
    nh, nw = h // p, w // p
    out = np.empty((nh * nw, p * p), dtype=img.dtype)
    for i in range(nh):
        for j in range(nw):
            out[i * nw + j] = img[i * p:(i + 1) * p, j * p:(j + 1) * p].copy().ravel()
    return out


@njit
def fft_vectorized(x):
    x = x.astype(np.complex128)
    N = x.shape[0]
    if N & (N - 1):
        raise ValueError("size of x must be a power of 2")
    n_min = min(N, 16)
    n = np.arange(n_min)
    k = n.reshape(n_min, 1)
    M = np.exp(-2j * np.pi * n * k / n_min)
    X = M @ np.ascontiguousarray(x.reshape(n_min, -1))
    while X.shape[0] < N:
        half = X.shape[1] // 2
        X_even = X[:, :half]
        X_odd = X[:, half:]
        factor = np.exp(-1j * np.pi * np.arange(X.shape[0]) / X.shape[0]).reshape(-1, 1)
        X = np.vstack((X_even + factor * X_odd, X_even - factor * X_odd))
    return X.ravel()


@njit
def channel_shuffle(x, groups):
    c, h, w = x.shape
    y = x.reshape(groups, c // groups, h, w)
    y = np.transpose(y, (1, 0, 2, 3))
    return np.ascontiguousarray(y).reshape(c, h, w)


KPC_CASES = {
    "block_mean": {
        "args": {"img": ("h", "w"), "b": {"kind": "scalar", "value": "b"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"h": 1, "w": 1, "b": 1}, {"h": 7, "w": 9, "b": 2}, {"h": 2000, "w": 2000, "b": 4}],
        "layouts": ["C", "F", "strided"],
        "rtol": {"float64": 1e-10, "float32": 1e-5},
    },
    "space_to_depth": {
        "args": {"x": ("c", "h*b", "w*b"), "b": {"kind": "scalar", "value": "b"}},
        "sizes": [{"c": 1, "h": 1, "w": 1, "b": 1}, {"c": 3, "h": 2, "w": 3, "b": 2}, {"c": 32, "h": 192, "w": 192, "b": 2}],
    },
    "patches": {
        "args": {"img": ("h", "w"), "p": {"kind": "scalar", "value": "p"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"h": 2, "w": 2, "p": 1}, {"h": 9, "w": 8, "p": 4}, {"h": 2048, "w": 2048, "p": 16}],
        "layouts": ["C", "F"],
    },
    "fft_vectorized": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "complex128"],
        "sizes": [{"n": 1}, {"n": 8}, {"n": 64}, {"n": 12}, {"n": 65536}],
        "rtol": 1e-9,
        "atol": 1e-8,
    },
    "channel_shuffle": {
        "args": {"x": ("c", "h", "w"), "groups": {"kind": "scalar", "value": "g"}},
        "dtypes": ["float32", "float64"],
        "sizes": [{"c": 1, "h": 1, "w": 1, "g": 1}, {"c": 6, "h": 3, "w": 2, "g": 3}, {"c": 128, "h": 256, "w": 256, "g": 4}],
    },
}
