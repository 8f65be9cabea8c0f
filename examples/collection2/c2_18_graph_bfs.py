"""Breadth-first search, connected components and degree statistics on graphs stored as CSR arrays.
Graph-analytics kernels as found in network-science code that avoids networkx loops.
"""
import numpy as np
from numba import njit, prange


@njit
def edges_to_csr(src, dst, n):
    # undirected: both directions
    deg = np.zeros(n, dtype=np.int64)
    for k in range(src.shape[0]):
        deg[src[k]] += 1
        deg[dst[k]] += 1
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(deg)
    pos = indptr[:-1].copy()
    adj = np.empty(indptr[-1], dtype=np.int64)
    for k in range(src.shape[0]):
        a, b = src[k], dst[k]
        adj[pos[a]] = b
        pos[a] += 1
        adj[pos[b]] = a
        pos[b] += 1
    return indptr, adj


@njit
def bfs_levels(indptr, adj, source):
    n = indptr.shape[0] - 1
    level = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    head, tail = 0, 0
    queue[tail] = source
    tail += 1
    level[source] = 0
    while head < tail:
        u = queue[head]
        head += 1
        for k in range(indptr[u], indptr[u + 1]):
            v = adj[k]
            if level[v] < 0:
                level[v] = level[u] + 1
                queue[tail] = v
                tail += 1
    return level


@njit
def bfs_from_edges(src, dst, n, source):
    indptr, adj = edges_to_csr(src, dst, n)
    return bfs_levels(indptr, adj, source)


@njit
def connected_components(src, dst, n):
    indptr, adj = edges_to_csr(src, dst, n)
    comp = np.full(n, -1, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    ncomp = 0
    for s in range(n):
        if comp[s] >= 0:
            continue
        top = 0
        stack[top] = s
        comp[s] = ncomp
        while top >= 0:
            u = stack[top]
            top -= 1
            for k in range(indptr[u], indptr[u + 1]):
                v = adj[k]
                if comp[v] < 0:
                    comp[v] = ncomp
                    top += 1
                    stack[top] = v
        ncomp += 1
    return ncomp, comp


@njit(parallel=True)
def neighbor_degree_mean(src, dst, n):
    indptr, adj = edges_to_csr(src, dst, n)
    deg = np.diff(indptr)
    out = np.zeros(n)
    for u in prange(n):
        if deg[u] == 0:
            continue
        s = 0
        for k in range(indptr[u], indptr[u + 1]):
            s += deg[adj[k]]
        out[u] = s / deg[u]
    return out


KPC_CASES = {
    "bfs_from_edges": {
        "args": {"src": {"kind": "index", "shape": ("e",), "high": "n"},
                 "dst": {"kind": "index", "shape": ("e",), "high": "n"},
                 "n": {"kind": "scalar", "value": "n"}, "source": {"kind": "scalar", "value": 0}},
        "sizes": [{"e": 0, "n": 1}, {"e": 12, "n": 10}, {"e": 400000, "n": 120000}],
    },
    "connected_components": {
        "args": {"src": {"kind": "index", "shape": ("e",), "high": "n"},
                 "dst": {"kind": "index", "shape": ("e",), "high": "n"},
                 "n": {"kind": "scalar", "value": "n"}},
        "sizes": [{"e": 0, "n": 3}, {"e": 8, "n": 12}, {"e": 200000, "n": 250000}],
    },
    "neighbor_degree_mean": {
        "args": {"src": {"kind": "index", "shape": ("e",), "high": "n"},
                 "dst": {"kind": "index", "shape": ("e",), "high": "n"},
                 "n": {"kind": "scalar", "value": "n"}},
        "sizes": [{"e": 0, "n": 2}, {"e": 20, "n": 9}, {"e": 500000, "n": 100000}],
        "rtol": 1e-12,
    },
}
