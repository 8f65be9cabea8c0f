"""FIR design by windowed sinc, FIR filtering, decimation, polyphase upsampling and linear resampling.
The building blocks of sample-rate conversion in DSP notebooks.
"""
import math

import numpy as np
from numba import njit, prange


@njit
def sinc_lowpass(ntaps, cutoff):
    h = np.empty(ntaps)
    m = (ntaps - 1) / 2.0
    for i in range(ntaps):
        t = i - m
        if t == 0.0:
            h[i] = 2 * cutoff
        else:
            h[i] = math.sin(2 * math.pi * cutoff * t) / (math.pi * t)
        h[i] *= 0.54 - 0.46 * math.cos(2 * math.pi * i / (ntaps - 1))
    return h / h.sum()


@njit(parallel=True, fastmath=True)
def fir_filter(x, h):
    n = x.shape[0]
    m = h.shape[0]
    y = np.zeros(n)
    for i in prange(n):
        acc = 0.0
        for k in range(min(m, i + 1)):
            acc += h[k] * x[i - k]
        y[i] = acc
    return y


@njit
def decimate(x, factor, ntaps):
    h = sinc_lowpass(ntaps, 0.5 / factor)
    y = fir_filter(x, h)
    return y[::factor].copy()


@njit
def upsample_polyphase(x, factor, h):
    n = x.shape[0]
    out = np.zeros(n * factor)
    m = h.shape[0]
    for i in range(n * factor):
        phase = i % factor
        base = i // factor
        acc = 0.0
        k = phase
        j = 0
        while k < m:
            idx = base - j
            if idx < 0:
                break
            acc += h[k] * x[idx]
            k += factor
            j += 1
        out[i] = acc * factor
    return out


@njit
def resample_linear(t_old, y_old, t_new):
    out = np.empty(t_new.shape[0])
    j = 0
    n = t_old.shape[0]
    for i in range(t_new.shape[0]):
        t = t_new[i]
        while j < n - 2 and t_old[j + 1] < t:
            j += 1
        t0, t1 = t_old[j], t_old[j + 1]
        w = (t - t0) / (t1 - t0)
        out[i] = (1 - w) * y_old[j] + w * y_old[j + 1]
    return out


@njit
def resample_interp(t_old, y_old, t_new):
    return np.interp(t_new, t_old, y_old)


KPC_CASES = {
    "sinc_lowpass": {
        "args": {"ntaps": {"kind": "scalar", "value": "n"}, "cutoff": {"kind": "scalar", "value": 0.2}},
        "sizes": [{"n": 3}, {"n": 31}, {"n": 400001}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "fir_filter": {
        "args": {"x": ("n",), "h": ("m",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 3}, {"n": 100, "m": 7}, {"n": 500000, "m": 63}],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-9, "float32": 1e-4},
        "atol": {"float64": 1e-10, "float32": 1e-5},
    },
    "decimate": {
        "args": {"x": ("n",), "factor": {"kind": "scalar", "value": "q"}, "ntaps": {"kind": "scalar", "value": "t"}},
        "sizes": [{"n": 10, "q": 2, "t": 5}, {"n": 400000, "q": 4, "t": 41}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "upsample_polyphase": {
        "args": {"x": ("n",), "factor": {"kind": "scalar", "value": "q"}, "h": ("m",)},
        "sizes": [{"n": 1, "q": 2, "m": 4}, {"n": 100000, "q": 4, "m": 48}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "resample_linear": {
        "args": {"t_old": {"kind": "array", "shape": ("n",), "values": "sorted", "low": 0.0, "high": 100.0},
                 "y_old": ("n",),
                 "t_new": {"kind": "array", "shape": ("m",), "values": "sorted", "low": 1.0, "high": 99.0}},
        "sizes": [{"n": 2, "m": 1}, {"n": 1000000, "m": 1500000}],
        "rtol": 1e-8,
        "atol": 1e-8,
    },
    "resample_interp": {
        "args": {"t_old": {"kind": "array", "shape": ("n",), "values": "sorted", "low": 0.0, "high": 100.0},
                 "y_old": ("n",),
                 "t_new": {"kind": "array", "shape": ("m",), "low": -5.0, "high": 105.0}},
        "sizes": [{"n": 2, "m": 1}, {"n": 100000, "m": 200000}],
        "rtol": 1e-8,
        "atol": 1e-8,
    },
}
