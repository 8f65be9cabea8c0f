"""Single-source shortest paths: dense O(n^2) Dijkstra, Bellman-Ford with early exit, grid shortest path.
Algorithm-course implementations on adjacency matrices and edge lists.
"""
import numpy as np
from numba import njit


@njit
def dijkstra_dense(W, source):
    n = W.shape[0]
    dist = np.full(n, np.inf)
    prev = np.full(n, -1, dtype=np.int64)
    done = np.zeros(n, dtype=np.bool_)
    dist[source] = 0.0
    for _ in range(n):
        u = -1
        best = np.inf
        for v in range(n):
            if not done[v] and dist[v] < best:
                best = dist[v]
                u = v
        if u == -1:
            break
        done[u] = True
        for v in range(n):
            w = W[u, v]
            if w > 0 and dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
                prev[v] = u
    return dist, prev


@njit
def path_to(prev, target):
    length = 0
    v = target
    while v != -1:
        length += 1
        v = prev[v]
    path = np.empty(length, dtype=np.int64)
    v = target
    for i in range(length - 1, -1, -1):
        path[i] = v
        v = prev[v]
    return path


@njit
def dijkstra_path(W, source, target):
    dist, prev = dijkstra_dense(W, source)
    if dist[target] == np.inf:
        return dist[target], np.empty(0, dtype=np.int64)
    return dist[target], path_to(prev, target)


@njit
def bellman_ford(src, dst, w, n, source):
    dist = np.full(n, np.inf)
    dist[source] = 0.0
    for _ in range(n - 1):
        changed = False
        for k in range(src.shape[0]):
            u, v = src[k], dst[k]
            if dist[u] + w[k] < dist[v]:
                dist[v] = dist[u] + w[k]
                changed = True
        if not changed:
            break
    for k in range(src.shape[0]):
        if dist[src[k]] + w[k] < dist[dst[k]]:
            raise ValueError("negative cycle")
    return dist


@njit
def grid_min_path_sum(cost):
    h, w = cost.shape
    acc = np.empty_like(cost)
    acc[0, 0] = cost[0, 0]
    for j in range(1, w):
        acc[0, j] = acc[0, j - 1] + cost[0, j]
    for i in range(1, h):
        acc[i, 0] = acc[i - 1, 0] + cost[i, 0]
        for j in range(1, w):
            acc[i, j] = min(acc[i - 1, j], acc[i, j - 1]) + cost[i, j]
    return acc[h - 1, w - 1]


KPC_CASES = {
    "dijkstra_dense": {
        "args": {"W": {"kind": "array", "shape": ("n", "n"), "low": -0.5, "high": 1.0},
                 "source": {"kind": "scalar", "value": 0}},
        "sizes": [{"n": 1}, {"n": 6}, {"n": 2000}],
        "layouts": ["C", "F"],
        "rtol": 1e-12,
    },
    "dijkstra_path": {
        "args": {"W": {"kind": "array", "shape": ("n", "n"), "low": -2.0, "high": 1.0},
                 "source": {"kind": "scalar", "value": 0}, "target": {"kind": "scalar", "value": "n - 1"}},
        "sizes": [{"n": 1}, {"n": 8}, {"n": 2000}],
        "rtol": 1e-12,
    },
    "bellman_ford": {
        "args": {"src": {"kind": "index", "shape": ("e",), "high": "n"},
                 "dst": {"kind": "index", "shape": ("e",), "high": "n"},
                 "w": {"kind": "array", "shape": ("e",), "low": 0.0, "high": 1.0},
                 "n": {"kind": "scalar", "value": "n"}, "source": {"kind": "scalar", "value": 0}},
        "sizes": [{"e": 0, "n": 1}, {"e": 20, "n": 8}, {"e": 500000, "n": 100000}],
        "rtol": 1e-12,
    },
    "grid_min_path_sum": {
        "args": {"cost": {"kind": "array", "shape": ("h", "w"), "low": 0.0, "high": 1.0}},
        "dtypes": ["float64", "int64"],
        "sizes": [{"h": 1, "w": 1}, {"h": 3, "w": 5}, {"h": 2000, "w": 2000}],
        "layouts": ["C", "F"],
        "rtol": 1e-10,
    },
}
