"""Goertzel tone detection, RMS envelopes, peak picking and a median-free spike detector.
DSP helpers of the kind used for DTMF decoding and audio level metering.
"""
import math

import numpy as np
from numba import njit, prange


@njit
def goertzel(x, k):
    n = x.shape[0]
    w = 2.0 * math.pi * k / n
    coeff = 2.0 * math.cos(w)
    s_prev = 0.0
    s_prev2 = 0.0
    for i in range(n):
        s = x[i] + coeff * s_prev - s_prev2
        s_prev2 = s_prev
        s_prev = s
    return s_prev2 ** 2 + s_prev ** 2 - coeff * s_prev * s_prev2


@njit(parallel=True)
def goertzel_frames(frames, bins):
    nf = frames.shape[0]
    out = np.empty((nf, bins.shape[0]))
    for f in prange(nf):
        for b in range(bins.shape[0]):
            out[f, b] = goertzel(frames[f], bins[b])
    return out


@njit
def rms_envelope(x, win):
    n = x.shape[0]
    out = np.zeros(n - win + 1)
    acc = 0.0
    for i in range(win):
        acc += x[i] * x[i]
    out[0] = math.sqrt(acc / win)
    for i in range(win, n):
        acc += x[i] * x[i] - x[i - win] * x[i - win]
        out[i - win + 1] = math.sqrt(max(acc, 0.0) / win)
    return out


@njit
def find_peaks(x, threshold, min_distance):
    peaks = []
    last = -min_distance - 1
    for i in range(1, x.shape[0] - 1):
        if x[i] > threshold and x[i] >= x[i - 1] and x[i] > x[i + 1]:
            if i - last > min_distance:
                peaks.append(i)
                last = i
    return np.array(peaks, dtype=np.int64)


@njit
def spike_mask(x, k):
    mu = x.mean()
    sd = x.std()
    return np.abs(x - mu) > k * sd


KPC_CASES = {
    "goertzel": {
        "args": {"x": ("n",), "k": {"kind": "scalar", "value": 7}},
        "sizes": [{"n": 1}, {"n": 64}, {"n": 4000000}],
        "layouts": ["C", "strided"],
        "rtol": 1e-7,
        "atol": 1e-8,
    },
    "goertzel_frames": {
        "args": {"frames": ("f", "n"), "bins": {"kind": "index", "shape": ("b",), "high": "n"}},
        "sizes": [{"f": 1, "n": 8, "b": 1}, {"f": 500, "n": 2048, "b": 8}],
        "rtol": 1e-7,
        "atol": 1e-8,
    },
    "rms_envelope": {
        "args": {"x": ("n",), "win": {"kind": "scalar", "value": "w"}},
        "sizes": [{"n": 1, "w": 1}, {"n": 100, "w": 10}, {"n": 2000000, "w": 256}],
        "rtol": 1e-6,
        "atol": 1e-7,
    },
    "find_peaks": {
        "args": {"x": ("n",), "threshold": {"kind": "scalar", "value": 0.5},
                 "min_distance": {"kind": "scalar", "value": "d"}},
        "sizes": [{"n": 2, "d": 1}, {"n": 100, "d": 3}, {"n": 2000000, "d": 5}],
    },
    "spike_mask": {
        "args": {"x": ("n",), "k": {"kind": "scalar", "value": 1.5}},
        "sizes": [{"n": 1}, {"n": 2000000}],
    },
}
