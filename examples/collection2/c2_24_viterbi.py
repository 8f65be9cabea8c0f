"""Hidden Markov models in log space: Viterbi decoding, forward algorithm with logsumexp, batch decoding.
Speech and bioinformatics HMM code as written in course notebooks.
"""
import numpy as np
from numba import njit, prange


@njit
def logsumexp(v):
    m = v.max()
    if m == -np.inf:
        return m
    return m + np.log(np.sum(np.exp(v - m)))


@njit
def viterbi(log_pi, log_A, log_B, obs):
    T = obs.shape[0]
    S = log_pi.shape[0]
    delta = np.empty((T, S))
    psi = np.zeros((T, S), dtype=np.int64)
    delta[0] = log_pi + log_B[:, obs[0]]
    for t in range(1, T):
        for j in range(S):
            best = -np.inf
            arg = 0
            for i in range(S):
                v = delta[t - 1, i] + log_A[i, j]
                if v > best:
                    best = v
                    arg = i
            delta[t, j] = best + log_B[j, obs[t]]
            psi[t, j] = arg
    path = np.empty(T, dtype=np.int64)
    path[T - 1] = np.argmax(delta[T - 1])
    for t in range(T - 2, -1, -1):
        path[t] = psi[t + 1, path[t + 1]]
    return path, delta[T - 1].max()


@njit
def forward_loglik(log_pi, log_A, log_B, obs):
    S = log_pi.shape[0]
    alpha = log_pi + log_B[:, obs[0]]
    tmp = np.empty(S)
    for t in range(1, obs.shape[0]):
        new = np.empty(S)
        for j in range(S):
            for i in range(S):
                tmp[i] = alpha[i] + log_A[i, j]
            new[j] = logsumexp(tmp) + log_B[j, obs[t]]
        alpha = new
    return logsumexp(alpha)


@njit(parallel=True)
def viterbi_batch(log_pi, log_A, log_B, obs_batch):
    nseq, T = obs_batch.shape
    paths = np.empty((nseq, T), dtype=np.int64)
    scores = np.empty(nseq)
    for s in prange(nseq):
        p, sc = viterbi(log_pi, log_A, log_B, obs_batch[s])
        paths[s] = p
        scores[s] = sc
    return paths, scores


@njit
def normalize_log_rows(M):
    out = np.empty_like(M)
    for i in range(M.shape[0]):
        out[i] = M[i] - logsumexp(M[i])
    return out


KPC_CASES = {
    "viterbi": {
        "args": {"log_pi": {"kind": "array", "shape": ("s",), "low": -3.0, "high": -0.1},
                 "log_A": {"kind": "array", "shape": ("s", "s"), "low": -3.0, "high": -0.1},
                 "log_B": {"kind": "array", "shape": ("s", "v"), "low": -3.0, "high": -0.1},
                 "obs": {"kind": "index", "shape": ("t",), "high": "v"}},
        "sizes": [{"s": 1, "v": 1, "t": 1}, {"s": 3, "v": 4, "t": 10}, {"s": 32, "v": 20, "t": 20000}],
        "rtol": 1e-12,
    },
    "forward_loglik": {
        "args": {"log_pi": {"kind": "array", "shape": ("s",), "low": -3.0, "high": -0.1},
                 "log_A": {"kind": "array", "shape": ("s", "s"), "low": -3.0, "high": -0.1},
                 "log_B": {"kind": "array", "shape": ("s", "v"), "low": -3.0, "high": -0.1},
                 "obs": {"kind": "index", "shape": ("t",), "high": "v"}},
        "sizes": [{"s": 1, "v": 1, "t": 1}, {"s": 3, "v": 4, "t": 10}, {"s": 16, "v": 10, "t": 5000}],
        "rtol": 1e-10,
    },
    "viterbi_batch": {
        "args": {"log_pi": {"kind": "array", "shape": ("s",), "low": -3.0, "high": -0.1},
                 "log_A": {"kind": "array", "shape": ("s", "s"), "low": -3.0, "high": -0.1},
                 "log_B": {"kind": "array", "shape": ("s", "v"), "low": -3.0, "high": -0.1},
                 "obs_batch": {"kind": "index", "shape": ("b", "t"), "high": "v"}},
        "sizes": [{"s": 2, "v": 2, "b": 1, "t": 1}, {"s": 16, "v": 10, "b": 200, "t": 500}],
        "rtol": 1e-12,
    },
    "normalize_log_rows": {
        "args": {"M": {"kind": "array", "shape": ("n", "m"), "low": -20.0, "high": 5.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "m": 1}, {"n": 20000, "m": 64}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-10, "float32": 1e-4},
        "atol": {"float64": 1e-10, "float32": 1e-4},
    },
}
