"""Integral image (summed-area table) and constant-time box sums / box means from it.

As in Viola-Jones style feature code and fast box-filter implementations.
"""
import numpy as np
from numba import njit


@njit
def integral_image(img):
    h, w = img.shape
    ii = np.zeros((h + 1, w + 1))
    for y in range(h):
        row = 0.0
        for x in range(w):
            row += img[y, x]
            ii[y + 1, x + 1] = ii[y, x + 1] + row
    return ii


@njit
def integral_image_np(img):
    return np.cumsum(np.cumsum(img, axis=0), axis=1)


@njit
def box_sum(ii, y0, x0, y1, x1):
    return ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0]


@njit
def box_mean_filter(img, r):
    # mean over a (2r+1)^2 window, clipped at the borders
    h, w = img.shape
    ii = integral_image(img)
    out = np.empty((h, w))
    for y in range(h):
        y0 = max(y - r, 0)
        y1 = min(y + r + 1, h)
        for x in range(w):
            x0 = max(x - r, 0)
            x1 = min(x + r + 1, w)
            out[y, x] = box_sum(ii, y0, x0, y1, x1) / ((y1 - y0) * (x1 - x0))
    return out


KPC_CASES = {
    "integral_image": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 27, "w": 35}],
        "rtol": {"float64": 1e-12},
    },
    "integral_image_np": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 27, "w": 35}],
        "rtol": {"float64": 1e-12},
    },
    "box_mean_filter": {
        "args": {"img": ("h", "w"), "r": {"kind": "scalar", "value": 2}},
        "dtypes": ["float64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 27, "w": 35}],
        "rtol": 1e-10,
    },
}
