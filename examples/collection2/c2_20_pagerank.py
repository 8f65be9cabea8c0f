"""PageRank by power iteration on a CSR graph, with dangling nodes, and personalised PageRank.
Written like the link-analysis exercises of information-retrieval courses.
"""
import numpy as np
from numba import njit, prange


@njit
def build_in_csr(src, dst, n):
    # incoming-edge CSR: for each node v, the sources u of edges u -> v
    counts = np.zeros(n + 1, dtype=np.int64)
    for k in range(dst.shape[0]):
        counts[dst[k] + 1] += 1
    indptr = np.cumsum(counts)
    fill = indptr.copy()
    srcs = np.empty(src.shape[0], dtype=np.int64)
    for k in range(src.shape[0]):
        srcs[fill[dst[k]]] = src[k]
        fill[dst[k]] += 1
    return indptr, srcs


@njit(parallel=True)
def pagerank(src, dst, n, damping, tol, max_iter):
    indptr, srcs = build_in_csr(src, dst, n)
    outdeg = np.bincount(src, minlength=n)
    rank = np.full(n, 1.0 / n)
    new = np.empty(n)
    iters = 0
    for it in range(max_iter):
        dangling = 0.0
        for u in range(n):
            if outdeg[u] == 0:
                dangling += rank[u]
        base = (1.0 - damping) / n + damping * dangling / n
        for v in prange(n):
            s = 0.0
            for k in range(indptr[v], indptr[v + 1]):
                u = srcs[k]
                s += rank[u] / outdeg[u]
            new[v] = base + damping * s
        err = np.abs(new - rank).sum()
        rank[:] = new
        iters = it + 1
        if err < tol:
            break
    return rank, iters


@njit
def personalized_pagerank(src, dst, n, seeds, damping, steps):
    indptr, srcs = build_in_csr(src, dst, n)
    outdeg = np.zeros(n)
    for k in range(src.shape[0]):
        outdeg[src[k]] += 1.0
    restart = np.zeros(n)
    restart[seeds] = 1.0 / seeds.shape[0]
    rank = restart.copy()
    for _ in range(steps):
        contrib = np.where(outdeg > 0, rank / np.maximum(outdeg, 1.0), 0.0)
        new = np.empty(n)
        for v in range(n):
            s = 0.0
            for k in range(indptr[v], indptr[v + 1]):
                s += contrib[srcs[k]]
            new[v] = s
        rank = damping * new + (1.0 - damping) * restart
    return rank


@njit
def top_k(scores, k):
    order = np.argsort(-scores, kind="mergesort")
    return order[:k].copy()


KPC_CASES = {
    "pagerank": {
        "args": {"src": {"kind": "index", "shape": ("e",), "high": "n"},
                 "dst": {"kind": "index", "shape": ("e",), "high": "n"},
                 "n": {"kind": "scalar", "value": "n"}, "damping": {"kind": "scalar", "value": 0.85},
                 "tol": {"kind": "scalar", "value": 1e-10}, "max_iter": {"kind": "scalar", "value": "it"}},
        "sizes": [{"e": 1, "n": 1, "it": 3}, {"e": 30, "n": 10, "it": 50}, {"e": 250000, "n": 50000, "it": 10}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "personalized_pagerank": {
        "args": {"src": {"kind": "index", "shape": ("e",), "high": "n"},
                 "dst": {"kind": "index", "shape": ("e",), "high": "n"},
                 "n": {"kind": "scalar", "value": "n"}, "seeds": {"kind": "index", "shape": ("s",), "high": "n"},
                 "damping": {"kind": "scalar", "value": 0.85}, "steps": {"kind": "scalar", "value": "t"}},
        "sizes": [{"e": 1, "n": 2, "s": 1, "t": 2}, {"e": 400000, "n": 100000, "s": 10, "t": 15}],
        "rtol": 1e-9,
        "atol": 1e-12,
    },
    "top_k": {
        "args": {"scores": ("n",), "k": {"kind": "scalar", "value": "k"}},
        "sizes": [{"n": 1, "k": 1}, {"n": 200000, "k": 100}],
    },
}
