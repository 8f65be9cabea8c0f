"""Bootstrap resampling of the mean with np.random, a permutation test, and deterministic helpers fed explicit resample indices.
Not in KPC_CASES (random streams differ between Numba and kpc): bootstrap_means, bootstrap_ci, permutation_test.
"""
import numpy as np
from numba import njit, prange


@njit
def bootstrap_means(x, n_boot, seed):
    np.random.seed(seed)
    n = x.shape[0]
    means = np.empty(n_boot)
    for b in range(n_boot):
        idx = np.random.randint(0, n, n)
        means[b] = x[idx].mean()
    return means


@njit
def bootstrap_ci(x, n_boot, alpha):
    means = bootstrap_means(x, n_boot, 42)
    lo = np.percentile(means, 100.0 * alpha / 2)
    hi = np.percentile(means, 100.0 * (1 - alpha / 2))
    return lo, hi


@njit
def permutation_test(x, y, n_perm):
    pooled = np.concatenate((x, y))
    observed = abs(x.mean() - y.mean())
    count = 0
    for _ in range(n_perm):
        np.random.shuffle(pooled)
        d = abs(pooled[: x.size].mean() - pooled[x.size:].mean())
        if d >= observed:
            count += 1
    return (count + 1) / (n_perm + 1)


@njit(parallel=True)
def resample_means(x, idx):
    B, n = idx.shape
    out = np.empty(B)
    for b in prange(B):
        s = 0.0
        for j in range(n):
            s += x[idx[b, j]]
        out[b] = s / n
    return out


@njit
def percentile_interval(stats, alpha):
    s = np.sort(stats)
    return np.percentile(s, 100.0 * alpha / 2), np.percentile(s, 100.0 * (1 - alpha / 2)), s.mean(), s.std()


KPC_CASES = {
    "resample_means": {
        "args": {"x": ("n",), "idx": {"kind": "index", "shape": ("B", "n"), "high": "n"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 3, "B": 4}, {"n": 100, "B": 200}],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
    },
    "percentile_interval": {
        "args": {"stats": ("n",), "alpha": {"kind": "scalar", "value": 0.05}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 999}],
        "rtol": 1e-10,
    },
}
