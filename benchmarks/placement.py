"""Placement on a GPU build: kernels timed under Numba on every host core, kpc ``--space openmp`` and
kpc ``--space cuda`` (host and device builds, placed per call), with NumPy and with device arrays.

    PYTHONPATH=. python3 benchmarks/placement.py OUT_DIR [--quick] [--collection | --collection2] [--first-call] [--only=LABEL,...] [--budget=S]

Needs ``KOKKOS_ROOT`` (a CUDA Kokkos) and ``KPC_HOST_KOKKOS_ROOT`` (the CPU Kokkos of the host
builds, which the ``--space openmp`` builds use too: the bar is kpc's own host build), CuPy, and
runs with ``KPC_STRICT=1`` (a kernel that does not compile is a failure, not Numba's time).
Each size is checked against Numba first; then the contenders run interleaved after a warm-up of
eight calls (the placed function learns there), best and median of at least seven runs
(``kpc.bench.timing.interleave``). Device-array rows time kpc on CuPy copies of the arguments
(each call waits for the device) beside Numba and the OpenMP build on the NumPy originals, and
for the STREAM triad CuPy's own elementwise kernel. ``--collection``: every KPC_CASES kernel of
examples/collection at its largest case size, NumPy arguments only, 0.6 s of interleaved runs
each (their Numba references compiled beforehand, in parallel with kpc's builds, by processes of
``--warm-numba`` that fill Numba's on-disk cache); ``--collection2`` the same for
examples/collection2. ``--first-call``: a kernel
built without signatures, its first call in a fresh process (host build compiled, toolchain
prepared) and how long the device build takes to take over; then a process that finds both
builds cached.

Writes ``OUT_DIR/placement.json`` (``{"machine": ..., "rows": [{"kernel", "size", "arrays",
"numba_s", "openmp_s", "cuda_s", "placement", ...}]}``, best-of-n seconds of one run),
``placement.md`` and ``placement.png``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus"
sys.path.insert(0, str(REPO))
os.environ.setdefault("KPC_STRICT", "1")
THREADS = os.cpu_count() or 1
os.environ.setdefault("NUMBA_NUM_THREADS", str(THREADS))
os.environ.setdefault("OMP_NUM_THREADS", str(THREADS))
os.environ.setdefault("OMP_PROC_BIND", "false")

import numpy as np  # noqa: E402

ELEMENTS = [10**3, 10**4, 10**5, 10**6, 10**7, 10**8]
SIDES = [32, 100, 316, 1000, 3162, 10000]  # side**2: 10^3 ... 10^8 elements


def _line(counts, **fixed):
    return [dict(n=count, **fixed) for count in counts]


def _square(names, sides, **fixed):
    return [dict({name: side for name in names.split(",")}, **fixed) for side in sides]


# (label, corpus file, kernel, dtype, sizes, size key): the suite, 10^3 ... 10^8 elements
SUITE = [
    ("stream_triad", "stream_triad.py", "triad_loop", "float64", _line(ELEMENTS), "n"),
    ("stream_copy", "stream_triad.py", "stream_copy", "float64", _line(ELEMENTS), "n"),
    ("reduce_sum", "reduce_sum_prod.py", "total", "float64", _line(ELEMENTS), "n"),
    ("reduce_min_max", "reduce_min_max.py", "float_extrema", "float64", _line(ELEMENTS), "n"),
    ("sum2d", "sum2d.py", "sum2d", "float64", _square("m,n", SIDES), "n"),
    ("star", "star.py", "star", "float64", _square("n,m", SIDES), "n"),
    ("stencil2d", "stencil2d_loops.py", "laplacian", "float64", _square("n,m", SIDES), "n"),
    ("matvec", "matvec_loops.py", "matvec", "float64", _square("n,m", SIDES), "n"),
    ("softmax_rows", "np_softmax.py", "softmax_rows", "float64",
     [{"n": n, "m": 100} for n in (10, 100, 1000, 10**4, 10**5, 10**6)], "n"),
    ("star2_10_steps", "star2.py", "star2", "float64", _square("n,m", SIDES[:5], steps=10), "n"),
    ("jacobi_2d_10_steps", "np_jacobi2d.py", "jacobi_2d", "float64", _square("n", SIDES[:5], t=10), "n"),
    ("heat_swap_100_steps", "double_buffer_params.py", "heat_swap", "float64",
     _line(ELEMENTS[:5], steps=100), "n"),
    ("lennard_jones", "lennard_jones.py", "potential", "float64", _line([100, 1000, 3000, 10000, 30000]), "n"),
]


def quick(entries):
    return [(label, f, k, d, sizes[1:3], key) for label, f, k, d, sizes, key in entries]


def machine() -> dict:
    def first(command):
        try:
            return subprocess.run(command, capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
        except Exception:  # noqa: BLE001
            return "unknown"
    import numba

    return {"gpu": first(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"]), "host_threads": THREADS,
            "kokkos_cuda": os.environ.get("KOKKOS_ROOT", ""), "kokkos_host": os.environ.get("KPC_HOST_KOKKOS_ROOT", ""),
            "commit": os.environ.get("KPC_BENCH_COMMIT") or first(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]),
            "numba": numba.__version__,
            "numpy": np.__version__, "date": time.strftime("%Y-%m-%d %H:%M")}


def build_all(jobs: list, space: str, kokkos_root: str, out: Path, strict: bool = True) -> dict:
    """Build each (file, {kernel: [signature]}) for ``space`` against ``kokkos_root``, several at a
    time; file -> the imported drop-in module (or the exception). Not ``strict``: a file whose
    kernels kpc keeps as Numba still builds; the module's ``REJECTED`` says which and why."""
    from kpc.api import build
    from kpc.check.runner import import_path

    os.environ["KOKKOS_ROOT"] = kokkos_root

    def one(job):
        path, signatures = job
        folder = out / f"{space}_{Path(path).stem}"
        started = time.perf_counter()
        try:
            result = build(path, folder, signatures=signatures, space=space, strict=strict)
            print(f"[placement] built {Path(path).name} for {space} in {time.perf_counter() - started:.1f} s",
                  flush=True)
            module = import_path(result.module_path)
            REJECTED[(space, path)] = dict(result.rejected)
            return path, module
        except Exception as error:  # noqa: BLE001 (reported in the table)
            print(f"[placement] FAILED {Path(path).name} for {space}: {error}", flush=True)
            return path, error

    with ThreadPoolExecutor(max_workers=max(8, THREADS)) as pool:
        return dict(pool.map(one, jobs))


REJECTED: dict = {}  # (space, file) -> {kernel: why kpc keeps it as Numba}


def build_both(jobs: list, out: Path, strict: bool = True) -> tuple:
    """``jobs`` built for ``--space openmp`` against the CPU Kokkos and for ``--space cuda``."""
    cuda_root, host_root = os.environ["KOKKOS_ROOT"], os.environ["KPC_HOST_KOKKOS_ROOT"]
    openmp = build_all(jobs, "openmp", host_root, out, strict)
    cuda = build_all(jobs, "cuda", cuda_root, out, strict)
    os.environ["KOKKOS_ROOT"] = cuda_root
    return openmp, cuda


def placed_decision(module, kernel: str, args) -> str:
    """Where the placed function of ``kernel`` runs calls like ``args`` (``kpc_placement.hpp``)."""
    dispatcher = getattr(module, f"_kpc_{kernel}")
    try:
        function = dispatcher.table.get(dispatcher.runtime.key(*args))
    except TypeError:
        function = None
    if function is None or not hasattr(function, "decision"):
        return "unknown"
    nbytes = sum(int(getattr(a, "nbytes", 0)) for a in args if hasattr(a, "nbytes") and not np.isscalar(a))
    return function.decision(nbytes)


def run_rows(label, path, kernel, dtype, size_list, size_key, openmp, cuda, device_arrays: bool) -> list:
    import cupy

    from kpc.bench.timing import interleave
    from kpc.check.compare import compare_outcomes
    from kpc.check.inputs import make_inputs
    from kpc.check.runner import numba_threads
    from kpc.check.spec import load_cases

    case = load_cases(path).cases[kernel]
    reference = numba_reference(path, kernel)
    rows = []
    for sizes in size_list:
        row = {"kernel": label, "size": int(sizes[size_key]), "sizes": dict(sizes), "dtype": dtype}
        try:
            inputs = make_inputs(case, dtype, sizes, "C")
            rtol, atol = case.tolerance(dtype)
            with numba_threads(1 if case.serial_reference else None):
                expected = inputs.call(reference)
            for name, module in (("openmp", openmp), ("cuda", cuda)):
                with np.errstate(all="ignore"):
                    actual = inputs.call(getattr(module, kernel))
                mismatch = compare_outcomes(expected, actual, rtol=rtol, atol=atol, scale=inputs.magnitude())
                if mismatch is not None:
                    raise AssertionError(f"{name} disagrees with Numba: {mismatch}")
            args = inputs.args()
            numba_fn, openmp_fn, cuda_fn = reference, getattr(openmp, kernel), getattr(cuda, kernel)
            contenders = {"numba": lambda: numba_fn(*args), "openmp": lambda: openmp_fn(*args)}
            if device_arrays:
                device_args = tuple(cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
                sync = cupy.cuda.runtime.deviceSynchronize

                def on_device():
                    cuda_fn(*device_args)
                    sync()
                contenders["cuda"] = on_device
                if label == "stream_triad":
                    triad = cupy.ElementwiseKernel("T b, T c, T s", "T a", "a = b + s * c", "kpc_placement_triad")
                    a_, b_, c_, s_ = device_args
                    contenders["cupy"] = lambda: (triad(b_, c_, s_, a_), sync())
            else:
                contenders["cuda"] = lambda: cuda_fn(*args)
            for call in contenders.values():  # warm-up: compiles, first touch, the placement's learning
                for _ in range(8):
                    call()
            heavy = label == "lennard_jones" and sizes[size_key] >= 10000
            timings = interleave(contenders, repeats=7, budget_s=4.0 if heavy else BUDGET_S)
            row.update({"arrays": "device" if device_arrays else "numpy",
                        "numba_s": timings["numba"].best, "openmp_s": timings["openmp"].best,
                        "cuda_s": timings["cuda"].best, "numba_median_s": timings["numba"].median,
                        "openmp_median_s": timings["openmp"].median, "cuda_median_s": timings["cuda"].median,
                        "placement": placed_decision(cuda, kernel, device_args if device_arrays else args)})
            if "cupy" in timings:
                row["cupy_s"] = timings["cupy"].best
        except Exception as error:  # noqa: BLE001 (a failed row is reported, the run goes on)
            row.update({"arrays": "device" if device_arrays else "numpy", "error": str(error).splitlines()[0]})
            traceback.print_exc()
        print(f"[placement] {json.dumps(row)}", flush=True)
        rows.append(row)
        if PROGRESS is not None:  # the report so far, so that a run cut off keeps its rows
            PROGRESS(rows)
    return rows


PROGRESS = None
BUDGET_S = 2.0  # seconds of interleaved runs per row (--collection: less, its rows are many)


def numba_reference(path, kernel: str):
    """The Numba function ``kernel`` of the file ``path``, with Numba's on-disk cache on (under
    kpc's cache root, ``kpc.runtime.cache_dir.numba_cache_aside``), so that the processes of
    ``--warm-numba`` compile the collection's kernels in parallel and this one loads them."""
    from kpc.check.runner import import_path
    from kpc.runtime.cache_dir import numba_cache_aside

    module = import_path(path)
    reference = getattr(module, kernel)
    if type(getattr(reference, "_cache", None)).__name__ == "NullCache":
        try:
            with numba_cache_aside(module.__name__):
                reference.enable_caching()
        except Exception:  # noqa: BLE001 (a kernel Numba cannot cache compiles in the run)
            pass
    return reference


def warm_numba(paths) -> None:
    """Compile (and cache) the Numba reference of every case kernel of ``paths`` at its largest
    case size, as ``collection_rows`` will call it."""
    from kpc.check.inputs import make_inputs
    from kpc.check.spec import load_cases

    for path in paths:
        for kernel, case in load_cases(path).cases.items():
            try:
                inputs = make_inputs(case, case.dtypes[0], case.sizes[-1], "C")
                with np.errstate(all="ignore"):
                    inputs.call(numba_reference(path, kernel))
            except Exception as error:  # noqa: BLE001 (the timing run reports it)
                print(f"[placement] warm-numba {Path(path).name}.{kernel}: {error}", flush=True)


def suite_rows(entries, out: Path) -> list:
    from kpc.check.inputs import make_inputs
    from kpc.check.spec import load_cases
    from kpc.runtime.argument_types import format_type, typeof

    signatures: dict = {}
    for label, file, kernel, dtype, sizes, _ in entries:
        case = load_cases(CORPUS / file).cases[kernel]
        args = make_inputs(case, dtype, sizes[0], "C").args()
        text = f"{kernel}({', '.join(format_type(typeof(a)) for a in args)})"
        signatures.setdefault(str(CORPUS / file), {}).setdefault(kernel, [])
        if text not in signatures[str(CORPUS / file)][kernel]:
            signatures[str(CORPUS / file)][kernel].append(text)
    openmp, cuda = build_both(list(signatures.items()), out)
    rows = []
    for label, file, kernel, dtype, sizes, key in entries:
        path = str(CORPUS / file)
        if isinstance(openmp[path], Exception) or isinstance(cuda[path], Exception):
            rows.append({"kernel": label, "error": f"build failed: {openmp[path] or cuda[path]}"})
            continue
        for device_arrays in (False, True):
            rows += run_rows(label, path, kernel, dtype, sizes, key, openmp[path], cuda[path], device_arrays)
    return rows


def collection_rows(out: Path, folder: str = "collection") -> list:
    from kpc.check.runner import case_signatures
    from kpc.check.spec import load_cases

    files = sorted(str(p) for p in (REPO / "examples" / folder).glob("*.py")
                   if not ONLY or any(prefix.startswith(p.stem) or p.stem.startswith(prefix) for prefix in ONLY))
    jobs = [(path, {kernel: [s for s in case_signatures(path, [kernel])]}) for path in files
            for kernel in load_cases(path).cases]
    by_file: dict = {}
    for path, sigs in jobs:
        by_file.setdefault(path, {}).update(sigs)
    jobs = list(by_file.items())
    global BUDGET_S
    BUDGET_S = BUDGET_OVERRIDE or 0.6
    processes = max(1, THREADS // 4)  # Numba compiles beside kpc's builds, files dealt round
    warmers = [subprocess.Popen([sys.executable, __file__, "--warm-numba", *files[k::processes]])
               for k in range(processes)]
    openmp, cuda = build_both(jobs, out, strict=False)
    for warmer in warmers:
        warmer.wait()
    rows = []
    for path, kernels in jobs:
        for kernel in kernels:
            label = f"{Path(path).stem}.{kernel}"
            if ONLY and not any(label.startswith(prefix) for prefix in ONLY):
                continue
            if isinstance(openmp[path], Exception) or isinstance(cuda[path], Exception):
                rows.append({"kernel": label, "arrays": "numpy",
                             "error": f"build failed: {openmp[path] if isinstance(openmp[path], Exception) else cuda[path]}"})
                continue
            kept = REJECTED.get(("openmp", path), {}).get(kernel) or REJECTED.get(("cuda", path), {}).get(kernel)
            if kept:  # both drop-in modules run Numba's function: nothing of kpc's to time
                rows.append({"kernel": label, "arrays": "numpy", "kept": str(kept).splitlines()[0][:200]})
                print(f"[placement] {json.dumps(rows[-1])}", flush=True)
                continue
            case = load_cases(path).cases[kernel]
            rows += run_rows(label, path, kernel, case.dtypes[0], [case.sizes[-1]],
                             next(iter(case.sizes[-1]), "n"), openmp[path], cuda[path], False)
    return rows


ONLY: list = []  # --only=PREFIX,...: the rows whose label starts so
BUDGET_OVERRIDE = 0.0  # --budget=S: seconds of interleaved runs per row


FIRST_CALL = """
import json, sys, time
started = time.perf_counter()
import numpy as np
import kpc
imports_s = time.perf_counter() - started
rows = []
for folder, stem, kernel in json.loads(sys.argv[1]):
    sys.path.insert(0, folder)
    began = time.perf_counter()
    m = __import__(stem)
    imported = time.perf_counter() - began
    a = np.zeros(1000); b = np.ones(1000)
    getattr(m, kernel)(a, b, 2.0)
    first = time.perf_counter() - began
    tiers = next(iter(m._kpc.tiers.values()))
    waited = time.perf_counter()
    tiers.wait(900)
    device_s = time.perf_counter() - waited
    rows.append({{"module": stem, "import_s": imported, "first_call_s": first, "device_after_s": device_s,
                 "device": tiers.device is not None,
                 "error": repr(tiers.device_error) if tiers.device_error else None}})
print(json.dumps({{"python_imports_s": imports_s, "modules": rows}}))
"""

KERNELS = {"axpy": "    for i in prange(y.shape[0]):\n        y[i] += a * x[i]\n",
           "scale_add": "    for i in prange(y.shape[0]):\n        y[i] = a * y[i] + x[i]\n"}


def first_call_rows(out: Path) -> list:
    """Modules of one kernel built without signatures, called in fresh processes: the first call
    (host build compiled, toolchain prepared) and how long until the device build takes over;
    then a process that finds both builds cached (its first module pays for starting Kokkos and
    the CUDA context), and, in that process once Kokkos runs, a second cached CUDA module: the
    load of a CUDA module by a warm process."""
    from kpc.api import build, prepare_toolchain

    prepare_toolchain("cuda")
    modules = []
    for kernel, body in KERNELS.items():
        stem = f"first_call_{kernel}_{os.getpid()}"
        source = out / f"{stem}.py"
        source.write_text(f"from numba import njit, prange\n\n\n@njit(parallel=True)\ndef {kernel}(y, x, a):\n{body}")
        result = build(source, out / f"{stem}_out", space="cuda")
        modules.append((str(Path(result.module_path).parent), stem, kernel))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("KPC_STRICT", None)  # strict mode waits for the device build
    rows = []
    runs = [("cold (compiles)", modules[:1]), ("cold, second module (compiles)", modules[1:]),
            ("warm (cached)", modules)]
    for run, listed in runs:
        done = subprocess.run([sys.executable, "-c", FIRST_CALL.format(), json.dumps(listed)],
                              capture_output=True, text=True, env=env, timeout=900)
        try:
            report = json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            rows.append({"kernel": "first_call", "run": run,
                         "error": (done.stderr.strip().splitlines() or ["no output"])[-1]})
            continue
        for position, module in enumerate(report["modules"]):
            label = run if position == 0 else "warm process (Kokkos and CUDA running), another cached module"
            row = {"kernel": "first_call", "run": label, "python_imports_s": report["python_imports_s"], **module}
            print(f"[placement] {json.dumps(row)}", flush=True)
            rows.append(row)
    return rows


def write_report(out: Path, info: dict, rows: list) -> None:
    (out / "placement.json").write_text(json.dumps({"machine": info, "rows": rows}, indent=1))
    lines = [f"# Placement on {info['gpu']}: kpc --space cuda beside --space openmp and Numba ({THREADS} host threads)",
             "", f"kpc {info['commit']}, {info['date']}; best of >= 7 interleaved runs after 8 warm-up calls; "
             "cuda/openmp >= 0.9 is the bar for NumPy arguments.", "",
             "| kernel | size | arrays | Numba (s) | openmp (s) | cuda (s) | cuda vs openmp | cuda vs Numba | placement |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        if row["kernel"] == "first_call":
            lines.append(f"| first call, {row['run']} | | | | | import {row.get('import_s', float('nan')):.3f} s, "
                         f"call returns after {row.get('first_call_s', float('nan')):.3f} s | "
                         f"device after {row.get('device_after_s', float('nan')):.3f} s more | | "
                         f"{'device' if row.get('device') else row.get('error')} |")
            continue
        if row.get("kept"):
            lines.append(f"| {row['kernel']} | | numpy | kept as Numba by kpc (both builds): {row['kept'][:100]} "
                         f"| | | | | numba |")
            continue
        if row.get("error"):
            lines.append(f"| {row['kernel']} | {row.get('size', '')} | {row.get('arrays', '')} | error: "
                         f"{row['error'][:120]} | | | | | |")
            continue
        extra = f" (CuPy {row['cupy_s']:.3g} s)" if "cupy_s" in row else ""
        lines.append(f"| {row['kernel']} | {row['size']} | {row['arrays']} | {row['numba_s']:.3g} | "
                     f"{row['openmp_s']:.3g} | {row['cuda_s']:.3g}{extra} | {row['openmp_s'] / row['cuda_s']:.2f}x | "
                     f"{row['numba_s'] / row['cuda_s']:.2f}x | {row['placement']} |")
    good = [r for r in rows if not r.get("error") and not r.get("kept") and r["kernel"] != "first_call"]
    numpy_rows = [r for r in good if r["arrays"] == "numpy"]
    if numpy_rows:
        worst = min(numpy_rows, key=lambda r: r["openmp_s"] / r["cuda_s"])
        lines += ["", f"NumPy arguments: {sum(r['openmp_s'] / r['cuda_s'] >= 0.9 for r in numpy_rows)} of "
                      f"{len(numpy_rows)} rows at >= 0.9x the openmp build; lowest {worst['kernel']} {worst['size']}: "
                      f"{worst['openmp_s'] / worst['cuda_s']:.2f}x."]
    device_rows = [r for r in good if r["arrays"] == "device"]
    largest = {}
    for r in device_rows:
        if r["kernel"] not in largest or r["size"] > largest[r["kernel"]]["size"]:
            largest[r["kernel"]] = r
    if largest:
        speedups = [r["numba_s"] / r["cuda_s"] for r in largest.values()]
        lines.append(f"Device arrays, largest size of each kernel: geometric mean {np.exp(np.mean(np.log(speedups))):.1f}x "
                     f"Numba on {THREADS} threads ({len(speedups)} kernels).")
    failed = [r for r in rows if r.get("error")]
    kept = [r for r in rows if r.get("kept")]
    if kept:
        lines.append(f"Kept as Numba by kpc in both builds (not timed): {len(kept)}.")
    lines.append(f"Failures: {len(failed)}.")
    (out / "placement.md").write_text("\n".join(lines) + "\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(13, 5), sharey=True)
        for ax, arrays in zip(axes, ("numpy", "device")):
            for kernel in sorted({r["kernel"] for r in good if r["arrays"] == arrays}):
                points = sorted((r["size"], r["openmp_s"] / r["cuda_s"]) for r in good
                                if r["kernel"] == kernel and r["arrays"] == arrays)
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=kernel)
            ax.axhline(0.9, color="grey", linestyle="--", linewidth=1)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{arrays} arrays: kpc cuda vs kpc openmp ({info['gpu']})")
            ax.set_xlabel("size")
        axes[0].set_ylabel("speed-up over the --space openmp build")
        axes[1].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out / "placement.png", dpi=110)
    except Exception:  # noqa: BLE001 (no matplotlib: the JSON and the table are the result)
        pass


def main(argv) -> int:
    if argv and argv[0] == "--warm-numba":
        warm_numba(argv[1:])
        return 0
    out = Path(argv[0]) if argv and not argv[0].startswith("--") else Path("placement_out")
    out.mkdir(parents=True, exist_ok=True)
    entries = quick(SUITE) if "--quick" in argv else SUITE
    only = [a.split("=", 1)[1].split(",") for a in argv if a.startswith("--only=")]
    if only:
        entries = [e for e in entries if e[0] in only[0]]
        ONLY.extend(only[0])
    global BUDGET_OVERRIDE
    for a in argv:
        if a.startswith("--budget="):
            BUDGET_OVERRIDE = float(a.split("=", 1)[1])
    info = machine()
    print(f"[placement] {json.dumps(info)}", flush=True)
    done: list = []

    global PROGRESS

    def progress(rows):
        if not done or done[-1] is not rows:
            done.append(rows)
        write_report(out, info, [row for part in done for row in part])
    PROGRESS = progress
    with tempfile.TemporaryDirectory(prefix="kpc-placement-") as folder:
        if "--collection" in argv or "--collection2" in argv:
            rows = collection_rows(Path(folder), "collection2" if "--collection2" in argv else "collection")
        elif "--first-call" in argv:
            rows = first_call_rows(Path(folder))
        else:
            rows = suite_rows(entries, Path(folder))
    write_report(out, info, rows)
    print((out / "placement.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
