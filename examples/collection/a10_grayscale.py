"""RGB (H x W x 3) to grayscale conversion: float luminance, uint8 images, and per-channel means.

The kind of preprocessing kernel found in image/video pipelines accelerated with Numba.
"""
import numpy as np
from numba import njit, prange

WR, WG, WB = 0.299, 0.587, 0.114


@njit(parallel=True)
def rgb2gray(img):
    h, w, _ = img.shape
    out = np.empty((h, w))
    for i in prange(h):
        for j in range(w):
            out[i, j] = WR * img[i, j, 0] + WG * img[i, j, 1] + WB * img[i, j, 2]
    return out


@njit
def rgb2gray_np(img):
    return img[:, :, 0] * WR + img[:, :, 1] * WG + img[:, :, 2] * WB


@njit
def rgb2gray_u8(img):
    h, w = img.shape[0], img.shape[1]
    gray = np.zeros((h, w), dtype=np.uint8)
    for i in range(h):
        for j in range(w):
            v = (299 * int(img[i, j, 0]) + 587 * int(img[i, j, 1]) + 114 * int(img[i, j, 2])) // 1000
            gray[i, j] = min(v, 255)
    return gray


@njit
def channel_means(img):
    means = np.zeros(3)
    for c in range(3):
        means[c] = img[:, :, c].mean()
    return means


KPC_CASES = {
    "rgb2gray": {
        "args": {"img": {"kind": "array", "shape": ("h", "w", 3), "low": 0.0, "high": 1.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"h": 1, "w": 1}, {"h": 24, "w": 33}],
        "layouts": ["C", "strided"],
    },
    "rgb2gray_np": {
        "args": {"img": {"kind": "array", "shape": ("h", "w", 3), "low": 0.0, "high": 1.0}},
        "dtypes": ["float64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 24, "w": 33}],
    },
    "rgb2gray_u8": {
        "args": {"img": {"kind": "array", "shape": ("h", "w", 3), "dtype": "uint8", "low": 0, "high": 256}},
        "dtypes": ["float64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 24, "w": 33}],
    },
    "channel_means": {
        "args": {"img": {"kind": "array", "shape": ("h", "w", 3), "low": 0.0, "high": 1.0}},
        "dtypes": ["float64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 24, "w": 33}],
        "rtol": 1e-12,
    },
}
