"""Benchmarks: Numba vs kpc targets, interleaved timing, JSON / markdown / PNG reports."""
