"""The slow shapes of issue 32: kernels written as public Numba code writes them, where a kpc
build was once slower than Numba (benchmarks/suite.py's ``slow_shapes`` suite times them).

Exercises: a 2-D convolution with a bias, `prange` over the output rows and a small window read
through runtime bounds; a covariance of the columns written with NumPy (mean along axis 0,
centring, `Xc.T @ Xc`); a radix-2 FFT written with reshapes, `np.vstack` and complex
arithmetic; Floyd-Warshall with the k loop serial and the rows in `prange`; a complex matrix
product in three nested loops; a Cholesky factorization with NumPy row operations (`np.dot` of
row slices, a column updated by a slice product); an element-wise chain of `np.clip` and
scalar arithmetic; a bit-by-bit CRC-32 over bytes and Collatz steps (an `if` that picks one
of two integers and a one-armed one: if-convert's selects, on 64- and 32-bit values); a biquad IIR filter's serial recurrence.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def conv2d_bias(img, kernel, bias):
    h, w = img.shape
    kh, kw = kernel.shape
    oh = h - kh + 1
    ow = w - kw + 1
    out = np.empty((oh, ow))
    for i in prange(oh):
        for j in range(ow):
            acc = 0.0
            for a in range(kh):
                for b in range(kw):
                    acc += img[i + a, j + b] * kernel[a, b]
            out[i, j] = acc + bias
    return out


@njit
def column_covariance(X):
    n = X.shape[0]
    mean = X.sum(axis=0) / n
    Xc = X - mean
    return (Xc.T @ Xc) / (n - 1)


@njit
def fft_radix2(x):
    N = x.shape[0]
    n_min = min(N, 8)
    n = np.arange(n_min)
    k = n.reshape(n_min, 1)
    M = np.exp(-2j * np.pi * n * k / n_min)
    X = M @ np.ascontiguousarray(x.astype(np.complex128).reshape(n_min, -1))
    while X.shape[0] < N:
        half = X.shape[1] // 2
        X_even = X[:, :half]
        X_odd = X[:, half:]
        factor = np.exp(-1j * np.pi * np.arange(X.shape[0]) / X.shape[0]).reshape(-1, 1)
        X = np.vstack((X_even + factor * X_odd, X_even - factor * X_odd))
    return X.ravel()


@njit(parallel=True)
def floyd_warshall(dist):
    n = dist.shape[0]
    for k in range(n):
        for i in prange(n):
            for j in range(n):
                if dist[i, k] + dist[k, j] < dist[i, j]:
                    dist[i, j] = dist[i, k] + dist[k, j]


@njit
def complex_matmul(A, B):
    n, m = A.shape
    p = B.shape[1]
    C = np.zeros((n, p), dtype=np.complex128)
    for i in range(n):
        for j in range(p):
            s = 0j
            for k in range(m):
                s += A[i, k] * B[k, j]
            C[i, j] = s
    return C


@njit
def cholesky_rows(M):
    n = M.shape[0]
    A = M + n * np.eye(n)
    L = np.zeros_like(A)
    for j in range(n):
        L[j, j] = np.sqrt(A[j, j] - np.dot(L[j, :j], L[j, :j]))
        L[j + 1:, j] = (A[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) / L[j, j]
    return L


@njit
def clip_chain(x, lo, hi, gain, offset):
    y = np.clip(x * gain + offset, lo, hi)
    return (y - lo) / (hi - lo) * 2.0 - 1.0


@njit
def crc32_bits(data):
    crc = 0xFFFFFFFF
    for i in range(data.shape[0]):
        crc ^= int(data[i])
        for _ in range(8):
            if crc & 1:
                crc = (crc >> 1) ^ 0xEDB88320
            else:
                crc >>= 1
    return crc ^ 0xFFFFFFFF


@njit
def collatz_steps(x, limit):
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        v = x[i]
        steps = 0
        while v > 1 and steps < limit:
            if v & 1:
                v = 3 * v + 1
            else:
                v >>= 1
            steps += 1
        if steps == limit:
            steps = -1
        out[i] = steps
    return out


@njit
def biquad(x, b0, b1, b2, a1, a2):
    y = np.empty_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for n in range(x.shape[0]):
        yn = b0 * x[n] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1
        x1 = x[n]
        y2 = y1
        y1 = yn
        y[n] = yn
    return y


KPC_CASES = {
    "conv2d_bias": {
        "args": {"img": ("h", "w"), "kernel": ("k", "k"), "bias": {"kind": "scalar", "value": 0.25}},
        "dtypes": ["float64"],
        "sizes": [{"h": 3, "w": 3, "k": 3}, {"h": 70, "w": 65, "k": 3}, {"h": 40, "w": 33, "k": 5}],
        "layouts": ["C", "F"],
        "rtol": 1e-12,
    },
    "column_covariance": {
        "args": {"X": ("n", "m")},
        "dtypes": ["float64"],
        "sizes": [{"n": 2, "m": 1}, {"n": 50, "m": 7}, {"n": 129, "m": 33}],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "fft_radix2": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "complex128"],
        "sizes": [{"n": 1}, {"n": 8}, {"n": 64}, {"n": 512}],
        "rtol": 1e-9,
        "atol": 1e-9,
    },
    "floyd_warshall": {
        "args": {"dist": {"kind": "array", "shape": ("n", "n"), "low": 0.0, "high": 10.0}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 1}, {"n": 9}, {"n": 70}],
        "writes": ["dist"],
        "layouts": ["C", "F"],
    },
    "complex_matmul": {
        "args": {"A": ("n", "m"), "B": ("m", "p")},
        "dtypes": ["complex128"],
        "sizes": [{"n": 1, "m": 1, "p": 1}, {"n": 9, "m": 7, "p": 5}, {"n": 40, "m": 33, "p": 35}],
        "layouts": ["C", "F"],
        "rtol": 1e-12,
        "atol": 1e-12,
    },
    "cholesky_rows": {
        "args": {"M": ("n", "n")},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 6}, {"n": 45}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "clip_chain": {
        "args": {"x": ("n",), "lo": {"kind": "scalar", "value": -0.5}, "hi": {"kind": "scalar", "value": 0.75},
                 "gain": {"kind": "scalar", "value": 1.5}, "offset": {"kind": "scalar", "value": 0.1}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 300}],
        "layouts": ["C", "strided"],
    },
    "crc32_bits": {
        "args": {"data": {"kind": "array", "shape": ("n",), "dtype": "uint8", "low": 0, "high": 256}},
        "dtypes": ["uint8"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 300}],
        "layouts": ["C", "strided"],
    },
    "collatz_steps": {
        "args": {"x": {"kind": "array", "shape": ("n",), "low": 0, "high": 100000},
                 "limit": {"kind": "scalar", "value": 120}},
        "dtypes": ["int64", "int32"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 200}],
        "layouts": ["C", "strided"],
    },
    "biquad": {
        "args": {"x": ("n",), "b0": {"kind": "scalar", "value": 0.2}, "b1": {"kind": "scalar", "value": 0.4},
                 "b2": {"kind": "scalar", "value": 0.2}, "a1": {"kind": "scalar", "value": -0.3},
                 "a2": {"kind": "scalar", "value": 0.1}},
        "dtypes": ["float64"],
        "sizes": [{"n": 0}, {"n": 3}, {"n": 500}],
        "layouts": ["C", "strided"],
        "rtol": 1e-12,
    },
}
