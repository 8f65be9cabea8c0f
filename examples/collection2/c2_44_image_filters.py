"""Image filters: separable Gaussian blur, 3x3 median filter, bilateral filter, Harris corner response.
Computer-vision tutorial code on float images, with helpers building kernels on the fly.
"""
import math

import numpy as np
from numba import njit, prange


@njit
def gaussian_kernel1d(sigma, radius):
    x = np.arange(-radius, radius + 1).astype(np.float64)
    k = np.exp(-0.5 * (x / sigma) ** 2)
    return k / k.sum()


@njit(parallel=True)
def convolve_rows(img, k):
    h, w = img.shape
    r = k.shape[0] // 2
    out = np.empty((h, w))
    for i in prange(h):
        for j in range(w):
            acc = 0.0
            for t in range(-r, r + 1):
                jj = min(max(j + t, 0), w - 1)
                acc += k[t + r] * img[i, jj]
            out[i, j] = acc
    return out


@njit
def gaussian_blur(img, sigma):
    radius = int(math.ceil(3 * sigma))
    k = gaussian_kernel1d(sigma, radius)
    tmp = convolve_rows(img, k)
    return convolve_rows(tmp.T.copy(), k).T.copy()


@njit(parallel=True)
def median3x3(img):
    h, w = img.shape
    out = img.copy()
    for i in prange(1, h - 1):
        window = np.empty(9, dtype=img.dtype)
        for j in range(1, w - 1):
            n = 0
            for a in range(-1, 2):
                for b in range(-1, 2):
                    window[n] = img[i + a, j + b]
                    n += 1
            window.sort()
            out[i, j] = window[4]
    return out


@njit(parallel=True, fastmath=True)
def bilateral(img, radius, sigma_s, sigma_r):
    h, w = img.shape
    out = np.empty((h, w))
    for i in prange(h):
        for j in range(w):
            num = 0.0
            den = 0.0
            c = img[i, j]
            for a in range(max(0, i - radius), min(h, i + radius + 1)):
                for b in range(max(0, j - radius), min(w, j + radius + 1)):
                    ds = (a - i) ** 2 + (b - j) ** 2
                    dr = (img[a, b] - c) ** 2
                    wgt = math.exp(-ds / (2 * sigma_s ** 2) - dr / (2 * sigma_r ** 2))
                    num += wgt * img[a, b]
                    den += wgt
            out[i, j] = num / den
    return out


@njit
def harris_response(img, k, sigma):
    Iy = np.zeros_like(img)
    Ix = np.zeros_like(img)
    Ix[:, 1:-1] = 0.5 * (img[:, 2:] - img[:, :-2])
    Iy[1:-1, :] = 0.5 * (img[2:, :] - img[:-2, :])
    Sxx = gaussian_blur(Ix * Ix, sigma)
    Syy = gaussian_blur(Iy * Iy, sigma)
    Sxy = gaussian_blur(Ix * Iy, sigma)
    det = Sxx * Syy - Sxy ** 2
    tr = Sxx + Syy
    return det - k * tr ** 2


KPC_CASES = {
    "gaussian_blur": {
        "args": {"img": ("h", "w"), "sigma": {"kind": "scalar", "value": 1.5}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"h": 1, "w": 1}, {"h": 9, "w": 7}, {"h": 1000, "w": 1000}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-10, "float32": 1e-5},
        "atol": {"float64": 1e-12, "float32": 1e-6},
    },
    "median3x3": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 3, "w": 3}, {"h": 8, "w": 11}, {"h": 300, "w": 300}],
    },
    "bilateral": {
        "args": {"img": {"kind": "array", "shape": ("h", "w"), "low": 0.0, "high": 1.0},
                 "radius": {"kind": "scalar", "value": "r"}, "sigma_s": {"kind": "scalar", "value": 2.0},
                 "sigma_r": {"kind": "scalar", "value": 0.2}},
        "sizes": [{"h": 1, "w": 1, "r": 1}, {"h": 6, "w": 5, "r": 2}, {"h": 250, "w": 250, "r": 3}],
        "rtol": 1e-8,
        "atol": 1e-10,
    },
    "harris_response": {
        "args": {"img": ("h", "w"), "k": {"kind": "scalar", "value": 0.05}, "sigma": {"kind": "scalar", "value": 1.0}},
        "sizes": [{"h": 3, "w": 3}, {"h": 9, "w": 12}, {"h": 400, "w": 400}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
}
