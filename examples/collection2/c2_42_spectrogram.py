"""Short-time Fourier transform by framing + windowing + DFT matrix, magnitude spectrogram in dB, spectral centroid.
Audio feature extraction written from the textbook definitions.
"""
import numpy as np
from numba import njit, prange


@njit
def hann(n):
    return 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(n) / n)


@njit
def frame_signal(x, frame_len, hop):
    nframes = 1 + (x.shape[0] - frame_len) // hop
    frames = np.empty((nframes, frame_len))
    for f in range(nframes):
        frames[f] = x[f * hop:f * hop + frame_len]
    return frames


@njit(parallel=True)
def stft_mag(x, frame_len, hop):
    frames = frame_signal(x, frame_len, hop) * hann(frame_len)
    nbins = frame_len // 2 + 1
    k = np.arange(nbins).reshape(-1, 1)
    n = np.arange(frame_len).reshape(1, -1)
    W = np.exp(-2j * np.pi * k * n / frame_len)
    out = np.empty((frames.shape[0], nbins))
    for f in prange(frames.shape[0]):
        spec = W @ frames[f].astype(np.complex128)
        out[f] = np.abs(spec)
    return out


@njit
def to_db(S, floor_db):
    ref = S.max()
    db = 20.0 * np.log10(np.maximum(S, 1e-12) / ref)
    return np.maximum(db, floor_db)


@njit(parallel=True)
def spectral_centroid(S, sr):
    nframes, nbins = S.shape
    freqs = np.linspace(0.0, sr / 2.0, nbins)
    out = np.zeros(nframes)
    for f in prange(nframes):
        total = S[f].sum()
        if total > 0:
            out[f] = (S[f] * freqs).sum() / total
    return out


@njit
def spectrogram_db(x, frame_len, hop, floor_db):
    return to_db(stft_mag(x, frame_len, hop), floor_db)


KPC_CASES = {
    "stft_mag": {
        "args": {"x": ("n",), "frame_len": {"kind": "scalar", "value": "L"}, "hop": {"kind": "scalar", "value": "h"}},
        "sizes": [{"n": 4, "L": 4, "h": 2}, {"n": 50, "L": 8, "h": 4}, {"n": 10000, "L": 256, "h": 128}],
        "rtol": 1e-8,
        "atol": 1e-9,
    },
    "to_db": {
        "args": {"S": {"kind": "array", "shape": ("f", "b"), "low": 0.0, "high": 10.0},
                 "floor_db": {"kind": "scalar", "value": -80.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"f": 1, "b": 1}, {"f": 2000, "b": 513}],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
        "atol": {"float64": 1e-10, "float32": 1e-4},
    },
    "spectral_centroid": {
        "args": {"S": {"kind": "array", "shape": ("f", "b"), "low": 0.0, "high": 10.0},
                 "sr": {"kind": "scalar", "value": 16000.0}},
        "sizes": [{"f": 1, "b": 2}, {"f": 20000, "b": 257}],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
    },
    "spectrogram_db": {
        "args": {"x": ("n",), "frame_len": {"kind": "scalar", "value": "L"}, "hop": {"kind": "scalar", "value": "h"},
                 "floor_db": {"kind": "scalar", "value": -60.0}},
        "sizes": [{"n": 8, "L": 8, "h": 4}, {"n": 5000, "L": 256, "h": 128}],
        "rtol": 1e-7,
        "atol": 1e-7,
    },
}
