"""Per-call cost of a drop-in function against Numba's dispatcher, in one process.

    .venv/bin/python benchmarks/percall.py [--repeats 9] [--calls 20000] [--gufunc]

A 3-argument loop-free kernel (``y[0] = a * x[0] + y[0]``) is built with kpc (lazy, compiled
on the first call) and called beside the same Numba function, interleaved, after warm-up;
prints best and median microseconds per call of each and their difference. ``--gufunc``: the
same for the ``@guvectorize`` gufuncs of tests/corpus/gufunc_guvectorize.py (``scaled`` with a
Python float, ``matvec`` with a vector per matrix) at small loop lengths, against Numba's own
``target='parallel'`` gufuncs, outputs allocated by each call.
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


def _gufunc_rows(repeats: int, calls: int) -> None:
    import numpy as np

    from kpc.build_file import build

    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "corpus",
                          "gufunc_guvectorize.py")
    report = build(source, target="kokkos", out=tempfile.mkdtemp(prefix="kpc-percall-"))
    kpc_module, numba_module = _load(report.output, "percall_gufunc_kpc"), _load(source, "percall_gufunc_numba")
    rng = np.random.default_rng(0)
    rows = [("scaled", (b, 100), lambda b: (rng.random((b, 100)), 1.5)) for b in (1, 10, 100, 1000)]
    rows += [("matvec", (b, 16, 16), lambda b: (rng.random((b, 16, 16)), rng.random((b, 16)))) for b in (3, 39, 390)]
    for name, shape, make in rows:
        args = make(shape[0])
        functions = {"kpc": getattr(kpc_module, name), "numba": getattr(numba_module, name)}
        np.testing.assert_allclose(functions["kpc"](*args), functions["numba"](*args), rtol=1e-13)
        best = {}
        for _ in range(repeats):
            for who, function in functions.items():
                seconds = timeit.timeit(lambda: function(*args), number=calls) / calls * 1e6
                best[who] = min(best.get(who, seconds), seconds)
        elements = 1
        for extent in shape:
            elements *= extent
        print(f"{name:7} b={shape[0]:<5} ({elements:>7} elements)  kpc best {best['kpc']:8.2f} us  "
              f"numba best {best['numba']:8.2f} us  kpc speed-up {best['numba'] / best['kpc']:.2f}x")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--gufunc", action="store_true", help="the corpus gufuncs at small loop lengths")
    args = parser.parse_args(argv)
    if args.gufunc:
        _gufunc_rows(args.repeats, args.calls)
        return 0

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
