"""All-pairs shortest paths by Floyd-Warshall with explicit loops: k outer (sequential), rows in parallel with prange; a version that keeps the successor matrix for path reconstruction; integer weights with a "no edge" sentinel; and Warshall's transitive closure of a 0/1 adjacency matrix.
Graph-analytics, routing and network-science code (road networks, social graphs, molecule topologies) sped up with Numba.
"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def floyd_warshall_parallel(W):
    n = W.shape[0]
    D = W.copy()
    for i in range(n):
        D[i, i] = 0.0
    for k in range(n):
        for i in prange(n):
            dik = D[i, k]
            for j in range(n):
                nd = dik + D[k, j]
                if nd < D[i, j]:
                    D[i, j] = nd
    return D


@njit
def floyd_warshall_paths(W):
    n = W.shape[0]
    dist = np.empty((n, n))
    nxt = np.empty((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(n):
            dist[i, j] = W[i, j]
            nxt[i, j] = j
        dist[i, i] = 0.0
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if dist[i, k] + dist[k, j] < dist[i, j]:
                    dist[i, j] = dist[i, k] + dist[k, j]
                    nxt[i, j] = nxt[i, k]
    # number of edges on every shortest path, from the successor matrix
    hops = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(n):
            u = i
            while u != j:
                u = nxt[u, j]
                hops[i, j] += 1
    return dist, hops


@njit(parallel=True)
def apsp_int(W):
    # W[i, j] == 0 means no edge; result -1 where j cannot be reached from i
    n = W.shape[0]
    INF = 1 << 60
    D = np.full((n, n), INF, dtype=np.int64)
    for i in prange(n):
        for j in range(n):
            if i == j:
                D[i, j] = 0
            elif W[i, j] > 0:
                D[i, j] = W[i, j]
    for k in range(n):
        for i in prange(n):
            if D[i, k] == INF:
                continue
            for j in range(n):
                if D[k, j] != INF and D[i, k] + D[k, j] < D[i, j]:
                    D[i, j] = D[i, k] + D[k, j]
    for i in prange(n):
        for j in range(n):
            if D[i, j] == INF:
                D[i, j] = -1
    return D


@njit
def transitive_closure(A):
    n = A.shape[0]
    R = A > 0
    for i in range(n):
        R[i, i] = True
    for k in range(n):
        for i in range(n):
            if R[i, k]:
                for j in range(n):
                    R[i, j] = R[i, j] or R[k, j]
    return R


KPC_CASES = {
    "floyd_warshall_parallel": {
        "args": {"W": {"kind": "array", "shape": ("n", "n"), "low": 0.1, "high": 10.0}},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1}, {"n": 7}, {"n": 48}],
        "layouts": ["C", "F"],
        "rtol": {"float64": 1e-12, "float32": 1e-5},
    },
    "floyd_warshall_paths": {
        "args": {"W": {"kind": "array", "shape": ("n", "n"), "low": 0.1, "high": 10.0}},
        "dtypes": ["float64"],
        "sizes": [{"n": 1}, {"n": 40}],
        "rtol": 1e-12,
    },
    "apsp_int": {
        "args": {"W": {"kind": "index", "shape": ("n", "n"), "low": -6, "high": 10}},
        "dtypes": ["int64"],
        "sizes": [{"n": 2}, {"n": 50}],
        "layouts": ["C", "F"],
    },
    "transitive_closure": {
        "args": {"A": {"kind": "index", "shape": ("n", "n"), "low": -20, "high": 2}},
        "dtypes": ["int64"],
        "sizes": [{"n": 3}, {"n": 40}],
    },
}
