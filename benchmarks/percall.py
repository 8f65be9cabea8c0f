"""Per-call cost of a drop-in function against Numba's dispatcher, in one process.

    .venv/bin/python benchmarks/percall.py [--repeats 9] [--calls 20000]

A 3-argument loop-free kernel (``y[0] = a * x[0] + y[0]``) is built with kpc (lazy, compiled
on the first call) and called beside the same Numba function, interleaved, after warm-up;
prints best and median microseconds per call of each and their difference.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import timeit

SOURCE = '''
from numba import njit


@njit
def axpy(a, x, y):
    y[0] = a * x[0] + y[0]
'''


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args(argv)

    import numpy as np

    from kpc.build_file import build

    folder = tempfile.mkdtemp(prefix="kpc-percall-")
    source = os.path.join(folder, "percall_kernel.py")
    with open(source, "w") as handle:
        handle.write(SOURCE)
    report = build(source, target="kokkos", out=os.path.join(folder, "out"))
    kpc_module = _load(report.output, "percall_kpc")
    numba_module = _load(source, "percall_numba")
    x, y = np.ones(10), np.ones(10)
    samples = {"kpc": [], "numba": []}
    functions = {"kpc": kpc_module.axpy, "numba": numba_module.axpy}
    for function in functions.values():
        function(2.0, x, y)  # compile / warm up
    for _ in range(args.repeats):
        for name, function in functions.items():
            seconds = timeit.timeit(lambda: function(2.0, x, y), number=args.calls)
            samples[name].append(seconds / args.calls * 1e6)
    for name, values in samples.items():
        print(f"{name:6} best {min(values):.3f} us  median {statistics.median(values):.3f} us per call")
    print(f"kpc - numba: best {min(samples['kpc']) - min(samples['numba']):+.3f} us, "
          f"median {statistics.median(samples['kpc']) - statistics.median(samples['numba']):+.3f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
