"""2-D convolution layers for CNN inference: direct NCHW convolution, im2col + matmul, pooling.
Written the way tutorials implement a tiny CNN forward pass in NumPy, then jit it.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True, fastmath=True)
def conv2d_nchw(x, w, b, stride, pad):
    N, C, H, W = x.shape
    F, _, KH, KW = w.shape
    Ho = (H + 2 * pad - KH) // stride + 1
    Wo = (W + 2 * pad - KW) // stride + 1
    out = np.zeros((N, F, Ho, Wo), dtype=x.dtype)
    for n in prange(N):
        for f in range(F):
            for i in range(Ho):
                for j in range(Wo):
                    acc = b[f]
                    for c in range(C):
                        for ki in range(KH):
                            ii = i * stride + ki - pad
                            if ii < 0 or ii >= H:
                                continue
                            for kj in range(KW):
                                jj = j * stride + kj - pad
                                if 0 <= jj < W:
                                    acc += x[n, c, ii, jj] * w[f, c, ki, kj]
                    out[n, f, i, j] = acc
    return out


@njit
def im2col(x, KH, KW):
    C, H, W = x.shape
    Ho = H - KH + 1
    Wo = W - KW + 1
    cols = np.empty((C * KH * KW, Ho * Wo), dtype=x.dtype)
    row = 0
    for c in range(C):
        for ki in range(KH):
            for kj in range(KW):
                cols[row] = x[c, ki:ki + Ho, kj:kj + Wo].copy().reshape(Ho * Wo)
                row += 1
    return cols


@njit
def conv2d_im2col(x, w, b):
    F, C, KH, KW = w.shape
    H, W = x.shape[1], x.shape[2]
    cols = im2col(x, KH, KW)
    out = w.reshape(F, C * KH * KW) @ cols + b.reshape(F, 1)
    return out.reshape(F, H - KH + 1, W - KW + 1)


@njit(parallel=True)
def maxpool2x2(x):
    C, H, W = x.shape
    out = np.empty((C, H // 2, W // 2), dtype=x.dtype)
    for c in prange(C):
        for i in range(H // 2):
            for j in range(W // 2):
                out[c, i, j] = max(max(x[c, 2 * i, 2 * j], x[c, 2 * i, 2 * j + 1]),
                                   max(x[c, 2 * i + 1, 2 * j], x[c, 2 * i + 1, 2 * j + 1]))
    return out


@njit
def global_avg_pool(x):
    return x.reshape(x.shape[0], -1).sum(axis=1) / (x.shape[1] * x.shape[2])


KPC_CASES = {
    "conv2d_nchw": {
        "args": {"x": ("n", "c", "h", "w"), "w": ("f", "c", "k", "k"), "b": ("f",),
                 "stride": {"kind": "scalar", "value": "s"}, "pad": {"kind": "scalar", "value": "p"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "c": 1, "h": 3, "w": 3, "f": 1, "k": 3, "s": 1, "p": 0},
                  {"n": 2, "c": 3, "h": 9, "w": 8, "f": 4, "k": 3, "s": 2, "p": 1},
                  {"n": 8, "c": 16, "h": 32, "w": 32, "f": 32, "k": 3, "s": 1, "p": 1}],
        "rtol": {"float64": 1e-9, "float32": 1e-4},
        "atol": {"float64": 1e-10, "float32": 1e-4},
    },
    "conv2d_im2col": {
        "args": {"x": ("c", "h", "w"), "w": ("f", "c", "k", "k"), "b": ("f",)},
        "sizes": [{"c": 1, "h": 3, "w": 3, "f": 1, "k": 3}, {"c": 32, "h": 64, "w": 64, "f": 64, "k": 3}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "maxpool2x2": {
        "args": {"x": ("c", "h", "w")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"c": 1, "h": 2, "w": 3}, {"c": 64, "h": 256, "w": 256}],
        "layouts": ["C", "F"],
    },
    "global_avg_pool": {
        "args": {"x": ("c", "h", "w")},
        "sizes": [{"c": 1, "h": 1, "w": 1}, {"c": 256, "h": 128, "w": 128}],
        "rtol": 1e-10,
    },
}
