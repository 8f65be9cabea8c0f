"""Scaled dot-product attention (single and multi-head, causal mask) and rotary position embedding.
Toy transformer inference as written in "attention from scratch" notebooks.
"""
import math

import numpy as np
from numba import njit, prange


@njit
def softmax_rows(s):
    m = np.empty(s.shape[0])
    for i in range(s.shape[0]):
        m[i] = s[i].max()
    e = np.exp(s - m.reshape(-1, 1))
    return e / e.sum(axis=1).reshape(-1, 1)


@njit
def attention(Q, K, V):
    d = Q.shape[1]
    scores = Q @ K.T / math.sqrt(d)
    return softmax_rows(scores) @ V


@njit
def causal_attention(Q, K, V):
    n, d = Q.shape
    scores = Q @ K.T / np.sqrt(d)
    for i in range(n):
        for j in range(i + 1, n):
            scores[i, j] = -np.inf
    return softmax_rows(scores) @ V


@njit(parallel=True)
def multihead_attention(X, Wq, Wk, Wv, Wo, nheads):
    n, dm = X.shape
    dh = dm // nheads
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    out = np.empty((n, dm))
    for h in prange(nheads):
        q = np.ascontiguousarray(Q[:, h * dh:(h + 1) * dh])
        k = np.ascontiguousarray(K[:, h * dh:(h + 1) * dh])
        v = np.ascontiguousarray(V[:, h * dh:(h + 1) * dh])
        out[:, h * dh:(h + 1) * dh] = attention(q, k, v)
    return out @ Wo


@njit
def rotary_embedding(x, base=10000.0):
    n, d = x.shape
    half = d // 2
    out = np.empty_like(x)
    for p in range(n):
        for i in range(half):
            theta = p / base ** (2.0 * i / d)
            c, s = math.cos(theta), math.sin(theta)
            a, b = x[p, i], x[p, i + half]
            out[p, i] = a * c - b * s
            out[p, i + half] = a * s + b * c
    return out


@njit(parallel=True, fastmath=True)
def attention_streaming(Q, K, V):
    # one query row at a time with a running max and sum (the "online softmax")
    n, d = Q.shape
    m = K.shape[0]
    out = np.zeros((n, V.shape[1]))
    scale = 1.0 / math.sqrt(d)
    for i in prange(n):
        run_max = -np.inf
        run_sum = 0.0
        acc = np.zeros(V.shape[1])
        for j in range(m):
            s = 0.0
            for t in range(d):
                s += Q[i, t] * K[j, t]
            s *= scale
            if s > run_max:
                corr = math.exp(run_max - s)
                run_sum *= corr
                acc *= corr
                run_max = s
            p = math.exp(s - run_max)
            run_sum += p
            acc += p * V[j]
        out[i] = acc / run_sum
    return out


KPC_CASES = {
    "attention": {
        "args": {"Q": ("n", "d"), "K": ("m", "d"), "V": ("m", "e")},
        "sizes": [{"n": 1, "m": 1, "d": 1, "e": 1}, {"n": 512, "m": 512, "d": 64, "e": 64}],
        "layouts": ["C", "F"],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "causal_attention": {
        "args": {"Q": ("n", "d"), "K": ("n", "d"), "V": ("n", "e")},
        "sizes": [{"n": 1, "d": 1, "e": 1}, {"n": 512, "d": 64, "e": 64}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "multihead_attention": {
        "args": {"X": ("n", "dm"), "Wq": ("dm", "dm"), "Wk": ("dm", "dm"), "Wv": ("dm", "dm"),
                 "Wo": ("dm", "dm"), "nheads": {"kind": "scalar", "value": "h"}},
        "sizes": [{"n": 2, "dm": 4, "h": 2}, {"n": 128, "dm": 128, "h": 4}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "rotary_embedding": {
        "args": {"x": ("n", "d"), "base": {"kind": "scalar", "value": 10000.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "d": 2}, {"n": 4096, "d": 128}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-9, "float32": 1e-4},
        "atol": {"float64": 1e-10, "float32": 1e-5},
    },
    "attention_streaming": {
        "args": {"Q": ("n", "d"), "K": ("m", "d"), "V": ("m", "e")},
        "sizes": [{"n": 1, "m": 1, "d": 1, "e": 1}, {"n": 512, "m": 512, "d": 64, "e": 64}],
        "rtol": 1e-8,
        "atol": 1e-10,
    },
}
