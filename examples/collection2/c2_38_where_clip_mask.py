"""Element-wise conditional code: np.where chains, clipping, Huber/smooth-L1 losses, masked selection and assignment.
Vectorised NumPy data-cleaning and loss functions jitted as they are.
"""
import numpy as np
from numba import njit


@njit
def huber(residual, delta):
    a = np.abs(residual)
    return np.where(a <= delta, 0.5 * residual ** 2, delta * (a - 0.5 * delta))


@njit
def piecewise_tax(income):
    brackets = np.array([10000.0, 40000.0, 90000.0])
    rates = np.array([0.0, 0.2, 0.4, 0.45])
    tax = np.zeros_like(income)
    lower = 0.0
    for k in range(rates.shape[0]):
        upper = brackets[k] if k < brackets.shape[0] else np.inf
        taxable = np.clip(income, lower, upper) - lower
        tax += rates[k] * taxable
        lower = upper
    return tax


@njit
def clean_signal(x, lo, hi):
    y = x.copy()
    bad = (y < lo) | (y > hi) | np.isnan(y)
    good_mean = y[~bad].mean() if (~bad).sum() > 0 else 0.0
    y[bad] = good_mean
    return y, bad.sum()


@njit
def masked_stats(x, threshold):
    sel = x[x > threshold]
    if sel.size == 0:
        return 0, np.nan, np.nan
    return sel.size, sel.mean(), sel.std()


@njit
def leaky_clip_chain(x, alpha, lo, hi):
    y = np.where(x > 0, x, alpha * x)
    y = np.clip(y * 1.5 + 0.25, lo, hi)
    return np.where(np.abs(y) < 1e-3, 0.0, y)


KPC_CASES = {
    "huber": {
        "args": {"residual": {"kind": "array", "shape": ("n",), "low": -3.0, "high": 3.0},
                 "delta": {"kind": "scalar", "value": 1.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 2000000}],
        "layouts": ["C", "strided"],
        "rtol": {"float64": 1e-12, "float32": 1e-6},
    },
    "piecewise_tax": {
        "args": {"income": {"kind": "array", "shape": ("n",), "low": 0.0, "high": 200000.0}},
        "sizes": [{"n": 1}, {"n": 1000000}],
        "rtol": 1e-12,
        "atol": 1e-9,
    },
    "clean_signal": {
        "args": {"x": {"kind": "array", "shape": ("n",), "values": "nan"},
                 "lo": {"kind": "scalar", "value": -0.9}, "hi": {"kind": "scalar", "value": 0.9}},
        "sizes": [{"n": 1}, {"n": 16}, {"n": 2000000}],
        "rtol": 1e-10,
    },
    "masked_stats": {
        "args": {"x": ("n",), "threshold": {"kind": "scalar", "value": 0.25}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0}, {"n": 3}, {"n": 3000000}],
        "rtol": {"float64": 1e-9, "float32": 1e-4},
    },
    "leaky_clip_chain": {
        "args": {"x": ("n",), "alpha": {"kind": "scalar", "value": 0.1},
                 "lo": {"kind": "scalar", "value": -1.0}, "hi": {"kind": "scalar", "value": 1.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 2000000}],
        "rtol": {"float64": 1e-12, "float32": 1e-6},
    },
}
