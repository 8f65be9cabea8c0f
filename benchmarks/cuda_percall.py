"""What a call of a ``--space cuda`` kernel with CuPy arguments costs, part by part, beside CuPy.

    PYTHONPATH=. python3 benchmarks/cuda_percall.py OUT_DIR

Needs ``KOKKOS_ROOT`` (a CUDA Kokkos), ``KPC_HOST_KOKKOS_ROOT`` and CuPy. Builds the STREAM triad
(tests/corpus/stream_triad.py, ``triad_loop``) with ``--space cuda`` through kpc's cache, then, with
CuPy arrays:

* the parts of one call at 1000 elements (best over rounds of the mean of many calls): the
  device synchronization alone, CuPy's own elementwise triad, the drop-in function, the placed
  function behind it, the device build's entry, the dispatch key, and the CuPy attributes the
  entry reads;
* the triad at 10^3 ... 10^8 elements: the drop-in function and CuPy's elementwise kernel, each
  call waited for, best of interleaved runs, in TB/s (24 bytes per element); and the same
  pipelined, as a time loop calls them: ten calls queued back to back, then one wait (both
  return before the device finishes, so the host's cost per call hides behind the kernels).

Writes ``OUT_DIR/cuda_percall.json`` and ``cuda_percall.md``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("KPC_STRICT", "1")

import numpy as np  # noqa: E402

PIPELINED = 10  # calls queued before one wait, in the pipelined rows
SIGNATURE = "triad_loop(float64[::1], float64[::1], float64[::1], float64)"


def per_call_us(call, sync, calls: int = 400, rounds: int = 9) -> float:
    """Best over ``rounds`` of the mean time of ``calls`` calls (each followed by ``sync``), in µs."""
    for _ in range(20):
        call()
        sync()
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter_ns()
        for _ in range(calls):
            call()
            sync()
        best = min(best, (time.perf_counter_ns() - started) / calls / 1e3)
    return best


def build_triad(folder: Path):
    from kpc.api import build
    from kpc.check.runner import import_path

    result = build(REPO / "tests" / "corpus" / "stream_triad.py", folder, signatures={"triad_loop": [SIGNATURE]},
                   space="cuda", strict=True)
    return import_path(result.module_path)


def parts(module) -> list:
    import cupy

    sync = cupy.cuda.runtime.deviceSynchronize
    n = 1000
    a, b, c = (cupy.asarray(np.random.default_rng(k).random(n)) for k in range(3))
    s = 3.0
    triad = cupy.ElementwiseKernel("T b, T c, T s", "T a", "a = b + s * c", "kpc_percall_triad")
    module.triad_loop(a, b, c, s)
    runtime = module._kpc
    tiers = next(iter(runtime.tiers.values()))
    tiers.wait(900)
    placed = tiers._placed[True]
    key = runtime.key
    nothing = lambda: None  # noqa: E731
    rows = [("device synchronize alone", per_call_us(nothing, sync)),
            ("CuPy ElementwiseKernel triad + sync", per_call_us(lambda: triad(b, c, s, a), sync)),
            ("kpc drop-in triad_loop + sync", per_call_us(lambda: module.triad_loop(a, b, c, s), sync)),
            ("kpc placed function + sync", per_call_us(lambda: placed(a, b, c, s), sync)),
            ("kpc device entry + sync", per_call_us(lambda: tiers.device(a, b, c, s), sync)),
            ("kpc dispatch key of the 4 arguments", per_call_us(lambda: key(a, b, c, s), nothing)),
            ("CuPy a.data.ptr", per_call_us(lambda: a.data.ptr, nothing)),
            ("CuPy a.shape + a.strides + a.dtype", per_call_us(lambda: (a.shape, a.strides, a.dtype), nothing)),
            ("CuPy a.flags.c_contiguous", per_call_us(lambda: a.flags.c_contiguous, nothing)),
            ("CuPy a.nbytes", per_call_us(lambda: a.nbytes, nothing)),
            ("CuPy a.__cuda_array_interface__", per_call_us(lambda: a.__cuda_array_interface__, nothing))]
    for name, us in rows:
        print(f"[percall] {name:45s} {us:8.2f} us", flush=True)
    return [{"part": name, "us": us} for name, us in rows]


def sizes(module) -> list:
    import cupy

    from kpc.bench.timing import interleave

    sync = cupy.cuda.runtime.deviceSynchronize
    triad = cupy.ElementwiseKernel("T b, T c, T s", "T a", "a = b + s * c", "kpc_percall_triad")
    rows = []
    for n in (10**3, 10**4, 10**5, 10**6, 10**7, 10**8):
        a = cupy.zeros(n)
        b = cupy.asarray(np.random.default_rng(1).random(n))
        c = cupy.asarray(np.random.default_rng(2).random(n))
        s = 3.0
        module.triad_loop(a, b, c, s)
        if not bool(cupy.allclose(a, b + s * c)):
            raise AssertionError(f"triad_loop wrong at n={n}")

        def kpc_call():
            module.triad_loop(a, b, c, s)
            sync()

        def cupy_call():
            triad(b, c, s, a)
            sync()

        def kpc_ten():
            for _ in range(PIPELINED):
                module.triad_loop(a, b, c, s)
            sync()

        def cupy_ten():
            for _ in range(PIPELINED):
                triad(b, c, s, a)
            sync()
        for call in (kpc_call, cupy_call, kpc_ten, cupy_ten):
            for _ in range(10):
                call()
        timings = interleave({"kpc": kpc_call, "cupy": cupy_call, "kpc_ten": kpc_ten, "cupy_ten": cupy_ten},
                             repeats=15, budget_s=3.0)
        row = {"n": n, "kpc_s": timings["kpc"].best, "cupy_s": timings["cupy"].best,
               "kpc_median_s": timings["kpc"].median, "cupy_median_s": timings["cupy"].median,
               "kpc_TBps": 24.0 * n / timings["kpc"].best / 1e12, "cupy_TBps": 24.0 * n / timings["cupy"].best / 1e12,
               "kpc_pipelined_s": timings["kpc_ten"].best / PIPELINED,
               "cupy_pipelined_s": timings["cupy_ten"].best / PIPELINED}
        row["kpc_pipelined_TBps"] = 24.0 * n / row["kpc_pipelined_s"] / 1e12
        row["cupy_pipelined_TBps"] = 24.0 * n / row["cupy_pipelined_s"] / 1e12
        print(f"[percall] {json.dumps(row)}", flush=True)
        rows.append(row)
        del a, b, c
    return rows


def main(argv) -> int:
    out = Path(argv[0]) if argv else Path("percall_out")
    out.mkdir(parents=True, exist_ok=True)
    launch = {k: os.environ[k] for k in ("KPC_CUDA_LAUNCH", "KPC_CUDA_WAVES", "KPC_CXXFLAGS") if k in os.environ}
    with tempfile.TemporaryDirectory(prefix="kpc-percall-") as folder:
        module = build_triad(Path(folder))
        report = {"launch": launch, "parts": parts(module), "sizes": sizes(module)}
    tag = "_".join(f"{k}={v}" for k, v in launch.items() if k != "KPC_CXXFLAGS")
    name = f"cuda_percall{'_' + tag if tag else ''}"
    (out / f"{name}.json").write_text(json.dumps(report, indent=1))
    lines = [f"# Per-call costs of a --space cuda triad with CuPy arguments {launch or ''}", "",
             "| part (1000 elements) | µs per call |", "|---|---|"]
    lines += [f"| {row['part']} | {row['us']:.2f} |" for row in report["parts"]]
    lines += ["", "| n | kpc (s) | CuPy (s) | kpc TB/s | CuPy TB/s | kpc / CuPy time | pipelined: kpc TB/s | CuPy TB/s "
              "| kpc / CuPy time |", "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['n']} | {r['kpc_s']:.3g} | {r['cupy_s']:.3g} | {r['kpc_TBps']:.2f} | {r['cupy_TBps']:.2f} | "
              f"{r['kpc_s'] / r['cupy_s']:.2f} | {r['kpc_pipelined_TBps']:.2f} | {r['cupy_pipelined_TBps']:.2f} | "
              f"{r['kpc_pipelined_s'] / r['cupy_pipelined_s']:.2f} |" for r in report["sizes"]]
    (out / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
