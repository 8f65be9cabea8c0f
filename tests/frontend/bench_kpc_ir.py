"""Benchmark (not a test): time of ``kpc ir`` (parse + infer-types) on a generated module of 200 kernels.

Each of the 200 kernels is a parallel 2-D stencil-like loop nest with branches, a shape
unpacking, a module constant and a call of its own device helper (so the module has 400
functions and 200 call edges), typed in generic mode (no signatures, the slowest path:
it runs the view-rank analysis too).

    python tests/frontend/bench_kpc_ir.py            # in-process best/median of 7, plus the CLI
    python tests/frontend/bench_kpc_ir.py --kernels 20 --repeats 21

Prints the figures as JSON (seconds): ``parse`` (load_module), ``infer_types``,
``total`` = parse + infer-types, CPU and wall, and ``cli`` = wall time of the whole
``python -m kpc.cli ir FILE --after infer-types`` process (interpreter start and imports included).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

KERNEL = '''
@njit
def helper{k}(row, s):
    acc = 0.0
    for d in range(row.shape[0]):
        acc += row[d] * s + N
    return math.sqrt(acc) if acc > 0 else -acc


@njit(parallel=True)
def kernel{k}(a, b, out, alpha):
    n, m = a.shape
    total = 0.0
    for i in prange(n):
        x = helper{k}(a[i], alpha)
        for j in range(1, m - 1):
            v = a[i, j - 1] + 2 * a[i, j] - a[i, j + 1]
            if v > x and j % 2 == 0:
                out[i, j] = v * b[j]
            elif v < -x:
                out[i, j] = -v
            else:
                out[i, j] = 0.5 * (v + x) ** 2
            total += out[i, j]
    return total
'''


def generate(kernels: int) -> str:
    header = "import math\n\nfrom numba import njit, prange\n\nN = 3\n"
    return header + "".join(KERNEL.format(k=k) for k in range(kernels))


def measure(path: str, repeats: int) -> dict:
    from kpc.api import load_module
    from kpc.passes.manager import PassContext, run_pipeline

    samples = {"parse": [], "infer_types": [], "total": [], "total_cpu": []}
    for _ in range(repeats):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        module = load_module(path)
        wall1 = time.perf_counter()
        run_pipeline(module, PassContext(), ["infer-types"])
        wall2, cpu2 = time.perf_counter(), time.process_time()
        samples["parse"].append(wall1 - wall0)
        samples["infer_types"].append(wall2 - wall1)
        samples["total"].append(wall2 - wall0)
        samples["total_cpu"].append(cpu2 - cpu0)
    return {name: {"best": min(v), "median": statistics.median(v)} for name, v in samples.items()}


def measure_cli(path: str, repeats: int) -> dict:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "kpc.cli", "ir", path, "--after", "infer-types"],
                       check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return {"best": min(times), "median": statistics.median(times)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"generated_{args.kernels}.py")
        with open(path, "w") as handle:
            handle.write(generate(args.kernels))
        lines = sum(1 for _ in open(path))
        result = {"kernels": args.kernels, "functions": 2 * args.kernels, "lines": lines,
                  "repeats": args.repeats, "in_process": measure(path, args.repeats),
                  "cli": measure_cli(path, max(3, args.repeats // 2)), "cpus": os.cpu_count()}
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
