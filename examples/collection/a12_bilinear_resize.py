"""Bilinear image resize (grayscale and multichannel) and nearest-neighbour downsampling.

Typical of data-augmentation and thumbnailing code that avoids an OpenCV dependency.
"""
import math
import numpy as np
from numba import njit, prange


@njit
def _lerp(a, b, t):
    return a + (b - a) * t


@njit(parallel=True)
def resize_bilinear(img, out_h, out_w):
    in_h, in_w = img.shape
    out = np.empty((out_h, out_w))
    sy = in_h / out_h
    sx = in_w / out_w
    for i in prange(out_h):
        y = (i + 0.5) * sy - 0.5
        y = min(max(y, 0.0), in_h - 1.0)
        y0 = int(math.floor(y))
        y1 = min(y0 + 1, in_h - 1)
        ty = y - y0
        for j in range(out_w):
            x = (j + 0.5) * sx - 0.5
            x = min(max(x, 0.0), in_w - 1.0)
            x0 = int(math.floor(x))
            x1 = min(x0 + 1, in_w - 1)
            tx = x - x0
            top = _lerp(img[y0, x0], img[y0, x1], tx)
            bot = _lerp(img[y1, x0], img[y1, x1], tx)
            out[i, j] = _lerp(top, bot, ty)
    return out


@njit
def resize_bilinear_rgb(img, out_h, out_w):
    c = img.shape[2]
    out = np.empty((out_h, out_w, c))
    for k in range(c):
        out[:, :, k] = resize_bilinear(img[:, :, k], out_h, out_w)
    return out


@njit
def downsample_nearest(img, factor):
    return img[::factor, ::factor].copy()


KPC_CASES = {
    "resize_bilinear": {
        "args": {"img": ("h", "w"), "out_h": {"kind": "scalar", "value": "oh"},
                 "out_w": {"kind": "scalar", "value": "ow"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"h": 2, "w": 3, "oh": 5, "ow": 4}, {"h": 31, "w": 20, "oh": 12, "ow": 47}],
        "rtol": {"float32": 1e-5},
    },
    "resize_bilinear_rgb": {
        "args": {"img": ("h", "w", 3), "out_h": {"kind": "scalar", "value": "oh"},
                 "out_w": {"kind": "scalar", "value": "ow"}},
        "dtypes": ["float64"],
        "sizes": [{"h": 2, "w": 3, "oh": 5, "ow": 4}, {"h": 31, "w": 20, "oh": 12, "ow": 47}],
    },
    "downsample_nearest": {
        "args": {"img": ("h", "w"), "factor": {"kind": "scalar", "value": 2}},
        "dtypes": ["float64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 31, "w": 20}],
        "layouts": ["C", "F"],
    },
}
