"""1-D convolution by loops and with np.convolve, a causal FIR filter in parallel, and a windowed-sinc low-pass design.
DSP code from audio, seismology and sensor repositories.
"""
import numpy as np
from numba import njit, prange


@njit
def convolve_full(x, h):
    n, m = x.size, h.size
    y = np.zeros(n + m - 1)
    for i in range(n):
        for j in range(m):
            y[i + j] += x[i] * h[j]
    return y


@njit(parallel=True)
def fir_filter(x, taps):
    n = x.shape[0]
    m = taps.shape[0]
    y = np.zeros_like(x)
    for i in prange(n):
        acc = 0.0
        for k in range(m):
            if i - k >= 0:
                acc += taps[k] * x[i - k]
        y[i] = acc
    return y


@njit
def convolve_same(x, h):
    full = np.convolve(x, h)
    start = (h.size - 1) // 2
    return full[start:start + x.size]


@njit
def design_lowpass(numtaps, cutoff):
    n = np.arange(numtaps) - (numtaps - 1) / 2.0
    h = np.sinc(2.0 * cutoff * n) * np.hamming(numtaps)
    return h / h.sum()


@njit
def lowpass(x, numtaps, cutoff):
    return fir_filter(x, design_lowpass(numtaps, cutoff))


KPC_CASES = {
    "convolve_full": {
        "args": {"x": ("n",), "h": ("m",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 200, "m": 9}],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-5},
    },
    "fir_filter": {
        "args": {"x": ("n",), "taps": ("m",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "m": 5}, {"n": 500, "m": 16}],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
        "atol": {"float64": 1e-12, "float32": 1e-5},
    },
    "convolve_same": {
        "args": {"x": ("n",), "h": ("m",)},
        "dtypes": ["float64"],
        "sizes": [{"n": 5, "m": 3}, {"n": 200, "m": 9}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
    "lowpass": {
        "args": {"x": ("n",), "numtaps": {"kind": "scalar", "value": "t"},
                 "cutoff": {"kind": "scalar", "value": 0.1}},
        "dtypes": ["float64"],
        "sizes": [{"n": 10, "t": 5}, {"n": 400, "t": 31}],
        "rtol": 1e-10,
        "atol": 1e-12,
    },
}
