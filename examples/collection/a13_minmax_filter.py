"""3x3 rank filters: erosion (min), dilation (max), morphological gradient and a 3x3 median.

As in morphology / denoising snippets (scipy.ndimage-like filters written as Numba loops).
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def min_max_filter(img):
    h, w = img.shape
    lo = np.empty_like(img)
    hi = np.empty_like(img)
    for i in prange(h):
        for j in range(w):
            mn = img[i, j]
            mx = img[i, j]
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    ii = i + di
                    jj = j + dj
                    if 0 <= ii < h and 0 <= jj < w:
                        v = img[ii, jj]
                        if v < mn:
                            mn = v
                        if v > mx:
                            mx = v
            lo[i, j] = mn
            hi[i, j] = mx
    return lo, hi


@njit
def morph_gradient(img):
    lo, hi = min_max_filter(img)
    return hi - lo


@njit
def median3x3(img):
    h, w = img.shape
    out = img.copy()
    win = np.empty(9, dtype=img.dtype)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            k = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    win[k] = img[i + di, j + dj]
                    k += 1
            out[i, j] = np.median(win)
    return out


@njit
def median3x3_sort(img):
    h, w = img.shape
    out = img.copy()
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            out[i, j] = np.sort(img[i - 1:i + 2, j - 1:j + 2].ravel())[4]
    return out


KPC_CASES = {
    "min_max_filter": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64", "int64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 29, "w": 33}],
        "layouts": ["C", "F"],
    },
    "morph_gradient": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64"],
        "sizes": [{"h": 1, "w": 2}, {"h": 29, "w": 33}],
    },
    "median3x3": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64"],
        "sizes": [{"h": 3, "w": 3}, {"h": 29, "w": 33}],
    },
    "median3x3_sort": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64"],
        "sizes": [{"h": 3, "w": 3}, {"h": 29, "w": 33}],
    },
}
