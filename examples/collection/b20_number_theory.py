"""Sieve of Eratosthenes, Collatz sequence lengths (parallel) and element-wise Euclid gcd.
The classic "see how fast Numba is" examples from blog posts and Project-Euler solutions.
"""
import numpy as np
from numba import njit, prange


@njit
def sieve(n):
    is_prime = np.ones(n + 1, dtype=np.bool_)
    is_prime[:2] = False
    i = 2
    while i * i <= n:
        if is_prime[i]:
            is_prime[i * i::i] = False
        i += 1
    return np.nonzero(is_prime)[0]


@njit
def count_primes(limit):
    return sieve(limit).size


@njit
def collatz_len(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@njit(parallel=True)
def collatz_lengths(N):
    out = np.empty(N, dtype=np.int64)
    for i in prange(N):
        out[i] = collatz_len(i + 1)
    return out


@njit
def longest_collatz(N):
    lens = collatz_lengths(N)
    k = np.argmax(lens)
    return k + 1, lens[k]


@njit(parallel=True)
def gcd_elementwise(a, b):
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        x, y = abs(a[i]), abs(b[i])
        while y:
            x, y = y, x % y
        out[i] = x
    return out


KPC_CASES = {
    "sieve": {
        "args": {"n": {"kind": "scalar", "value": "n"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 1}, {"n": 10}, {"n": 1000}],
    },
    "count_primes": {
        "args": {"limit": {"kind": "scalar", "value": "n"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 2}, {"n": 10000}],
    },
    "collatz_lengths": {
        "args": {"N": {"kind": "scalar", "value": "n"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 1}, {"n": 3000}],
    },
    "longest_collatz": {
        "args": {"N": {"kind": "scalar", "value": "n"}},
        "dtypes": ["int64"],
        "sizes": [{"n": 1}, {"n": 3000}],
    },
    "gcd_elementwise": {
        "args": {"a": {"kind": "array", "shape": ("n",), "low": -1000, "high": 1000},
                 "b": {"kind": "array", "shape": ("n",), "low": -1000, "high": 1000}},
        "dtypes": ["int64"],
        "sizes": [{"n": 0}, {"n": 500}],
    },
}
