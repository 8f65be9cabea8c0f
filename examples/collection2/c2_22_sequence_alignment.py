"""Longest common subsequence with traceback, Needleman-Wunsch global alignment scores and edit distance.
Bioinformatics-course dynamic programming on integer-encoded sequences.
"""
import numpy as np
from numba import njit, prange


@njit
def lcs_table(a, b):
    n, m = a.shape[0], b.shape[0]
    L = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                L[i, j] = L[i - 1, j - 1] + 1
            else:
                L[i, j] = max(L[i - 1, j], L[i, j - 1])
    return L


@njit
def lcs(a, b):
    L = lcs_table(a, b)
    i, j = a.shape[0], b.shape[0]
    out = np.empty(L[i, j], dtype=a.dtype)
    k = L[i, j] - 1
    while i > 0 and j > 0:
        if a[i - 1] == b[j - 1]:
            out[k] = a[i - 1]
            k -= 1
            i -= 1
            j -= 1
        elif L[i - 1, j] >= L[i, j - 1]:
            i -= 1
        else:
            j -= 1
    return out


@njit
def needleman_wunsch(a, b, match, mismatch, gap):
    n, m = a.shape[0], b.shape[0]
    prev = np.arange(m + 1) * gap
    cur = np.empty(m + 1, dtype=prev.dtype)
    for i in range(1, n + 1):
        cur[0] = i * gap
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            cur[j] = max(prev[j - 1] + s, prev[j] + gap, cur[j - 1] + gap)
        prev, cur = cur, prev
    return prev[m]


@njit
def levenshtein(a, b):
    n, m = len(a), len(b)
    if n == 0:
        return m
    if m == 0:
        return n
    row = np.arange(m + 1)
    for i in range(1, n + 1):
        diag = row[0]
        row[0] = i
        for j in range(1, m + 1):
            tmp = row[j]
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(row[j] + 1, row[j - 1] + 1, diag + cost)
            diag = tmp
    return row[m]


@njit(parallel=True)
def all_pairs_levenshtein(seqs):
    k = seqs.shape[0]
    D = np.zeros((k, k), dtype=np.int64)
    for i in prange(k):
        for j in range(i + 1, k):
            d = levenshtein(seqs[i], seqs[j])
            D[i, j] = d
            D[j, i] = d
    return D


KPC_CASES = {
    "lcs": {
        "args": {"a": {"kind": "index", "shape": ("n",), "high": 4}, "b": {"kind": "index", "shape": ("m",), "high": 4}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "m": 0}, {"n": 1, "m": 5}, {"n": 12, "m": 9}, {"n": 2000, "m": 2500}],
    },
    "needleman_wunsch": {
        "args": {"a": {"kind": "index", "shape": ("n",), "high": 4}, "b": {"kind": "index", "shape": ("m",), "high": 4},
                 "match": {"kind": "scalar", "value": 2}, "mismatch": {"kind": "scalar", "value": -1},
                 "gap": {"kind": "scalar", "value": -2}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 10, "m": 7}, {"n": 2500, "m": 2500}],
    },
    "levenshtein": {
        "args": {"a": {"kind": "index", "shape": ("n",), "high": 4}, "b": {"kind": "index", "shape": ("m",), "high": 4}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0, "m": 3}, {"n": 4, "m": 0}, {"n": 10, "m": 12}, {"n": 2500, "m": 2500}],
        "layouts": ["C", "strided"],
    },
    "all_pairs_levenshtein": {
        "args": {"seqs": {"kind": "index", "shape": ("k", "L"), "high": 4}},
        "dtypes": ["int64"],
        "sizes": [{"k": 1, "L": 3}, {"k": 5, "L": 6}, {"k": 60, "L": 60}],
    },
}
