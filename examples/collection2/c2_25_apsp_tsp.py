"""All-pairs shortest paths by min-plus squaring, widest (bottleneck) paths, reachability by BFS, Held-Karp TSP.
Classic graph DP on dense matrices, with bit masks for the subset DP.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def min_plus(A, B):
    n = A.shape[0]
    C = np.empty((n, B.shape[1]))
    for i in prange(n):
        for j in range(B.shape[1]):
            best = np.inf
            for k in range(A.shape[1]):
                v = A[i, k] + B[k, j]
                if v < best:
                    best = v
            C[i, j] = best
    return C


@njit
def apsp_squaring(W):
    # all-pairs shortest paths by repeated min-plus squaring: log2(n) products
    n = W.shape[0]
    D = W.copy()
    for i in range(n):
        D[i, i] = 0.0
    length = 1
    while length < n - 1:
        D = min_plus(D, D)
        length *= 2
    return D


@njit
def widest_paths(C):
    # bottleneck capacities: the best path maximises its smallest edge
    B = C.copy()
    n = B.shape[0]
    for k in range(n):
        col = np.ascontiguousarray(B[:, k]).reshape(-1, 1)
        via = np.minimum(col, B[k])
        B = np.maximum(B, via)
    return B


@njit(parallel=True)
def reachability(adj):
    # one breadth-first search per source over a boolean adjacency matrix
    n = adj.shape[0]
    R = np.zeros((n, n), dtype=np.bool_)
    for s in prange(n):
        queue = np.empty(n, dtype=np.int64)
        head = 0
        tail = 1
        queue[0] = s
        R[s, s] = True
        while head < tail:
            u = queue[head]
            head += 1
            for v in range(n):
                if adj[u, v] and not R[s, v]:
                    R[s, v] = True
                    queue[tail] = v
                    tail += 1
    return R


@njit
def held_karp(D):
    n = D.shape[0]
    full = 1 << n
    dp = np.full((full, n), np.inf)
    dp[1, 0] = 0.0
    for mask in range(1, full):
        if not (mask & 1):
            continue
        for last in range(n):
            if not (mask >> last) & 1:
                continue
            cur = dp[mask, last]
            if cur == np.inf:
                continue
            for nxt in range(n):
                if (mask >> nxt) & 1:
                    continue
                nm = mask | (1 << nxt)
                cand = cur + D[last, nxt]
                if cand < dp[nm, nxt]:
                    dp[nm, nxt] = cand
    best = np.inf
    for last in range(1, n):
        best = min(best, dp[full - 1, last] + D[last, 0])
    return best if n > 1 else 0.0


KPC_CASES = {
    "apsp_squaring": {
        "args": {"W": {"kind": "array", "shape": ("n", "n"), "low": 0.0, "high": 10.0}},
        "sizes": [{"n": 1}, {"n": 2}, {"n": 7}, {"n": 100}],
        "layouts": ["C", "F"],
        "rtol": 1e-12,
    },
    "widest_paths": {
        "args": {"C": {"kind": "array", "shape": ("n", "n"), "low": 0.0, "high": 10.0}},
        "sizes": [{"n": 1}, {"n": 7}, {"n": 200}],
        "rtol": 1e-12,
    },
    "reachability": {
        "args": {"adj": {"kind": "array", "shape": ("n", "n"), "dtype": "bool"}},
        "sizes": [{"n": 1}, {"n": 6}, {"n": 200}],
    },
    "held_karp": {
        "args": {"D": {"kind": "array", "shape": ("n", "n"), "low": 1.0, "high": 10.0}},
        "sizes": [{"n": 1}, {"n": 2}, {"n": 6}, {"n": 15}],
        "rtol": 1e-12,
    },
}
