"""Interleaved timing of competing implementations of one kernel call.

This machine is shared and its timings are bimodal, so runs of the
contenders alternate (Numba, kpc, Numba, kpc, ...) after a warm-up, and the
figure quoted is the best-of-n ratio; the median is reported beside it.

>>> import time
>>> result = interleave({"a": lambda: None, "b": lambda: None}, repeats=7, min_time=0.0)
>>> sorted(result)
['a', 'b']
>>> len(result["a"].samples)
7
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass


@dataclass
class Timing:
    """Seconds per call of one contender: every sample, with best and median."""

    samples: list

    @property
    def best(self) -> float:
        return min(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def as_dict(self) -> dict:
        return {"best_s": self.best, "median_s": self.median, "samples_s": self.samples}


def _calls_per_sample(fn, min_time: float) -> int:
    """How many calls make one sample last at least ``min_time`` (timer resolution)."""
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time or calls >= 1 << 20:
            return calls
        calls *= 2 if elapsed == 0 else max(2, min(10, int(min_time / elapsed) + 1))


def interleave(contenders: dict, repeats: int = 7, warmup: int = 2, min_time: float = 0.02,
               budget_s: float | None = None) -> dict:
    """Time each zero-argument callable ``repeats`` times, alternating between them.

    Each sample is the mean over enough calls to last ``min_time``; ``budget_s``
    stops early (after at least 3 rounds) when a size is too slow to finish.
    """
    for fn in contenders.values():
        for _ in range(warmup):
            fn()
    calls = {name: _calls_per_sample(fn, min_time) for name, fn in contenders.items()}
    samples = {name: [] for name in contenders}
    started = time.perf_counter()
    for round_index in range(repeats):
        for name, fn in contenders.items():
            n = calls[name]
            start = time.perf_counter()
            for _ in range(n):
                fn()
            samples[name].append((time.perf_counter() - start) / n)
        if budget_s is not None and round_index >= 2 and time.perf_counter() - started > budget_s:
            break
    return {name: Timing(values) for name, values in samples.items()}
