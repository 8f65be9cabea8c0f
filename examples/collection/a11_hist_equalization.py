"""Histogram equalisation of an 8-bit grayscale image: histogram, CDF lookup table, remap.

As in image-enhancement examples (OpenCV-style equalizeHist re-implemented in Numba).
"""
import numpy as np
from numba import njit

NBINS = 256


@njit
def histogram256(img):
    hist = np.zeros(NBINS, dtype=np.int64)
    for v in img.ravel():
        hist[v] += 1
    return hist


@njit
def equalize(img):
    hist = histogram256(img)
    cdf = np.cumsum(hist)
    nz = cdf[cdf > 0]
    cdf_min = nz[0] if nz.size > 0 else 0
    total = img.size
    lut = np.zeros(NBINS, dtype=np.uint8)
    if total > cdf_min:
        for i in range(NBINS):
            v = round((cdf[i] - cdf_min) * 255.0 / (total - cdf_min))
            lut[i] = max(0, min(255, v))
    out = np.empty_like(img)
    h, w = img.shape
    for i in range(h):
        for j in range(w):
            out[i, j] = lut[img[i, j]]
    return out


@njit(cache=True)
def contrast_stretch(img, lo_pct, hi_pct):
    # percentile-based stretch on a float image, clipped to [0, 1]
    lo = np.percentile(img, lo_pct)
    hi = np.percentile(img, hi_pct)
    out = (img - lo) / (hi - lo + 1e-12)
    return np.clip(out, 0.0, 1.0)


KPC_CASES = {
    "histogram256": {
        "args": {"img": {"kind": "array", "shape": ("h", "w"), "dtype": "uint8", "low": 0, "high": 256}},
        "dtypes": ["float64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 30, "w": 41}],
    },
    "equalize": {
        "args": {"img": {"kind": "array", "shape": ("h", "w"), "dtype": "uint8", "low": 40, "high": 120}},
        "dtypes": ["float64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 30, "w": 41}],
    },
    "contrast_stretch": {
        "args": {"img": ("h", "w"), "lo_pct": {"kind": "scalar", "value": 2.0},
                 "hi_pct": {"kind": "scalar", "value": 98.0}},
        "dtypes": ["float64"],
        "sizes": [{"h": 2, "w": 2}, {"h": 30, "w": 41}],
        "rtol": 1e-10,
    },
}
