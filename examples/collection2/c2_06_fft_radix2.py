"""Iterative radix-2 Cooley-Tukey FFT with bit reversal, its inverse, and FFT-based convolution.
Hand-written FFTs of the kind shown in numerical-methods courses, on complex128 arrays.
"""
import cmath
import math

import numpy as np
from numba import njit


@njit
def bit_reverse(x):
    n = x.shape[0]
    out = x.copy()
    j = 0
    for i in range(1, n):
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j ^= bit
        if i < j:
            out[i], out[j] = out[j], out[i]
    return out


@njit
def fft_iterative(x):
    n = x.shape[0]
    if n & (n - 1) != 0:
        raise ValueError("length must be a power of two")
    a = bit_reverse(x.astype(np.complex128))
    size = 2
    while size <= n:
        half = size // 2
        w_step = cmath.exp(-2j * math.pi / size)
        for start in range(0, n, size):
            w = 1.0 + 0.0j
            for k in range(half):
                u = a[start + k]
                v = a[start + k + half] * w
                a[start + k] = u + v
                a[start + k + half] = u - v
                w *= w_step
        size *= 2
    return a


@njit
def ifft_iterative(X):
    n = X.shape[0]
    return np.conj(fft_iterative(np.conj(X))) / n


@njit
def fft_recursive(x):
    n = x.shape[0]
    if n == 1:
        return x.astype(np.complex128)
    even = fft_recursive(x[0::2])
    odd = fft_recursive(x[1::2])
    k = np.arange(n // 2)
    tw = np.exp(-2j * np.pi * k / n) * odd
    return np.concatenate((even + tw, even - tw))


@njit
def fft_convolve(a, b):
    m = a.shape[0] + b.shape[0] - 1
    n = 1
    while n < m:
        n *= 2
    fa = np.zeros(n, dtype=np.complex128)
    fb = np.zeros(n, dtype=np.complex128)
    fa[:a.shape[0]] = a
    fb[:b.shape[0]] = b
    prod = fft_iterative(fa) * fft_iterative(fb)
    return ifft_iterative(prod).real[:m]


@njit
def power_spectrum(x):
    X = fft_iterative(x)
    n = x.shape[0]
    half = n // 2 + 1
    ps = np.empty(half)
    for k in range(half):
        ps[k] = (X[k].real ** 2 + X[k].imag ** 2) / n
    return ps


KPC_CASES = {
    "fft_iterative": {
        "args": {"x": ("n",)},
        "dtypes": ["complex128", "float64"],
        "sizes": [{"n": 1}, {"n": 8}, {"n": 6}, {"n": 262144}],
        "rtol": 1e-9,
        "atol": 1e-8,
    },
    "ifft_iterative": {
        "args": {"X": ("n",)},
        "dtypes": ["complex128"],
        "sizes": [{"n": 1}, {"n": 16}, {"n": 131072}],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
    "fft_recursive": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "complex128"],
        "sizes": [{"n": 1}, {"n": 32}, {"n": 16384}],
        "rtol": 1e-9,
        "atol": 1e-8,
    },
    "fft_convolve": {
        "args": {"a": ("n",), "b": ("m",)},
        "sizes": [{"n": 1, "m": 1}, {"n": 30, "m": 7}, {"n": 60000, "m": 5000}],
        "rtol": 1e-8,
        "atol": 1e-8,
    },
    "power_spectrum": {
        "args": {"x": ("n",)},
        "sizes": [{"n": 2}, {"n": 65536}],
        "layouts": ["C", "strided"],
        "rtol": 1e-8,
        "atol": 1e-9,
    },
}
