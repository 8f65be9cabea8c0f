"""Per-call cost of a drop-in function against Numba's dispatcher, in one process.

    .venv/bin/python benchmarks/percall.py [--repeats 9] [--calls 20000] [--gufunc | --ufunc]

A 3-argument loop-free kernel (``y[0] = a * x[0] + y[0]``) is built with kpc (lazy, compiled
on the first call) and called beside the same Numba function, interleaved, after warm-up;
prints best and median microseconds per call of each and their difference. ``--gufunc``: the
same for the ``@guvectorize`` gufuncs of tests/corpus/gufunc_guvectorize.py (``scaled`` with a
Python float, ``matvec`` with a vector per matrix) at small loop lengths, against Numba's own
``target='parallel'`` gufuncs, outputs allocated by each call. ``--ufunc``: the same for the
``@vectorize`` ufuncs of tests/corpus/ufunc_vectorize.py (``smooth_step``, ``target='cpu'``, of a
matrix and two Python floats; ``rel_diff``, ``target='parallel'``, of two vectors; ``reduce`` and
``accumulate`` of ``rel_diff_cpu`` along axis 0); each row twice, by wall clock and by the calling
thread's CPU time (see ``_batch``).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import itertools
import os
import statistics
import sys
import tempfile
import time
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


def _corpus_rows(corpus: str, rows: list, repeats: int, calls: int) -> None:
    """Time each ``(name, shape, make)`` of ``rows`` (``make(shape)``: the arguments) in the corpus
    file ``corpus`` built with kpc against the file's own Numba object, interleaved."""
    import numpy as np

    from kpc.build_file import build

    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "corpus", corpus)
    report = build(source, target="kokkos", out=tempfile.mkdtemp(prefix="kpc-percall-"))
    stem = os.path.splitext(corpus)[0]
    kpc_module, numba_module = _load(report.output, f"percall_{stem}_kpc"), _load(source, f"percall_{stem}_numba")
    for name, shape, make in rows:
        args = make(shape)
        functions = {who: functools.reduce(getattr, name.split("."), module)  # "f.reduce": a method
                     for who, module in (("kpc", kpc_module), ("numba", numba_module))}
        np.testing.assert_allclose(functions["kpc"](*args), functions["numba"](*args), rtol=1e-13)
        wall, cpu = {"kpc": [], "numba": []}, {"kpc": [], "numba": []}
        for _ in range(repeats):
            for who, function in functions.items():
                seconds, thread_seconds = _batch(function, args, calls)
                wall[who].append(seconds / calls * 1e6)
                cpu[who].append(thread_seconds / calls * 1e6)
        elements = 1
        for extent in shape:
            elements *= extent
        for clock, samples in (("wall", wall), ("cpu", cpu)):
            best = {who: min(values) for who, values in samples.items()}
            median = {who: statistics.median(values) for who, values in samples.items()}
            print(f"{name:11} {'x'.join(map(str, shape)):>9} ({elements:>7} elements) {clock:4}  kpc best "
                  f"{best['kpc']:8.2f} us median {median['kpc']:8.2f} us  numba best {best['numba']:8.2f} us "
                  f"median {median['numba']:8.2f} us  kpc speed-up {best['numba'] / best['kpc']:.2f}x "
                  f"(median {median['numba'] / median['kpc']:.2f}x)")


def _batch(function, args, calls: int) -> tuple:
    """Seconds of wall clock and of the calling thread's CPU time that ``calls`` calls of
    ``function(*args)`` take. The thread's CPU time leaves out the time other processes hold the
    core (steadier on a loaded machine) but also what other threads compute for the call: it is
    the whole call for a serial kernel, the calling thread's share for a parallel one."""
    wall, cpu = time.perf_counter(), time.thread_time()
    for _ in itertools.repeat(None, calls):
        function(*args)
    return time.perf_counter() - wall, time.thread_time() - cpu


def _gufunc_rows(repeats: int, calls: int) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    rows = [("scaled", (b, 100), lambda shape: (rng.random(shape), 1.5)) for b in (1, 10, 100, 1000)]
    rows += [("matvec", (b, 16, 16), lambda shape: (rng.random(shape), rng.random(shape[:2])))
             for b in (3, 39, 390)]
    _corpus_rows("gufunc_guvectorize.py", rows, repeats, calls)


def _ufunc_rows(repeats: int, calls: int) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    rows = [("smooth_step", (side, side), lambda shape: (rng.uniform(-1, 1, shape), -0.5, 0.5))
            for side in (10, 32, 100, 316)]
    rows += [("rel_diff", (n,), lambda shape: (rng.uniform(1, 2, shape), rng.uniform(1, 2, shape)))
             for n in (100, 1000, 10000)]
    # reduce and accumulate of the target='cpu' ufunc (Numba's target='parallel' folds race)
    rows += [(f"rel_diff_cpu.{method}", shape, lambda shape: (rng.uniform(1, 2, shape), 0))
             for method in ("reduce", "accumulate") for shape in ((100,), (10**5,), (316, 316))]
    _corpus_rows("ufunc_vectorize.py", rows, repeats, calls)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--gufunc", action="store_true", help="the corpus gufuncs at small loop lengths")
    parser.add_argument("--ufunc", action="store_true", help="the corpus ufuncs at small sizes")
    args = parser.parse_args(argv)
    if args.gufunc or args.ufunc:
        (_gufunc_rows if args.gufunc else _ufunc_rows)(args.repeats, args.calls)
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
