"""Binary and grey-scale morphology: erosion, dilation, opening with a square or given structuring element, top-hat.
Image-processing code written as nested loops with border checks, the way scikit-image replacements are.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def grey_erode(img, r):
    h, w = img.shape
    out = np.empty_like(img)
    for i in prange(h):
        for j in range(w):
            m = img[i, j]
            for di in range(-r, r + 1):
                ii = i + di
                if ii < 0 or ii >= h:
                    continue
                for dj in range(-r, r + 1):
                    jj = j + dj
                    if 0 <= jj < w and img[ii, jj] < m:
                        m = img[ii, jj]
            out[i, j] = m
    return out


@njit(parallel=True)
def grey_dilate(img, r):
    h, w = img.shape
    out = np.empty_like(img)
    for i in prange(h):
        for j in range(w):
            m = img[i, j]
            for ii in range(max(0, i - r), min(h, i + r + 1)):
                for jj in range(max(0, j - r), min(w, j + r + 1)):
                    m = max(m, img[ii, jj])
            out[i, j] = m
    return out


@njit
def opening(img, r):
    return grey_dilate(grey_erode(img, r), r)


@njit
def white_tophat(img, r):
    return img - opening(img, r)


@njit
def binary_erode_se(mask, se):
    h, w = mask.shape
    sh, sw = se.shape
    ch, cw = sh // 2, sw // 2
    out = np.zeros_like(mask)
    for i in range(h):
        for j in range(w):
            ok = True
            for a in range(sh):
                for b in range(sw):
                    if not se[a, b]:
                        continue
                    ii, jj = i + a - ch, j + b - cw
                    if ii < 0 or jj < 0 or ii >= h or jj >= w or not mask[ii, jj]:
                        ok = False
                        break
                if not ok:
                    break
            out[i, j] = ok
    return out


KPC_CASES = {
    "grey_erode": {
        "args": {"img": ("h", "w"), "r": {"kind": "scalar", "value": "r"}},
        "dtypes": ["float64", "float32", "int64"],
        "sizes": [{"h": 1, "w": 1, "r": 1}, {"h": 7, "w": 5, "r": 2}, {"h": 700, "w": 700, "r": 2}],
        "layouts": ["C", "F"],
    },
    "grey_dilate": {
        "args": {"img": ("h", "w"), "r": {"kind": "scalar", "value": "r"}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"h": 1, "w": 1, "r": 1}, {"h": 7, "w": 5, "r": 2}, {"h": 1000, "w": 1000, "r": 2}],
    },
    "white_tophat": {
        "args": {"img": ("h", "w"), "r": {"kind": "scalar", "value": "r"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"h": 2, "w": 3, "r": 1}, {"h": 800, "w": 800, "r": 2}],
    },
    "binary_erode_se": {
        "args": {"mask": {"kind": "array", "shape": ("h", "w"), "dtype": "bool"},
                 "se": {"kind": "array", "shape": ("k", "k"), "dtype": "bool"}},
        "sizes": [{"h": 1, "w": 1, "k": 1}, {"h": 6, "w": 7, "k": 3}, {"h": 1500, "w": 1500, "k": 5}],
    },
}
