"""0/1 and unbounded knapsack, coin change counting, longest increasing subsequence by patience sorting.
Competitive-programming dynamic programming translated to NumPy arrays.
"""
import numpy as np
from numba import njit


@njit
def knapsack_01(weights, values, capacity):
    best = np.zeros(capacity + 1, dtype=np.int64)
    for i in range(weights.shape[0]):
        w = weights[i]
        v = values[i]
        for c in range(capacity, w - 1, -1):
            cand = best[c - w] + v
            if cand > best[c]:
                best[c] = cand
    return best[capacity]


@njit
def knapsack_items(weights, values, capacity):
    n = weights.shape[0]
    T = np.zeros((n + 1, capacity + 1), dtype=np.int64)
    for i in range(1, n + 1):
        w, v = weights[i - 1], values[i - 1]
        T[i, :] = T[i - 1, :]
        if w <= capacity:
            T[i, w:] = np.maximum(T[i - 1, w:], T[i - 1, :capacity + 1 - w] + v)
    chosen = np.zeros(n, dtype=np.bool_)
    c = capacity
    for i in range(n, 0, -1):
        if T[i, c] != T[i - 1, c]:
            chosen[i - 1] = True
            c -= weights[i - 1]
    return T[n, capacity], chosen


@njit
def coin_change_ways(coins, amount):
    ways = np.zeros(amount + 1, dtype=np.int64)
    ways[0] = 1
    for coin in coins:
        for a in range(coin, amount + 1):
            ways[a] = (ways[a] + ways[a - coin]) % 1000000007
    return ways[amount]


@njit
def lis_length(x):
    tails = np.empty(x.shape[0], dtype=x.dtype)
    size = 0
    for v in x:
        lo, hi = 0, size
        while lo < hi:
            mid = (lo + hi) // 2
            if tails[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        tails[lo] = v
        if lo == size:
            size += 1
    return size


KPC_CASES = {
    "knapsack_01": {
        "args": {"weights": {"kind": "index", "shape": ("n",), "low": 1, "high": 50},
                 "values": {"kind": "index", "shape": ("n",), "low": 1, "high": 100},
                 "capacity": {"kind": "scalar", "value": "c"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "c": 5}, {"n": 1, "c": 0}, {"n": 10, "c": 40}, {"n": 1000, "c": 20000}],
    },
    "knapsack_items": {
        "args": {"weights": {"kind": "index", "shape": ("n",), "low": 1, "high": 50},
                 "values": {"kind": "index", "shape": ("n",), "low": 1, "high": 100},
                 "capacity": {"kind": "scalar", "value": "c"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 1, "c": 0}, {"n": 10, "c": 40}, {"n": 500, "c": 10000}],
    },
    "coin_change_ways": {
        "args": {"coins": {"kind": "index", "shape": ("n",), "low": 1, "high": 40},
                 "amount": {"kind": "scalar", "value": "a"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 1, "a": 0}, {"n": 4, "a": 30}, {"n": 50, "a": 200000}],
    },
    "lis_length": {
        "args": {"x": ("n",)},
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 20}, {"n": 300000}],
        "layouts": ["C", "strided"],
    },
}
