"""Run the benchmark suite (benchmarks/suite.py): Numba vs kpc's Kokkos C++ target.

    .venv/bin/python benchmarks/run.py                 # the whole suite -> benchmarks/results/
    .venv/bin/python benchmarks/run.py --quick         # two small sizes per kernel: does it run?
    .venv/bin/python benchmarks/run.py --only sum2d,lennard_jones
    .venv/bin/python benchmarks/run.py --suite collection --only a0,c2_06 --budget 1

``--suite collection`` times every kernel that examples/collection and examples/collection2 list
in KPC_CASES, at its largest case, under ``KPC_STRICT=1``: a file that fails to build, a kernel
kept as Numba, a call that falls back or disagrees is a failure row in the report (with its
reason), not a Numba timing; the rest go on. ``--only`` takes label prefixes there
(``a13_minmax_filter.``, ``c2_``). Results go to benchmarks/results/collection_cpu<threads>/.

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
    parser.add_argument("--suite", choices=("full", "products", "kernel_api", "slow_shapes", "collection"),
                        default="full",
                        help="full: the corpus suite; products: matrix products with @ at n = 256...2048; "
                             "kernel_api: @vectorize ufuncs and @stencil kernels (issue 31); "
                             "slow_shapes: issue 32's shapes that were slower than Numba; "
                             "collection: every KPC_CASES kernel of examples/collection and collection2")
    parser.add_argument("--out", default=None,
                        help="output directory (default: benchmarks/results, or results/collection_cpu<threads>)")
    parser.add_argument("--stem", default="results", help="output file names: STEM.json, STEM.md, STEM.png")
    parser.add_argument("--only", help="comma-separated kernel labels to run (default: all); "
                                       "label prefixes for --suite collection")
    parser.add_argument("--jobs", type=int, default=None, help="files compiled at once (default: one per CPU)")
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
    from suite import SUITES, collection_entries, quick

    collection = args.suite == "collection"
    if collection:
        os.environ["KPC_STRICT"] = "1"  # a call that falls back to Numba raises: a failure, not Numba's time
        entries = collection_entries(args.only.split(",") if args.only else None)
        if not entries:
            parser.error(f"no collection kernel starts with {args.only}")
    else:
        entries = quick(SUITES[args.suite]) if args.quick else list(SUITES[args.suite])
    out = args.out or os.path.join(HERE, "results", f"collection_cpu{os.environ['OMP_NUM_THREADS']}" if collection else "")
    if args.only and not collection:
        wanted = set(args.only.split(","))
        entries = [e for e in entries if e.name in wanted]
        missing = wanted - {e.name for e in entries}
        if missing:
            parser.error(f"no entries named {', '.join(sorted(missing))}")
    commit = _commit()  # before the builds: a commit made while the run goes on is not what it measured
    repeats = args.repeats or (3 if args.quick else 7)
    budget = args.budget or (2.0 if args.quick else 1.0 if collection else 20.0)

    signatures: dict = {}
    failures = []
    for entry in list(entries):
        case = load_cases(entry.path).cases[entry.kernel]
        try:
            inputs = make_inputs(case, entry.dtype, entry.sizes[0], "C")
        except Exception as error:  # noqa: BLE001 (the collection reports it; the suites stop)
            if not collection:
                raise
            failures.append(f"{entry.name}: no inputs: {error}")
            entries.remove(entry)
            continue
        text = f"{entry.kernel}({', '.join(format_type(typeof(a)) for a in inputs.args())})"
        signatures.setdefault(entry.path, [])
        if text not in signatures[entry.path]:
            signatures[entry.path].append(text)

    build_dir = os.path.join(out, "build")
    modules, kept = {}, {}

    def build_one(item):
        path, texts = item
        started = time.perf_counter()
        try:
            report = build(path, out=build_dir, space=args.space, signatures=texts)
        except Exception as error:  # noqa: BLE001 (the collection reports it; the suites stop)
            if not collection:
                raise
            return path, f"{type(error).__name__}: {error}"
        print(f"built {os.path.basename(path)} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        return path, report

    # The C++ compiles run at once, one per CPU (kpc build -j does the same); timing starts after.
    from concurrent.futures import ThreadPoolExecutor

    jobs = args.jobs or max(1, min(len(signatures), os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for path, report in pool.map(build_one, list(signatures.items())):
            if isinstance(report, str) or report.output is None:  # the build failed: say why
                why = report if isinstance(report, str) else report.format_table()
                if not collection:
                    raise SystemExit(f"building {path} failed:\n{why}")
                failures += [f"{e.name}: build failed: {why.splitlines()[0][:300] if why else ''}"
                             for e in entries if e.path == path]
                continue
            kept[path] = {k.name: f"{k.construct or 'kept'}: {k.reason}" for k in report.kernels
                          if k.status not in ("translated", "lazy")}
            modules[path] = import_path(report.output,
                                        name=f"kpc_bench_{os.path.splitext(os.path.basename(path))[0]}")

    rows, skipped = [], []
    for entry in entries:
        if entry.path not in modules:
            continue
        if entry.kernel in kept[entry.path]:
            if collection:
                failures.append(f"{entry.name}: kept as Numba: {kept[entry.path][entry.kernel].splitlines()[0][:300]}")
            else:
                skipped.append(f"{entry.name}: kept as Numba by the kokkos target")
                print(f"skip {skipped[-1]}", file=sys.stderr)
            continue
        try:
            rows += run_entry(entry, {"kokkos": modules[entry.path]}, repeats=repeats, budget_s=budget,
                              log=lambda line: print(line, file=sys.stderr))
        except Exception as error:  # noqa: BLE001 (a fallback under KPC_STRICT, a mismatch, a crash)
            if not collection:
                raise
            failures.append(f"{entry.name}: {type(error).__name__}: {str(error).splitlines()[0][:300] if str(error) else ''}")
            print(f"FAILED {failures[-1]}", file=sys.stderr)
    label = "quick" if args.quick else "full"  # the full suite's labels, as before --suite
    meta = {"suite": label if args.suite == "full" else f"{args.suite} ({label})", "space": args.space, "repeats": repeats,
            "numba_threads": os.environ["NUMBA_NUM_THREADS"], "omp_threads": os.environ["OMP_NUM_THREADS"],
            "cpus": os.cpu_count(), "cpu": _cpu_model(), "commit": commit, "skipped": skipped,
            "budget_s": budget, "command": " ".join(["benchmarks/run.py", *(argv if argv is not None else sys.argv[1:])])}
    notes = ""
    if collection:
        meta.update(strict=True, failures=failures, listed=len(entries))
        notes = collection_summary(rows, meta)
    paths = write(rows, meta, out, stem=args.stem, notes=notes, ranked=collection)
    print(to_markdown(rows) + notes, end="")
    print(f"results: {paths['json']}, {paths['md']}, {paths['png']}")
    return 0


def collection_summary(rows: list, meta: dict) -> str:
    """What the table of ``--suite collection`` adds: the conditions, the kernels below 0.9× and
    the failures under KPC_STRICT=1."""
    slow = sorted((row.speedup("kokkos"), row.speedup("kokkos", "median"), row.kernel) for row in rows)
    lines = ["", f"Conditions: commit {meta['commit']}, {meta['cpu']} ({meta['cpus']} CPUs), "
             f"{meta['omp_threads']} threads both sides, Kokkos {meta['space']}, KPC_STRICT=1, interleaved runs "
             f"after warm-up, up to {meta['repeats']} per contender within {meta['budget_s']:g} s a row. "
             f"Command: `{meta['command']}`.", "",
             f"Listed kernels {meta['listed']}: timed {len(rows)}, failed {len(meta['failures'])}; "
             f"below 0.9× (best-of-n) {sum(1 for s, _, _ in slow if s < 0.9)}, "
             f"below 1.0× {sum(1 for s, _, _ in slow if s < 1.0)}.", "", "## Below 0.9× (best-of-n)", ""]
    lines += [f"- {name}: {best:.2f}× (median {median:.2f}×)" for best, median, name in slow if best < 0.9] or ["- none"]
    lines += ["", "## Failures", ""] + ([f"- {why}" for why in meta["failures"]] or ["- none"])
    return "\n".join(lines) + "\n"


def _commit() -> str:
    import subprocess

    try:
        return subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=30).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


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
