"""Linear prediction (LPC) by the Levinson-Durbin recursion on the autocorrelation, per frame of a signal, and a Wiener filter from the Toeplitz normal equations solved by Levinson's algorithm.
Speech-coding, audio-analysis and AR-model-fitting code (Yule-Walker), written by hand because scipy.linalg.solve_toeplitz is not available inside @njit.
"""
import numpy as np
from numba import njit, prange


@njit
def autocorr(x, maxlag):
    n = x.shape[0]
    r = np.zeros(maxlag + 1)
    for k in range(maxlag + 1):
        s = 0.0
        for i in range(n - k):
            s += x[i] * x[i + k]
        r[k] = s
    return r


@njit
def levinson_durbin(r, order):
    # returns a (a[0] = 1), the prediction error and the reflection coefficients
    a = np.zeros(order + 1)
    a[0] = 1.0
    k = np.zeros(order)
    err = r[0]
    for i in range(1, order + 1):
        acc = r[i]
        for j in range(1, i):
            acc += a[j] * r[i - j]
        ki = -acc / err
        k[i - 1] = ki
        tmp = a.copy()
        for j in range(1, i):
            a[j] = tmp[j] + ki * tmp[i - j]
        a[i] = ki
        err *= 1.0 - ki * ki
    return a, err, k


@njit
def lpc(x, order):
    r = autocorr(x, order)
    a, err, k = levinson_durbin(r, order)
    return a, err / r[0]


@njit(parallel=True)
def lpc_frames(x, frame_len, hop, order):
    nframes = (x.shape[0] - frame_len) // hop + 1
    coefs = np.zeros((nframes, order + 1))
    gains = np.zeros(nframes)
    win = np.hamming(frame_len)
    for f in prange(nframes):
        frame = x[f * hop:f * hop + frame_len] * win
        r = np.zeros(order + 1)
        for lag in range(order + 1):
            s = 0.0
            for i in range(frame_len - lag):
                s += frame[i] * frame[i + lag]
            r[lag] = s
        r[0] *= 1.0 + 1e-9  # white-noise correction
        a = np.zeros(order + 1)
        a[0] = 1.0
        err = r[0]
        for i in range(1, order + 1):
            acc = r[i]
            for j in range(1, i):
                acc += a[j] * r[i - j]
            ki = -acc / err
            prev = a.copy()
            for j in range(1, i):
                a[j] = prev[j] + ki * prev[i - j]
            a[i] = ki
            err *= 1.0 - ki * ki
        coefs[f, :] = a
        gains[f] = np.sqrt(err)
    return coefs, gains


@njit
def levinson_solve(r, y):
    # solves T x = y for the symmetric Toeplitz T with first column r
    n = y.shape[0]
    f = np.zeros(n)
    b = np.zeros(n)
    x = np.zeros(n)
    f[0] = 1.0 / r[0]
    b[0] = 1.0 / r[0]
    x[0] = y[0] / r[0]
    for m in range(1, n):
        ef = 0.0
        eb = 0.0
        ex = 0.0
        for i in range(m):
            ef += r[m - i] * f[i]
            eb += r[i + 1] * b[i]
            ex += r[m - i] * x[i]
        den = 1.0 - ef * eb
        fn = np.zeros(n)
        bn = np.zeros(n)
        for i in range(m + 1):
            fi = f[i] if i < m else 0.0
            bi = b[i - 1] if i > 0 else 0.0
            fn[i] = (fi - ef * bi) / den
            bn[i] = (bi - eb * fi) / den
        f = fn
        b = bn
        for i in range(m + 1):
            x[i] += (y[m] - ex) * b[i]
    return x


@njit
def wiener_taps(x, d, ntaps):
    n = x.shape[0]
    r = autocorr(x, ntaps - 1) / n
    p = np.zeros(ntaps)
    for k in range(ntaps):
        s = 0.0
        for i in range(k, n):
            s += d[i] * x[i - k]
        p[k] = s / n
    w = levinson_solve(r, p)
    # mean squared error of the filter on the training data
    mse = 0.0
    for i in range(n):
        yi = 0.0
        for k in range(ntaps):
            if i - k >= 0:
                yi += w[k] * x[i - k]
        mse += (d[i] - yi) ** 2
    return w, mse / n


KPC_CASES = {
    "lpc": {
        "args": {"x": ("n",), "order": {"kind": "scalar", "value": "p"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 8, "p": 1}, {"n": 60, "p": 10}],
        "layouts": ["C", "strided"],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "lpc_frames": {
        "args": {"x": ("n",), "frame_len": {"kind": "scalar", "value": "L"},
                 "hop": {"kind": "scalar", "value": "h"}, "order": {"kind": "scalar", "value": "p"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 16, "L": 16, "h": 8, "p": 2}, {"n": 60, "L": 20, "h": 10, "p": 6}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "wiener_taps": {
        "args": {"x": ("n",), "d": ("n",), "ntaps": {"kind": "scalar", "value": "m"}},
        "dtypes": ["float64"],
        "sizes": [{"n": 10, "m": 1}, {"n": 60, "m": 8}],
        "rtol": 1e-8,
        "atol": 1e-10,
    },
}
