"""IIR filtering: a direct-form I difference equation (lfilter with a[0] == 1), a Butterworth low-pass as a cascade of RBJ-cookbook biquads in transposed direct form II (sosfilt), and a one-pole DC blocker / smoother run over many channels with prange.
Audio-plugin prototypes, EEG/biosignal preprocessing and sensor pipelines that replace scipy.signal.lfilter / sosfilt inside @njit code.
"""
import math
import numpy as np
from numba import njit, prange


@njit
def lfilter_df1(b, a, x):
    # y[n] = sum_k b[k] x[n-k] - sum_{k>=1} a[k] y[n-k], assumes a[0] == 1
    nb = b.shape[0]
    na = a.shape[0]
    n = x.shape[0]
    y = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for k in range(nb):
            if i - k >= 0:
                acc += b[k] * x[i - k]
        for k in range(1, na):
            if i - k >= 0:
                acc -= a[k] * y[i - k]
        y[i] = acc
    return y


@njit
def butter_sos(order, fc, fs):
    # even order: order // 2 biquads with the Butterworth pole Qs
    nsec = order // 2
    sos = np.zeros((nsec, 6))
    w0 = 2.0 * math.pi * fc / fs
    cw = math.cos(w0)
    sw = math.sin(w0)
    for k in range(nsec):
        q = 1.0 / (2.0 * math.cos(math.pi * (2 * k + 1) / (2.0 * order)))
        alpha = sw / (2.0 * q)
        a0 = 1.0 + alpha
        sos[k, 0] = (1.0 - cw) / 2.0 / a0
        sos[k, 1] = (1.0 - cw) / a0
        sos[k, 2] = (1.0 - cw) / 2.0 / a0
        sos[k, 3] = 1.0
        sos[k, 4] = -2.0 * cw / a0
        sos[k, 5] = (1.0 - alpha) / a0
    return sos


@njit
def sosfilt(sos, x):
    y = x.copy()
    for s in range(sos.shape[0]):
        b0, b1, b2 = sos[s, 0], sos[s, 1], sos[s, 2]
        a1, a2 = sos[s, 4], sos[s, 5]
        z1 = 0.0
        z2 = 0.0
        for i in range(y.shape[0]):
            xi = y[i]
            yi = b0 * xi + z1
            z1 = b1 * xi - a1 * yi + z2
            z2 = b2 * xi - a2 * yi
            y[i] = yi
    return y


@njit
def butter_lowpass(x, order, fc, fs):
    sos = butter_sos(order, fc, fs)
    return sosfilt(sos, x)


@njit(parallel=True)
def butter_lowpass_channels(X, order, fc, fs):
    # X: (channels, samples); filter every channel independently
    sos = butter_sos(order, fc, fs)
    nch, n = X.shape
    Y = np.empty_like(X)
    for c in prange(nch):
        for i in range(n):
            Y[c, i] = X[c, i]
        for s in range(sos.shape[0]):
            z1 = 0.0
            z2 = 0.0
            for i in range(n):
                xi = Y[c, i]
                yi = sos[s, 0] * xi + z1
                z1 = sos[s, 1] * xi - sos[s, 4] * yi + z2
                z2 = sos[s, 2] * xi - sos[s, 5] * yi
                Y[c, i] = yi
    return Y


@njit(parallel=True)
def dc_block_channels(X, R):
    # y[n] = x[n] - x[n-1] + R * y[n-1], one recursion per channel
    nch, n = X.shape
    Y = np.zeros_like(X)
    for c in prange(nch):
        xprev = 0.0
        yprev = 0.0
        for i in range(n):
            yi = X[c, i] - xprev + R * yprev
            Y[c, i] = yi
            xprev = X[c, i]
            yprev = yi
    return Y


KPC_CASES = {
    "lfilter_df1": {
        "args": {"b": ("nb",), "a": {"kind": "array", "shape": ("na",), "low": -0.2, "high": 0.2},
                 "x": ("n",)},
        "dtypes": ["float64"],
        "sizes": [{"nb": 1, "na": 1, "n": 5}, {"nb": 5, "na": 4, "n": 60}],
        "layouts": ["C", "strided"],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "butter_lowpass": {
        "args": {"x": ("n",), "order": {"kind": "scalar", "value": "p"},
                 "fc": {"kind": "scalar", "value": 1000.0}, "fs": {"kind": "scalar", "value": 16000.0}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1, "p": 2}, {"n": 60, "p": 6}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "butter_lowpass_channels": {
        "args": {"X": ("c", "n"), "order": {"kind": "scalar", "value": "p"},
                 "fc": {"kind": "scalar", "value": 40.0}, "fs": {"kind": "scalar", "value": 250.0}},
        "dtypes": ["float64"],
        "sizes": [{"c": 1, "n": 3, "p": 2}, {"c": 16, "n": 60, "p": 4}],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "dc_block_channels": {
        "args": {"X": ("c", "n"), "R": {"kind": "scalar", "value": 0.995}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"c": 1, "n": 1}, {"c": 32, "n": 60}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-5},
    },
}
