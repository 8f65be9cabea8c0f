"""IIR filtering: direct-form-II-transposed lfilter, cascaded second-order sections and filtfilt.
Written like scipy.signal replacements that audio and sensor people jit with Numba.
"""
import numpy as np
from numba import njit, prange


@njit
def lfilter(b, a, x):
    nb = b.shape[0]
    na = a.shape[0]
    n = max(nb, na)
    bb = np.zeros(n)
    aa = np.zeros(n)
    bb[:nb] = b / a[0]
    aa[:na] = a / a[0]
    z = np.zeros(n)
    y = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        xi = x[i]
        yi = bb[0] * xi + z[0]
        for k in range(1, n):
            z[k - 1] = bb[k] * xi + z[k] - aa[k] * yi
        y[i] = yi
    return y


@njit
def sosfilt(sos, x):
    nsec = sos.shape[0]
    y = x.astype(np.float64)
    state = np.zeros((nsec, 2))
    for i in range(y.shape[0]):
        v = y[i]
        for s in range(nsec):
            b0, b1, b2, a0, a1, a2 = sos[s, 0], sos[s, 1], sos[s, 2], sos[s, 3], sos[s, 4], sos[s, 5]
            out = (b0 * v + state[s, 0]) / a0
            state[s, 0] = (b1 * v - a1 * out) / a0 + state[s, 1]
            state[s, 1] = (b2 * v - a2 * out) / a0
            v = out
        y[i] = v
    return y


@njit
def filtfilt(b, a, x):
    fwd = lfilter(b, a, x)
    back = lfilter(b, a, fwd[::-1])
    return back[::-1].copy()


@njit(parallel=True)
def lfilter_channels(b, a, X):
    nch = X.shape[0]
    Y = np.empty((nch, X.shape[1]))
    for c in prange(nch):
        Y[c, :] = lfilter(b, a, X[c])
    return Y


@njit
def one_pole_lowpass(x, alpha):
    y = np.empty_like(x)
    acc = x[0]
    for i in range(x.shape[0]):
        acc += alpha * (x[i] - acc)
        y[i] = acc
    return y


KPC_CASES = {
    "lfilter": {
        "args": {"b": {"kind": "array", "shape": ("nb",), "low": 0.05, "high": 0.2},
                 "a": {"kind": "array", "shape": ("na",), "low": 0.9, "high": 1.0},
                 "x": ("n",)},
        "sizes": [{"nb": 1, "na": 1, "n": 1}, {"nb": 3, "na": 1, "n": 10}, {"nb": 5, "na": 1, "n": 1000000}],
        "layouts": ["C", "strided"],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "sosfilt": {
        "args": {"sos": {"kind": "array", "shape": ("s", 6), "low": 0.5, "high": 1.0}, "x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"s": 1, "n": 1}, {"s": 1, "n": 12}, {"s": 4, "n": 300000}],
        "rtol": {"float64": 1e-9, "float32": 1e-5},
        "atol": 1e-12,
    },
    "filtfilt": {
        "args": {"b": {"kind": "array", "shape": ("nb",), "low": 0.05, "high": 0.2},
                 "a": {"kind": "array", "shape": ("na",), "low": 0.9, "high": 1.0},
                 "x": ("n",)},
        "sizes": [{"nb": 2, "na": 1, "n": 4}, {"nb": 4, "na": 1, "n": 500000}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "lfilter_channels": {
        "args": {"b": {"kind": "array", "shape": ("nb",), "low": 0.05, "high": 0.2},
                 "a": {"kind": "array", "shape": ("na",), "low": 0.9, "high": 1.0},
                 "X": ("c", "n")},
        "sizes": [{"nb": 2, "na": 1, "c": 1, "n": 3}, {"nb": 5, "na": 1, "c": 16, "n": 50000}],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "one_pole_lowpass": {
        "args": {"x": ("n",), "alpha": {"kind": "scalar", "value": 0.1}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 2000000}],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
        "atol": 1e-6,
    },
}
