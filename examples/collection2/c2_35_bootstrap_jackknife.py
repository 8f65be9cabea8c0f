"""Resampling statistics with pre-drawn indices: bootstrap confidence intervals, jackknife bias, permutation tests.
`bootstrap_random` draws with np.random (kpc's stream differs) and is not in KPC_CASES.
"""
import numpy as np
from numba import njit, prange


@njit
def bootstrap_random(x, nboot, seed):
    np.random.seed(seed)
    n = x.shape[0]
    stats = np.empty(nboot)
    for b in range(nboot):
        idx = np.random.randint(0, n, n)
        stats[b] = x[idx].mean()
    return stats


@njit(parallel=True)
def bootstrap_means(x, idx):
    nboot = idx.shape[0]
    stats = np.empty(nboot)
    for b in prange(nboot):
        s = 0.0
        for k in range(idx.shape[1]):
            s += x[idx[b, k]]
        stats[b] = s / idx.shape[1]
    return stats


@njit
def bootstrap_ci(x, idx, alpha):
    stats = bootstrap_means(x, idx)
    lo = np.percentile(stats, 100 * alpha / 2)
    hi = np.percentile(stats, 100 * (1 - alpha / 2))
    return x.mean(), lo, hi


@njit
def jackknife_var(x):
    n = x.shape[0]
    total = x.sum()
    loo = (total - x) / (n - 1)
    m = loo.mean()
    var_jk = (n - 1) / n * ((loo - m) ** 2).sum()
    bias = (n - 1) * (m - x.mean())
    return var_jk, bias


@njit(parallel=True)
def permutation_test(a, b, perms):
    # perms: (P, na + nb) permutations of the pooled indices
    pooled = np.concatenate((a, b))
    na = a.shape[0]
    observed = a.mean() - b.mean()
    P = perms.shape[0]
    hits = 0
    for p in prange(P):
        s1 = 0.0
        s2 = 0.0
        for k in range(pooled.shape[0]):
            v = pooled[perms[p, k]]
            if k < na:
                s1 += v
            else:
                s2 += v
        diff = s1 / na - s2 / (pooled.shape[0] - na)
        if abs(diff) >= abs(observed):
            hits += 1
    return (hits + 1) / (P + 1)


KPC_CASES = {
    "bootstrap_means": {
        "args": {"x": ("n",), "idx": {"kind": "index", "shape": ("B", "n"), "high": "n"}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "B": 1}, {"n": 20, "B": 10}, {"n": 2000, "B": 2000}],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
    },
    "bootstrap_ci": {
        "args": {"x": ("n",), "idx": {"kind": "index", "shape": ("B", "n"), "high": "n"},
                 "alpha": {"kind": "scalar", "value": 0.05}},
        "sizes": [{"n": 1, "B": 1}, {"n": 20, "B": 10}, {"n": 2000, "B": 2000}],
        "rtol": 1e-10,
    },
    "jackknife_var": {
        "args": {"x": ("n",)},
        "sizes": [{"n": 2}, {"n": 20}, {"n": 1000000}],
        "layouts": ["C", "strided"],
        "rtol": 1e-7,
        "atol": 1e-14,
    },
    "permutation_test": {
        "args": {"a": ("na",), "b": ("nb",), "perms": {"kind": "index", "shape": ("P", "na+nb"), "high": "na+nb"}},
        "sizes": [{"na": 1, "nb": 1, "P": 1}, {"na": 5, "nb": 7, "P": 20}, {"na": 500, "nb": 700, "P": 4000}],
        "rtol": 1e-12,
    },
}
