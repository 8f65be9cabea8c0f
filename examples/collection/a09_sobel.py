"""Sobel edge detection: gradient magnitude, normalised magnitude and a thresholded edge map.

As in computer-vision tutorials and scikit-image-like snippets accelerated with Numba.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True, fastmath=True)
def sobel_magnitude(img):
    h, w = img.shape
    mag = np.zeros((h, w))
    for i in prange(1, h - 1):
        for j in range(1, w - 1):
            gx = (img[i - 1, j + 1] + 2 * img[i, j + 1] + img[i + 1, j + 1]
                  - img[i - 1, j - 1] - 2 * img[i, j - 1] - img[i + 1, j - 1])
            gy = (img[i + 1, j - 1] + 2 * img[i + 1, j] + img[i + 1, j + 1]
                  - img[i - 1, j - 1] - 2 * img[i - 1, j] - img[i - 1, j + 1])
            mag[i, j] = np.sqrt(gx * gx + gy * gy)
    return mag


@njit
def sobel_np(img):
    gx = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2])
    gy = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:])
    mag = np.hypot(gx, gy)
    m = mag.max()
    if m > 0:
        mag = mag / m
    return mag


@njit
def edge_map(img, thresh):
    mag = sobel_magnitude(img)
    edges = np.zeros(img.shape, dtype=np.uint8)
    count = 0
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            if mag[i, j] > thresh:
                edges[i, j] = 255
                count += 1
    return edges, count


KPC_CASES = {
    "sobel_magnitude": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"h": 3, "w": 3}, {"h": 40, "w": 31}],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
    },
    "sobel_np": {
        "args": {"img": ("h", "w")},
        "dtypes": ["float64"],
        "sizes": [{"h": 3, "w": 4}, {"h": 40, "w": 31}],
    },
    "edge_map": {
        "args": {"img": ("h", "w"), "thresh": {"kind": "scalar", "value": 1.5}},
        "dtypes": ["float64"],
        "sizes": [{"h": 3, "w": 3}, {"h": 40, "w": 31}],
    },
}
