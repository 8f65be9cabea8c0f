"""Window functions and np.sinc, as filter-design code writes them: a windowed-sinc low-pass
(np.sinc of an expression times np.hamming), np.hanning / np.bartlett / np.blackman of 1, 2 and
many points (one point is 1.0; M < 1 gives an empty array), np.sinc of a scalar, of 0.0 (Numba
nudges 0 to 1e-20), of a float32 array (float32 result) and of an int64 array (Numba stores the
float64 values into np.zeros_like(x): an int64 array, truncated)."""
import numpy as np
from numba import njit, prange


@njit
def lowpass_taps(x, cutoff):
    numtaps = x.shape[0]
    n = np.arange(numtaps) - (numtaps - 1) / 2.0
    h = np.sinc(2.0 * cutoff * n) * np.hamming(numtaps)
    return h / h.sum()


@njit
def windows(x):
    m = x.shape[0]
    return np.hanning(m), np.bartlett(m), np.blackman(m), np.hamming(m - 3), np.hanning(1)


@njit(parallel=True)
def sinc_values(x):
    out = np.empty(x.shape[0])
    for i in prange(x.shape[0]):
        out[i] = np.sinc(x[i]) + np.sinc(0.0) + np.sinc(i - 2)
    return out, np.sinc(x * 3.0), np.sinc((x * 4.0).astype(np.int64))


KPC_CASES = {
    "lowpass_taps": {
        "args": {"x": ("n",), "cutoff": {"kind": "scalar", "value": 0.2}},
        "sizes": [{"n": 1}, {"n": 2}, {"n": 31}],
    },
    "windows": {
        "args": {"x": ("n",)},
        "sizes": [{"n": 1}, {"n": 2}, {"n": 4}, {"n": 51}],
    },
    "sinc_values": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 200}],
    },
}
