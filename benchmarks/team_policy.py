"""Nested-prange kernels as TeamPolicy regions against the same kernels forced flat, and Numba.

    .venv/bin/python benchmarks/team_policy.py [--threads 2] [--space openmp] [--repeats 7] [--write]
    .venv/bin/python benchmarks/team_policy.py --file team_vector [--space cuda] ...

The kernels of ``tests/corpus/nested_prange.py`` (row-wise softmax, matvec with an inner
prange reduction, row-norm sum, a nested-prange stencil with a per-row coefficient, rows
centred in place) are built twice ahead of time: as kpc chooses (``choose-teams``: Team
regions) and with ``KPC_TEAMS=0`` (flat Range regions, the inner loops serial in each
iteration). Each shape is timed interleaved (teams, flat, Numba, teams, ...) in ``--repeats``
rounds, each round timing up to 10 calls of each one by one (as many as fill about 10 ms);
the table gives best and median milliseconds per call and the ratios of the best. Shapes: few long rows (where
host spaces launch teams), a middle one, many short rows (where a host space launches the
flat region anyway: ``kpc::team_size``; ``--always`` launches teams of every thread there
too). ``--space cuda`` passes CuPy arrays to the kpc
builds when CuPy is importable. ``--write`` saves ``benchmarks/results/team_policy_<space>_<threads>t.json``.

``--file team_vector`` times the three-level kernels of ``tests/corpus/team_vector.py``
(batched matvec, batched row norms, batched softmax, a plane-coefficient 3-D Laplacian: a
team per batch, rows across its threads, columns across each thread's vector lanes) on
shapes ``(batches, rows, columns)``, with a third build, ``novector`` (``KPC_TEAMS=novector``:
the same teams, the column loops serial in each thread); it writes
``team_vector_<space>_<threads>t.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus"
RESULTS = REPO / "benchmarks" / "results"

# kernel -> (signature, arguments from a shape (n, m) and a generator, the argument it writes or None)
KERNELS = {
    "softmax_rows": "softmax_rows(float64[:, ::1])",
    "matvec_nested": "matvec_nested(float64[:, ::1], float64[::1])",
    "row_norm_sum": "row_norm_sum(float64[:, ::1])",
    "scaled_laplacian": "scaled_laplacian(float64[:, ::1], float64[::1], float64[:, ::1])",
    "center_rows": "center_rows(float64[:, ::1])",
}
SHAPES = [(3, 1 << 20), (64, 1 << 15), (4096, 1024)]

VECTOR_KERNELS = {
    "batched_matvec": "batched_matvec(float64[:, :, ::1], float64[:, ::1], float64[::1])",
    "batched_row_norms": "batched_row_norms(float64[:, :, ::1], float64[::1])",
    "batched_softmax": "batched_softmax(float64[:, :, ::1], float64[::1])",
    "plane_laplacian": "plane_laplacian(float64[:, :, ::1], float64[::1], float64[:, :, ::1])",
}
VECTOR_SHAPES = [(4, 512, 4096), (64, 256, 256), (2048, 32, 128)]

# --file: (corpus file, kernels, shapes, builds as (variant, KPC_TEAMS at build time))
SUITES = {
    "nested_prange": ("nested_prange.py", KERNELS, SHAPES, (("teams", None), ("flat", "0"))),
    "team_vector": ("team_vector.py", VECTOR_KERNELS, VECTOR_SHAPES,
                    (("teams", None), ("novector", "novector"), ("flat", "0"))),
}
# Seconds of rest before each variant's calls: the threads of the previous one (Numba's OpenMP
# pool, Kokkos's) stop spinning and leave the cores to the next.
PAUSE = float(os.environ.get("KPC_BENCH_PAUSE", "0.05"))


def _threads_from_argv(argv) -> None:
    """``--threads N`` fixes OMP_NUM_THREADS / NUMBA_NUM_THREADS before Numba or Kokkos start."""
    for k, arg in enumerate(argv):
        value = argv[k + 1] if arg == "--threads" and k + 1 < len(argv) else (
            arg.split("=", 1)[1] if arg.startswith("--threads=") else None)
        if value is not None:
            os.environ["OMP_NUM_THREADS"] = os.environ["NUMBA_NUM_THREADS"] = value


def _arguments(name, shape, rng, np):
    if len(shape) == 3:
        return _batched_arguments(name, shape, rng, np)
    n, m = shape
    x = rng.standard_normal((n, m))
    if name == "matvec_nested":
        return (x, rng.standard_normal(m))
    if name == "scaled_laplacian":
        return (x, rng.standard_normal(n), np.zeros((n, m)))
    return (x,)


def _batched_arguments(name, shape, rng, np):
    b, n, m = shape
    x = rng.standard_normal(shape)
    per_batch = rng.uniform(0.5, 2.0, b)
    if name == "batched_matvec":
        return (x, rng.standard_normal((b, m)), per_batch)
    if name == "plane_laplacian":
        return (x, per_batch, np.zeros(shape))
    return (x, per_batch)


def _times(function, args, number) -> list:
    """Seconds of each of ``number`` calls, timed one by one: a call that a descheduled thread
    stalls (a shared machine) spoils one sample, not a batch."""
    times = []
    for _ in range(number):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return times


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    _threads_from_argv(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None, help="OMP_NUM_THREADS and NUMBA_NUM_THREADS")
    parser.add_argument("--space", choices=("openmp", "serial", "cuda"), default="openmp")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--file", choices=sorted(SUITES), default="nested_prange",
                        help="which corpus file's kernels (team_vector: three levels, with a novector build)")
    parser.add_argument("--write", action="store_true", help="save the results as JSON under benchmarks/results")
    parser.add_argument("--always", action="store_true",
                        help="host spaces: teams of every thread for every shape (KPC_TEAMS=always), not kpc's choice")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    os.environ.setdefault("NUMBA_NUM_THREADS", os.environ["OMP_NUM_THREADS"])

    import numpy as np

    from kpc.api import build
    from kpc.check.runner import import_path

    file_name, kernels, shapes, builds = SUITES[args.file]
    corpus_file = CORPUS / file_name
    folder = Path(tempfile.mkdtemp(prefix="kpc-teams-"))
    source = corpus_file.read_text()
    modules = {}
    started = time.perf_counter()
    for variant, teams in builds:
        path = folder / f"nested_{variant}.py"
        path.write_text(source)
        saved = os.environ.pop("KPC_TEAMS", None)
        if teams is not None:
            os.environ["KPC_TEAMS"] = teams
        try:
            result = build(path, folder / f"out_{variant}", signatures=list(kernels.values()), space=args.space,
                           strict=True)
        finally:
            os.environ.pop("KPC_TEAMS", None)
            if saved is not None:
                os.environ["KPC_TEAMS"] = saved
        modules[variant] = import_path(result.module_path, f"kpc_nested_{variant}")
    modules["numba"] = import_path(corpus_file, f"numba_{corpus_file.stem}")
    if args.always:
        os.environ["KPC_TEAMS"] = "always"  # read by the generated code at its first Team launch
    built = time.perf_counter() - started

    device = None
    if args.space == "cuda":
        try:
            import cupy as device
        except ImportError:
            device = None

    rng = np.random.default_rng(0)
    rows = []
    for name in kernels:
        for shape in shapes:
            host_args = _arguments(name, shape, rng, np)
            calls = {}
            for variant, module in modules.items():
                call_args = host_args
                if device is not None and variant != "numba":
                    call_args = tuple(device.asarray(a) for a in host_args)
                calls[variant] = (getattr(module, name), call_args)
            numbers = {}
            for variant, (function, call_args) in calls.items():
                function(*call_args)  # compile (Numba) / warm up
                once = min(_times(function, call_args, 2))
                numbers[variant] = max(1, min(10, int(0.01 / max(once, 1e-7))))
            samples = {variant: [] for variant in calls}
            for _ in range(args.repeats):
                for variant, (function, call_args) in calls.items():
                    time.sleep(PAUSE)
                    samples[variant] += _times(function, call_args, numbers[variant])
            best = {v: min(s) * 1e3 for v, s in samples.items()}
            median = {v: statistics.median(s) * 1e3 for v, s in samples.items()}
            row = {"kernel": name, "shape": list(shape), "best_ms": best, "median_ms": median}
            row.update({f"{v}_over_teams": best[v] / best["teams"] for v in best if v != "teams"})
            rows.append(row)
            timed = "  ".join(f"{v} {best[v]:9.3f} ms (med {median[v]:9.3f})" for v in best)
            ratios = "  ".join(f"{v}/teams {row[f'{v}_over_teams']:5.2f}x" for v in best if v != "teams")
            print(f"{name:17} {' x '.join(str(d) for d in shape):<16} {timed}  {ratios}", flush=True)

    conditions = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(), "cpus": os.cpu_count(), "threads": int(os.environ["OMP_NUM_THREADS"]),
        "space": args.space, "repeats": args.repeats, "file": file_name, "cupy_arrays": device is not None,
        "always": args.always,
        "commit": subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                 text=True).stdout.strip(),
        "build_seconds": round(built, 1),
    }
    print(f"threads={conditions['threads']} space={args.space} repeats={args.repeats}; best of each; "
          f"flat = the same kernels built with KPC_TEAMS=0 (novector: KPC_TEAMS=novector); builds took {built:.0f} s")
    if args.write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        always = "_always" if args.always else ""
        stem = "team_policy" if args.file == "nested_prange" else args.file
        target = RESULTS / f"{stem}_{args.space}_{conditions['threads']}t{always}.json"
        target.write_text(json.dumps({"conditions": conditions, "rows": rows}, indent=1) + "\n")
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
