"""kpc --space cuda against Numba on the host's CPU cores: Lennard-Jones, STREAM triad,
a 2-D stencil (star) and a reduction, with NumPy arguments (staged to the GPU on every
call) and with CuPy arguments (resident on the GPU, zero copy).

    PYTHONPATH=. python3 scripts/cuda/gpu_bench.py OUT_DIR [--quick]

Writes OUT_DIR/cuda_bench.json, cuda_bench.md and cuda_bench.png (if matplotlib is
installed) and prints the table. Triad bandwidth = 24 * n bytes / time, as a percentage of
the device's peak (H200 4.8 TB/s, H100 3.35 TB/s; name from nvidia-smi).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent.parent
CORPUS = REPO / "tests" / "corpus"
sys.path.insert(0, str(REPO))

from kpc.api import build  # noqa: E402
from kpc.check.inputs import make_inputs  # noqa: E402
from kpc.check.runner import import_path  # noqa: E402
from kpc.check.spec import load_cases  # noqa: E402
from kpc.runtime.argument_types import format_type, typeof  # noqa: E402

PEAK_TBS = {"H200": 4.8, "H100": 3.35}

ENTRIES = [
    # (label, corpus file, kernel, sizes list, bytes per call or None)
    ("lennard_jones", "lennard_jones.py", "potential", [{"n": 10_000}, {"n": 100_000}], None),
    ("stream_triad", "stream_triad.py", "triad_loop", [{"n": 10**6}, {"n": 10**7}, {"n": 10**8}], "24 * n"),
    ("stencil2d_star", "star.py", "star", [{"n": 1000, "m": 1000}, {"n": 8000, "m": 8000}], None),
    ("reduce_sum", "reduce_sum_prod.py", "total", [{"n": 10**6}, {"n": 10**8}], "8 * n"),
]
QUICK = [("lennard_jones", "lennard_jones.py", "potential", [{"n": 2000}], None),
         ("stream_triad", "stream_triad.py", "triad_loop", [{"n": 10**6}], "24 * n")]


def gpu_name() -> str:
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=30).stdout.strip().splitlines()[0]
    except Exception:  # noqa: BLE001
        return "unknown GPU"


def timed(function, args, repeats: int, budget: float) -> dict:
    function(*args)  # warm up (compiles, first touch)
    times = []
    started = time.perf_counter()
    while len(times) < repeats and (len(times) < 3 or time.perf_counter() - started < budget):
        t0 = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - started > budget and len(times) >= 1 and times[0] > budget / 3:
            break
    return {"best_s": min(times), "median_s": float(np.median(times)), "runs": len(times)}


def main(argv) -> int:
    import cupy

    out = Path(argv[1]) if len(argv) > 1 else Path("cuda_bench")
    out.mkdir(parents=True, exist_ok=True)
    entries = QUICK if "--quick" in argv else ENTRIES
    only = [arg.split("=", 1)[1] for arg in argv if arg.startswith("--only=")]
    if only:
        entries = [entry for entry in entries if entry[0] in only]
    name = gpu_name()
    peak = next((value for key, value in PEAK_TBS.items() if key in name), None)
    threads = os.cpu_count()
    rows = []
    for label, file, kernel, sizes_list, bytes_expr in entries:
        path = CORPUS / file
        case = load_cases(path).cases[kernel]
        dtype = case.dtypes[0]
        inputs = [make_inputs(case, dtype, sizes, "C") for sizes in sizes_list]
        signature = f"{kernel}({', '.join(format_type(typeof(a)) for a in inputs[0].args())})"
        with tempfile.TemporaryDirectory() as folder:
            started = time.perf_counter()
            result = build(path, folder, signatures={kernel: [signature]}, space="cuda")
            build_s = time.perf_counter() - started
            print(f"[bench] built {label} for cuda in {build_s:.1f} s; rejected: {sorted(result.rejected)}",
                  flush=True)
            kpc_module = import_path(result.module_path)
            reference = import_path(path)
            for sizes, kernel_inputs in zip(sizes_list, inputs):
                args = kernel_inputs.args()
                device_args = tuple(cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
                numba_fn = getattr(reference, kernel)
                kpc_fn = getattr(kpc_module, kernel)
                heavy = label == "lennard_jones" and sizes["n"] >= 100_000
                row = {"benchmark": label, "kernel": kernel, "sizes": sizes, "dtype": dtype}
                row["numba_cpu"] = timed(numba_fn, args, 3 if heavy else 7, 20.0)
                row["kpc_cuda_numpy"] = timed(kpc_fn, args, 5 if heavy else 10, 10.0)
                row["kpc_cuda_cupy"] = timed(kpc_fn, device_args, 5 if heavy else 20, 10.0)
                expected = numba_fn(*kernel_inputs.args())
                got = kpc_fn(*device_args)
                if expected is not None:
                    got_host = cupy.asnumpy(got) if isinstance(got, cupy.ndarray) else got
                    row["agrees"] = bool(np.allclose(got_host, expected, rtol=1e-6, atol=1e-9))
                for key in ("kpc_cuda_numpy", "kpc_cuda_cupy"):
                    row[f"speedup_{key}"] = row["numba_cpu"]["best_s"] / row[key]["best_s"]
                if label == "stream_triad":
                    # What CuPy's own fused kernel reaches on the same arrays: the achievable bandwidth.
                    triad = cupy.ElementwiseKernel("T b, T c, T s", "T a", "a = b + s * c", "kpc_bench_triad")
                    a_, b_, c_, s_ = device_args
                    row["cupy_elementwise"] = timed(lambda: (triad(b_, c_, s_, a_),
                                                             cupy.cuda.runtime.deviceSynchronize()), (), 20, 5.0)
                if bytes_expr:
                    nbytes = eval(bytes_expr, {}, dict(sizes))  # noqa: S307 (our own table)
                    tbs = nbytes / row["kpc_cuda_cupy"]["best_s"] / 1e12
                    row["kpc_cuda_cupy_TBps"] = tbs
                    row["numba_cpu_TBps"] = nbytes / row["numba_cpu"]["best_s"] / 1e12
                    if "cupy_elementwise" in row:
                        row["cupy_elementwise_TBps"] = nbytes / row["cupy_elementwise"]["best_s"] / 1e12
                    if peak:
                        row["percent_of_peak"] = 100.0 * tbs / peak
                rows.append(row)
                print("[bench]", json.dumps(row), flush=True)
    meta = {"gpu": name, "peak_TBps": peak, "cpu_threads_numba": threads,
            "numba_threads": int(os.environ.get("NUMBA_NUM_THREADS", threads))}
    (out / "cuda_bench.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    lines = [f"# kpc --space cuda vs Numba ({meta['numba_threads']} CPU threads) on {name}", "",
             "| benchmark | sizes | Numba CPU best (s) | kpc-cuda NumPy args (s) | kpc-cuda CuPy args (s) "
             "| speed-up NumPy | speed-up CuPy | TB/s (CuPy) | % of peak | CuPy's own kernel TB/s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        sizes = ",".join(f"{k}={v}" for k, v in row["sizes"].items())
        tbs = row.get("kpc_cuda_cupy_TBps")
        pct = row.get("percent_of_peak")
        own = row.get("cupy_elementwise_TBps")
        lines.append(
            f"| {row['benchmark']} | {sizes} | {row['numba_cpu']['best_s']:.4g} | {row['kpc_cuda_numpy']['best_s']:.4g} "
            f"| {row['kpc_cuda_cupy']['best_s']:.4g} | {row['speedup_kpc_cuda_numpy']:.1f}x "
            f"| {row['speedup_kpc_cuda_cupy']:.1f}x | {'' if tbs is None else f'{tbs:.2f}'} "
            f"| {'' if pct is None else f'{pct:.0f}%'} "
            f"| {'' if own is None else f'{own:.2f}'} |")
    text = "\n".join(lines) + "\n"
    (out / "cuda_bench.md").write_text(text)
    print(text)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        labels = [f"{r['benchmark']}\n{','.join(f'{k}={v}' for k, v in r['sizes'].items())}" for r in rows]
        x = np.arange(len(rows))
        fig, ax = plt.subplots(figsize=(max(8, len(rows) * 1.2), 4.5))
        ax.bar(x - 0.2, [r["speedup_kpc_cuda_numpy"] for r in rows], 0.4, label="NumPy arguments")
        ax.bar(x + 0.2, [r["speedup_kpc_cuda_cupy"] for r in rows], 0.4, label="CuPy arguments")
        ax.set_yscale("log")
        ax.axhline(1.0, color="k", linewidth=0.8)
        ax.set_xticks(x, labels, fontsize=7)
        ax.set_ylabel("speed-up over Numba CPU")
        ax.set_title(f"kpc --space cuda on {name} vs Numba on {meta['numba_threads']} CPU threads")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "cuda_bench.png", dpi=120)
    except ImportError:
        print("[bench] matplotlib not installed: no PNG")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
