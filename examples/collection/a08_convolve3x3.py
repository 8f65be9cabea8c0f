"""3x3 convolution of a grayscale image (generic kernel, box blur, Gaussian blur) with edge clamping.

The hand-written filter loops common in image-processing tutorials using Numba.
"""
import numpy as np
from numba import njit, prange

GAUSS3 = np.array([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]) / 16.0


@njit(parallel=True)
def convolve3x3(img, kernel):
    h, w = img.shape
    out = np.empty((h, w), dtype=img.dtype)
    for y in prange(h):
        for x in range(w):
            acc = 0.0
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    yy = min(max(y + dy, 0), h - 1)
                    xx = min(max(x + dx, 0), w - 1)
                    acc += img[yy, xx] * kernel[dy + 1, dx + 1]
            out[y, x] = acc
    return out


@njit
def box_blur(img):
    # interior only, NumPy-style sum of 9 shifted views
    out = img.copy()
    out[1:-1, 1:-1] = (img[:-2, :-2] + img[:-2, 1:-1] + img[:-2, 2:]
                       + img[1:-1, :-2] + img[1:-1, 1:-1] + img[1:-1, 2:]
                       + img[2:, :-2] + img[2:, 1:-1] + img[2:, 2:]) / 9.0
    return out


@njit
def gaussian_blur(img):
    return convolve3x3(img, GAUSS3)


KPC_CASES = {
    "convolve3x3": {
        "args": {"img": ("h", "w"), "kernel": (3, 3)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"h": 1, "w": 1}, {"h": 37, "w": 29}],
        "rtol": {"float32": 1e-5},
    },
    "box_blur": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"h": 2, "w": 3}, {"h": 37, "w": 29}],
        "rtol": {"float32": 1e-5},
    },
    "gaussian_blur": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 37, "w": 29}],
    },
}
