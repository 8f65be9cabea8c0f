"""A helper's scalar result inside a NumPy array expression: NumPy (and Numba) evaluate the
scalar operand once per statement, not once per element.

Exercises: a row normalized by a log-sum-exp helper (`x - logsumexp(x)`, out of place and in
place); a helper that counts its calls in an array, whose count shows it ran once per
statement, an empty array included. (Rows of length 0 are left out: kpc's np.max of an empty
array gives -inf where Numba raises ValueError, the min/max-of-empty bug the fuzz report
lists.)
"""
import numpy as np
from numba import njit


@njit
def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


@njit
def normalize_log_rows(M):
    out = np.empty_like(M)
    for i in range(M.shape[0]):
        out[i] = M[i] - logsumexp(M[i])
    return out


@njit
def normalize_log_rows_inplace(M):
    for i in range(M.shape[0]):
        M[i] = M[i] - logsumexp(M[i])


@njit
def bump(counter):
    counter[0] += 1
    return 0.5


@njit
def shifted(x, counter):
    return x * 2.0 + bump(counter)


KPC_CASES = {
    "normalize_log_rows": {
        "args": {"M": {"kind": "array", "shape": ("n", "m"), "low": -20.0, "high": 5.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 3, "m": 2}, {"n": 50, "m": 17}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-12, "float32": 1e-5},
    },
    "normalize_log_rows_inplace": {
        "args": {"M": {"kind": "array", "shape": ("n", "m"), "low": -20.0, "high": 5.0}},
        "sizes": [{"n": 1, "m": 1}, {"n": 40, "m": 9}],
        "writes": ["M"],
        "rtol": 1e-12,
    },
    "shifted": {
        "args": {"x": ("n",), "counter": {"kind": "array", "shape": (1,), "dtype": "int64", "low": 0, "high": 1}},
        "sizes": [{"n": 0}, {"n": 1}, {"n": 100}],
        "writes": ["counter"],
    },
}
