"""First-call latency of a one-kernel drop-in module (issue 16 item 4).

The kernel is ``x[i] *= a`` in a ``prange`` loop, with no signature: its first call
types it and compiles one Kokkos module. Every measurement runs in a fresh Python
process with its own fresh ``KPC_CACHE_DIR`` (seeded with the toolchain probe's JSON,
a once-per-Kokkos-install cost that is not measured here):

* ``cold_support_build`` -- ``KPC_PCH=0``, nothing built yet: the first call builds kpc's support
  library (once per toolchain and flags, kpc.runtime.support_library), then the module;
* ``cold_no_pch``   -- ``KPC_PCH=0``, support library built: the module compiles from its headers;
* ``cold_pch_build`` -- PCH on, none built yet: the first call builds the PCH, then the module;
* ``cold_pch``      -- PCH on and already built (copied into the fresh cache): the module only;
* ``warm``          -- a new process, module in the cache: import, load, call.

All but the first start with the support library built (copied into the fresh cache).

Each is reported as the wall time of the first call, and the CPU time (user + system) of
the compiler processes it ran, which is less sensitive to a busy machine. Results are
printed as JSON and, with ``--write``, saved to ``benchmarks/results/first_call.json``
with a line added to ``benchmarks/results/first_call.md``.

    .venv/bin/python benchmarks/first_call.py --repeat 2 --write
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"

KERNEL = '''import numba


@numba.njit(parallel=True)
def scale(x, a):
    for i in numba.prange(x.shape[0]):
        x[i] *= a
'''

CALL = r'''
import json, resource, sys, time
started = time.perf_counter()
sys.path.insert(0, {out!r})
import numpy as np
import kernel_first_call as m
imported = time.perf_counter()
x = np.ones(1000)
m.scale(x, 2.0)
first = time.perf_counter()
m.scale(x, 2.0)
second = time.perf_counter()
assert float(x.sum()) == 4000.0, x[:4]
children = resource.getrusage(resource.RUSAGE_CHILDREN)
own = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"import_s": imported - started, "first_call_s": first - imported,
                  "second_call_s": second - first,
                  "compiler_cpu_s": children.ru_utime + children.ru_stime,
                  "python_cpu_s": own.ru_utime + own.ru_stime}}))
'''


def python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def environment(cache: Path, pch: bool) -> dict:
    env = dict(os.environ, KPC_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    env["KPC_PCH"] = "eager" if pch else "0"  # eager: the first module builds the PCH
    env.setdefault("OMP_NUM_THREADS", "2")
    return env


def run(command, env, timeout=900) -> str:
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout, cwd=str(ROOT))
    if done.returncode != 0:
        raise SystemExit(f"{command[:3]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def seeded_cache(work: Path, name: str, toolchain: Path, with_pch: bool) -> Path:
    """A fresh cache holding the toolchain probe's JSON, the support library when ``toolchain``
    has one, and the built PCH if ``with_pch``."""
    cache = work / name
    target = cache / "toolchain"
    target.mkdir(parents=True)
    for probe in toolchain.glob("*.json"):
        shutil.copy2(probe, target / probe.name)
    if (toolchain / "support").is_dir():
        shutil.copytree(toolchain / "support", target / "support", ignore=shutil.ignore_patterns("locks"))
    if with_pch and (toolchain / "pch").is_dir():
        shutil.copytree(toolchain / "pch", target / "pch", ignore=shutil.ignore_patterns("locks"))
    return cache


def first_call(work: Path, cache: Path, pch: bool) -> dict:
    """Build the drop-in module (no compile: no signature), then time its first call in a new process."""
    out = cache.parent / f"{cache.name}-out"
    env = environment(cache, pch)
    run([python(), "-c", "import sys, kpc.api as a; a.build(sys.argv[1], sys.argv[2])",
         str(work / "kernel_first_call.py"), str(out)], env)
    return json.loads(run([python(), "-c", CALL.format(out=str(out))], env).strip().splitlines()[-1])


def pch_build_seconds(cache: Path) -> float | None:
    for record in (cache / "toolchain" / "pch").glob("*/pch.json"):
        return json.loads(record.read_text()).get("build_seconds")
    return None


def conditions() -> dict:
    import kpc.runtime.kokkos as kokkos

    compiler = subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    cpu = platform.processor()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    install = kokkos.find_kokkos()
    return {"cpus": os.cpu_count(), "cpu": cpu, "compiler": compiler, "kokkos": install.version,
            "python": platform.python_version(), "load_average_before": os.getloadavg(),
            "date": time.strftime("%Y-%m-%d %H:%M")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="measurements of each scenario (default 1)")
    parser.add_argument("--write", action="store_true", help="save to benchmarks/results/first_call.{json,md}")
    parser.add_argument("--note", default="", help="machine conditions to add to the table line")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT))
    facts = conditions()
    scenarios = {"cold_support_build": [], "cold_no_pch": [], "cold_pch_build": [], "cold_pch": [], "warm": []}
    pch_seconds = []
    with tempfile.TemporaryDirectory(prefix="kpc-first-call-") as temporary:
        work = Path(temporary)
        (work / "kernel_first_call.py").write_text(KERNEL)
        # The toolchain probe (CMake, once per Kokkos install) is done here, outside the timings.
        probe = work / "probe"
        run([python(), "-c", "import kpc.runtime.toolchain as t, kpc.runtime.kokkos as k; "
                             "t.toolchain_for(k.find_kokkos())"], environment(probe, False))
        toolchain = probe / "toolchain"
        for index in range(args.repeat):
            cache = seeded_cache(work, f"support{index}", probe / "toolchain", False)
            scenarios["cold_support_build"].append(first_call(work, cache, pch=False))
            toolchain = cache / "toolchain"
            cache = seeded_cache(work, f"nopch{index}", toolchain, False)
            scenarios["cold_no_pch"].append(first_call(work, cache, pch=False))
            cache = seeded_cache(work, f"pchbuild{index}", toolchain, False)
            scenarios["cold_pch_build"].append(first_call(work, cache, pch=True))
            pch_seconds.append(pch_build_seconds(cache))
            built = cache / "toolchain"
            cache = seeded_cache(work, f"pch{index}", built, True)
            scenarios["cold_pch"].append(first_call(work, cache, pch=True))
            scenarios["warm"].append(first_call(work, cache, pch=True))
            shutil.rmtree(work / f"nopch{index}", ignore_errors=True)
            shutil.rmtree(work / f"support{index}", ignore_errors=True)
            print(f"round {index + 1}/{args.repeat} done", file=sys.stderr)
    facts["load_average_after"] = os.getloadavg()

    summary = {}
    for name, runs in scenarios.items():
        if not runs:
            continue
        summary[name] = {
            "first_call_s": round(statistics.median(r["first_call_s"] for r in runs), 4),
            "first_call_best_s": round(min(r["first_call_s"] for r in runs), 4),
            "compiler_cpu_s": round(statistics.median(r["compiler_cpu_s"] for r in runs), 3),
            "import_s": round(statistics.median(r["import_s"] for r in runs), 4),
            "runs": runs,
        }
    summary["pch_build_s"] = [s for s in pch_seconds if s is not None]
    result = {"benchmark": "first_call", "kernel": "x[i] *= a (prange, no signature, float64[::1], 1000 elements)",
              "repeat": args.repeat, "conditions": facts, "results": summary}
    print(json.dumps(result, indent=2))
    if args.write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "first_call.json").write_text(json.dumps(result, indent=2) + "\n")
        table = RESULTS / "first_call.md"
        if not table.exists():
            table.write_text(
                "# First-call latency of a one-kernel module (benchmarks/first_call.py)\n\n"
                "Wall seconds of the first call (median of the runs; compiler CPU seconds in parentheses).\n\n"
                "| date | machine | cold, support library being built | cold, no PCH | PCH build | cold, PCH being built "
                "| cold, PCH built | warm (fresh process) | runs | notes |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n")
        r = summary

        def cell(name):
            return f"{r[name]['first_call_s']:.2f} s ({r[name]['compiler_cpu_s']:.1f} s CPU)"

        machine = (f"{facts['cpus']} CPUs {facts['cpu']}, {facts['compiler']}, Kokkos {facts['kokkos']}, "
                   f"load {facts['load_average_before'][0]:.1f}->{facts['load_average_after'][0]:.1f}")
        pch_build = f"{statistics.median(summary['pch_build_s']):.1f} s" if summary["pch_build_s"] else "-"
        with table.open("a") as stream:
            stream.write(f"| {facts['date']} | {machine} | {cell('cold_support_build')} | {cell('cold_no_pch')} | "
                         f"{pch_build} | "
                         f"{cell('cold_pch_build')} | {cell('cold_pch')} | "
                         f"{r['warm']['first_call_s'] * 1000:.1f} ms | {args.repeat} | {args.note} |\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
