"""Run the benchmark suite (benchmarks/suite.py): Numba vs kpc's Kokkos C++ target.

    .venv/bin/python benchmarks/run.py                 # the whole suite -> benchmarks/results/
    .venv/bin/python benchmarks/run.py --quick         # two small sizes per kernel: does it run?
    .venv/bin/python benchmarks/run.py --only sum2d,lennard_jones

Both sides run on 2 threads, or ``--threads N`` (OMP_NUM_THREADS, NUMBA_NUM_THREADS, set
here before Numba is imported; without --threads, unless already set). Each corpus file is built once, ahead of
time, for the signatures the suite calls; each size is checked against Numba
before it is timed. Writes results.json, results.md and results.png.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

def _threads_from_argv(argv) -> str | None:
    """``--threads N`` (or ``--threads=N``), read before Numba is imported: it fixes its pool then."""
    for k, arg in enumerate(argv):
        if arg == "--threads" and k + 1 < len(argv):
            return argv[k + 1]
        if arg.startswith("--threads="):
            return arg.split("=", 1)[1]
    return None


if _threads_from_argv(sys.argv[1:]) is not None:
    os.environ["OMP_NUM_THREADS"] = os.environ["NUMBA_NUM_THREADS"] = _threads_from_argv(sys.argv[1:])
os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("NUMBA_NUM_THREADS", os.environ["OMP_NUM_THREADS"])

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Time the kpc benchmark suite against Numba.")
    parser.add_argument("--quick", action="store_true", help="two smallest sizes per kernel, 3 repeats")
    parser.add_argument("--suite", choices=("full", "products", "kernel_api", "slow_shapes"), default="full",
                        help="full: the corpus suite; products: matrix products with @ at n = 256...2048; "
                             "kernel_api: @vectorize ufuncs and @stencil kernels (issue 31); "
                             "slow_shapes: issue 32's shapes that were slower than Numba")
    parser.add_argument("--out", default=os.path.join(HERE, "results"), help="output directory")
    parser.add_argument("--only", help="comma-separated kernel labels to run (default: all)")
    parser.add_argument("--repeats", type=int, default=None, help="timed runs per contender (default: 7; 3 quick)")
    parser.add_argument("--budget", type=float, default=None, help="seconds per size (default: 20; 2 quick)")
    parser.add_argument("--space", choices=("openmp", "serial"), default="openmp")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for both sides (OMP_NUM_THREADS and NUMBA_NUM_THREADS; default: 2, "
                             "or what the environment sets)")
    args = parser.parse_args(argv)

    from kpc.bench.report import to_markdown, write
    from kpc.bench.suite import run_entry
    from kpc.check.inputs import make_inputs
    from kpc.check.runner import import_path
    from kpc.check.spec import load_cases
    from kpc.build_file import build
    from kpc.runtime.argument_types import format_type, typeof
    from suite import SUITES, quick

    entries = quick(SUITES[args.suite]) if args.quick else list(SUITES[args.suite])
    if args.only:
        wanted = set(args.only.split(","))
        entries = [e for e in entries if e.name in wanted]
        missing = wanted - {e.name for e in entries}
        if missing:
            parser.error(f"no entries named {', '.join(sorted(missing))}")
    repeats = args.repeats or (3 if args.quick else 7)
    budget = args.budget or (2.0 if args.quick else 20.0)

    signatures: dict = {}
    for entry in entries:
        case = load_cases(entry.path).cases[entry.kernel]
        inputs = make_inputs(case, entry.dtype, entry.sizes[0], "C")
        text = f"{entry.kernel}({', '.join(format_type(typeof(a)) for a in inputs.args())})"
        signatures.setdefault(entry.path, [])
        if text not in signatures[entry.path]:
            signatures[entry.path].append(text)

    build_dir = os.path.join(args.out, "build")
    modules, kept = {}, {}

    def build_one(item):
        path, texts = item
        started = time.perf_counter()
        report = build(path, out=build_dir, space=args.space, signatures=texts)
        print(f"built {os.path.basename(path)} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        return path, report

    # The C++ compiles run at once, one per CPU (kpc build -j does the same); timing starts after.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, min(len(signatures), os.cpu_count() or 1))) as pool:
        for path, report in pool.map(build_one, list(signatures.items())):
            if report.output is None:  # the build failed: say why instead of importing nothing
                raise SystemExit(f"building {path} failed:\n{report.format_table()}")
            kept[path] = {k.name for k in report.kernels if k.status not in ("translated", "lazy")}
            modules[path] = import_path(report.output,
                                        name=f"kpc_bench_{os.path.splitext(os.path.basename(path))[0]}")

    rows, skipped = [], []
    for entry in entries:
        if entry.kernel in kept[entry.path]:
            skipped.append(f"{entry.name}: kept as Numba by the kokkos target")
            print(f"skip {skipped[-1]}", file=sys.stderr)
            continue
        rows += run_entry(entry, {"kokkos": modules[entry.path]}, repeats=repeats, budget_s=budget,
                          log=lambda line: print(line, file=sys.stderr))
    label = "quick" if args.quick else "full"  # the full suite's labels, as before --suite
    meta = {"suite": label if args.suite == "full" else f"{args.suite} ({label})", "space": args.space, "repeats": repeats,
            "numba_threads": os.environ["NUMBA_NUM_THREADS"], "omp_threads": os.environ["OMP_NUM_THREADS"],
            "cpus": os.cpu_count(), "cpu": _cpu_model(), "skipped": skipped}
    paths = write(rows, meta, args.out)
    print(to_markdown(rows), end="")
    print(f"results: {paths['json']}, {paths['md']}, {paths['png']}")
    return 0


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    sys.exit(main())
