"""Broadcasting chains: standardisation, RBF kernel matrices, pairwise displacements in 3-D, colour conversion by matmul.
The [:, None] / [None, :] idioms of NumPy code kept as they are under @njit.
"""
import numpy as np
from numba import njit


@njit
def standardize_columns(X):
    mu = X.sum(axis=0) / X.shape[0]
    Xc = X - mu
    sd = np.sqrt((Xc ** 2).sum(axis=0) / X.shape[0])
    sd = np.where(sd == 0.0, 1.0, sd)
    return Xc / sd


@njit
def rbf_kernel(A, B, gamma):
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-gamma * d2)


@njit
def pairwise_displacements(pos, box):
    d = pos[:, np.newaxis, :] - pos[np.newaxis, :, :]
    d -= box * np.round(d / box)
    r = np.sqrt((d ** 2).sum(axis=-1))
    return d, r


@njit
def rgb_to_yuv(img):
    M = np.array([[0.299, 0.587, 0.114],
                  [-0.14713, -0.28886, 0.436],
                  [0.615, -0.51499, -0.10001]])
    h, w, _ = img.shape
    flat = img.reshape(h * w, 3)
    return (flat @ M.T).reshape(h, w, 3)


@njit
def outer_grid(x, y):
    X = x[:, None] * np.ones((1, y.shape[0]))
    Y = np.ones((x.shape[0], 1)) * y[None, :]
    return np.sin(X) * np.cos(Y) + 0.1 * (X - Y) ** 2


KPC_CASES = {
    "standardize_columns": {
        "args": {"X": ("n", "d")},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "d": 1}, {"n": 10, "d": 3}, {"n": 200000, "d": 16}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-9, "float32": 1e-4},
        "atol": {"float64": 1e-10, "float32": 1e-5},
    },
    "rbf_kernel": {
        "args": {"A": ("n", "d"), "B": ("m", "d"), "gamma": {"kind": "scalar", "value": 0.5}},
        "sizes": [{"n": 1, "m": 1, "d": 1}, {"n": 4, "m": 5, "d": 3}, {"n": 1500, "m": 1000, "d": 8}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "pairwise_displacements": {
        "args": {"pos": {"kind": "array", "shape": ("n", 3), "low": 0.0, "high": 10.0},
                 "box": {"kind": "scalar", "value": 10.0}},
        "sizes": [{"n": 1}, {"n": 6}, {"n": 700}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "rgb_to_yuv": {
        "args": {"img": {"kind": "array", "shape": ("h", "w", 3), "low": 0.0, "high": 1.0}},
        "sizes": [{"h": 1, "w": 1}, {"h": 5, "w": 4}, {"h": 720, "w": 1280}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "outer_grid": {
        "args": {"x": ("n",), "y": ("m",)},
        "sizes": [{"n": 1, "m": 1}, {"n": 3, "m": 4}, {"n": 1000, "m": 1000}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
}
