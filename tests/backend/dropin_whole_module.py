"""A module as users write it: Numba kernels beside plain Python that the drop-in keeps too."""
from dataclasses import dataclass
from math import pi

import numpy as np
from numba import njit, prange

__version__ = "1.2"
__all__ = ["SCALE", "Particle", "describe", "main", "pi", "total", "with_list"]

SCALE = 2.5
LABELS = ("x", "y")
_CALLS = []


@dataclass
class Particle:
    mass: float
    charge: float = 0.0


def describe(x):
    """A plain Python function (no decorator): the drop-in keeps it as it is."""
    return f"{len(x)} values, scale {SCALE}"


@njit(parallel=True)
def total(x):
    s = 0.0
    for i in prange(x.shape[0]):
        s += SCALE * x[i]
    return s


@njit
def with_list(n):
    items = [i * i for i in range(n)]
    return len(items)


def main():
    """Plain Python calling a kernel: this runs the source module's Numba kernel."""
    _CALLS.append("main")
    return total(np.arange(4.0))


if __name__ == "__main__":
    raise SystemExit("the source's __main__ block must not run when the drop-in imports it")
