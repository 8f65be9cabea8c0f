"""Discrete Fourier transform by explicit loops over complex exponentials, a parallel real-arithmetic DFT, a DFT-matrix power spectrum and the inverse DFT.
The O(N^2) transforms written in signal-processing courses and when np.fft is not available in nopython mode.
"""
import cmath
import math
import numpy as np
from numba import njit, prange


@njit
def dft_loops(x):
    N = x.shape[0]
    X = np.zeros(N, dtype=np.complex128)
    for k in range(N):
        s = 0j
        for n in range(N):
            s += x[n] * cmath.exp(-2j * np.pi * k * n / N)
        X[k] = s
    return X


@njit(parallel=True)
def dft_real_parallel(x):
    N = x.size
    re = np.empty(N)
    im = np.empty(N)
    for k in prange(N):
        sr = 0.0
        si = 0.0
        for n in range(N):
            ang = 2.0 * math.pi * k * n / N
            sr += x[n] * math.cos(ang)
            si -= x[n] * math.sin(ang)
        re[k] = sr
        im[k] = si
    return re, im


@njit
def dft_matrix(N):
    n = np.arange(N)
    k = n.reshape((N, 1))
    return np.exp(-2j * np.pi * k * n / N)


@njit
def power_spectrum(x):
    W = dft_matrix(x.size)
    X = W @ x.astype(np.complex128)
    return np.abs(X) ** 2 / x.size


@njit
def idft(X):
    N = X.shape[0]
    x = np.empty(N, dtype=np.complex128)
    for n in range(N):
        acc = 0.0 + 0.0j
        for k in range(N):
            acc += X[k] * np.exp(2j * np.pi * k * n / N)
        x[n] = acc / N
    return x


KPC_CASES = {
    "dft_loops": {
        "args": {"x": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 8}, {"n": 100}],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
    "dft_real_parallel": {
        "args": {"x": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 100}],
        "layouts": ["C", "strided"],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
    "power_spectrum": {
        "args": {"x": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 2}, {"n": 64}],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
    "idft": {
        "args": {"X": ("n",)},
        "dtypes": ["complex128"],
        "sizes": [{"n": 1}, {"n": 50}],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
}
