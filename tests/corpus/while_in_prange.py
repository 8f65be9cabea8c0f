"""Data-dependent `while` loops inside parallel loops.

Exercises: a `while` loop with an integer trip count that depends on the
element (Collatz stopping times, with `//` and `%`), a bisection root
finder iterating until the bracket is narrower than a tolerance, and a
binary search (`searchsorted`, left side) over a sorted array; each inside
a `prange` whose iterations do very different amounts of work.
"""
from numba import njit, prange


@njit(parallel=True)
def collatz_steps(start, out):
    for i in prange(start.shape[0]):
        n = start[i]
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        out[i] = steps


@njit(parallel=True)
def cubic_roots(c, out, tol):
    for i in prange(c.shape[0]):
        lo = -abs(c[i]) - 1.0
        hi = abs(c[i]) + 1.0
        while hi - lo > tol:
            mid = 0.5 * (lo + hi)
            if mid * mid * mid + mid - c[i] > 0.0:
                hi = mid
            else:
                lo = mid
        out[i] = 0.5 * (lo + hi)


@njit(parallel=True)
def search_sorted(sorted_vals, queries, out):
    n = sorted_vals.shape[0]
    for q in prange(queries.shape[0]):
        lo = 0
        hi = n
        while lo < hi:
            mid = (lo + hi) // 2
            if sorted_vals[mid] < queries[q]:
                lo = mid + 1
            else:
                hi = mid
        out[q] = lo


KPC_CASES = {
    "collatz_steps": {
        "args": {
            "start": {"kind": "index", "shape": ("n",), "low": 1, "high": 1000},
            "out": {"kind": "array", "shape": ("n",), "dtype": "int64"},
        },
        "dtypes": ["int64"],
        "sizes": [{"n": 0}, {"n": 1}, {"n": 33}, {"n": 100}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "cubic_roots": {
        "args": {
            "c": {"kind": "array", "shape": ("n",), "low": -20.0, "high": 20.0},
            "out": ("n",),
            "tol": {"kind": "scalar", "value": 1e-9},
        },
        "dtypes": ["float64"],
        "sizes": [{"n": 0}, {"n": 7}, {"n": 33}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
    "search_sorted": {
        "args": {
            "sorted_vals": {"kind": "array", "shape": ("n",), "values": "sorted"},
            "queries": {"kind": "array", "shape": ("q",), "low": -1.2, "high": 1.2},
            "out": {"kind": "array", "shape": ("q",), "dtype": "int64"},
        },
        "dtypes": ["float64", "int64"],
        "sizes": [{"n": 0, "q": 3}, {"n": 1, "q": 5}, {"n": 33, "q": 100}],
        "writes": ["out"],
        "layouts": ["C", "strided"],
    },
}
