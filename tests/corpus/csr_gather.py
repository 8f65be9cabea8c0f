"""A CSR gather in a kernel without parallel=True, as graph codes write it (a PageRank step).

Exercises: a plain `range` loop over rows whose inner loop runs from `indptr[v]` to
`indptr[v + 1]` (work per row unknown to the cost guard), which kpc runs as a Team region in
parallel where that measures faster than the serial loop Numba runs; the CSR built by a
counting sort, and the scatter that counts out-degrees; `np.where` of a division by them.
"""
import numpy as np
from numba import njit


@njit
def gather_step(src, dst, rank):
    n = rank.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    for k in range(dst.shape[0]):
        indptr[dst[k] + 1] += 1
    indptr = np.cumsum(indptr)
    fill = indptr.copy()
    srcs = np.empty(src.shape[0], dtype=np.int64)
    for k in range(src.shape[0]):
        srcs[fill[dst[k]]] = src[k]
        fill[dst[k]] += 1
    outdeg = np.zeros(n)
    for k in range(src.shape[0]):
        outdeg[src[k]] += 1.0
    contrib = np.where(outdeg > 0, rank / np.maximum(outdeg, 1.0), 0.0)
    new = np.empty(n)
    for v in range(n):
        s = 0.0
        for k in range(indptr[v], indptr[v + 1]):
            s += contrib[srcs[k]]
        new[v] = s
    return new


KPC_CASES = {
    "gather_step": {
        "args": {"src": {"kind": "index", "shape": ("e",), "high": "n"},
                 "dst": {"kind": "index", "shape": ("e",), "high": "n"}, "rank": ("n",)},
        "sizes": [{"e": 1, "n": 1}, {"e": 300, "n": 40}, {"e": 20000, "n": 3000}],
        "rtol": 1e-12,
    },
}
