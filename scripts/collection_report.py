"""How much of a collection of users' Numba files kpc translates, as a user would run them.

Each file is built with ``kpc build`` (no signatures: kernels are typed at each call), its
drop-in module imported, and every kernel listed in the file's KPC_CASES called on the case
inputs beside the Numba original (``kpc.check``): a kernel *ran as Kokkos* when its calls
compiled and matched; it *fell back* when the build kept it as Numba or a call ran the Numba
function (``KpcFallbackWarning``); a wrong value or an exception Numba did not raise is a
*mismatch*. One subprocess per file, ``--jobs`` at a time, one shared build cache.

    python scripts/collection_report.py examples/collection/*.py --jobs 2 --write examples/collection/REPORT

writes REPORT.md (table, reasons grouped by construct) and REPORT.json.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings


# Results that are rounding noise of a value that is 0 exactly, left by Numba's sequential sums,
# which kpc's parallel reductions (several partial sums) round otherwise: (file, kernel) -> the
# absolute tolerance the check uses for them, and why (measured on the case's own inputs).
REASSOCIATION_NOISE = {
    ("c2_35_bootstrap_jackknife.py", "jackknife_var"): (
        1e-10, "bias = (n - 1) * (loo.mean() - x.mean()) is 0 exactly (loo.mean() equals x.mean()); at "
               "n = 1e6 Numba's sequential sums leave 9.1e-12, pairwise sums -5.4e-14, exact sums (and kpc) 0.0"),
}


def check_one(path: str) -> dict:
    """Build ``path``, call its cases through the drop-in module; a JSON-able summary."""
    from kpc.check.runner import check_file, import_path
    from kpc.check.spec import load_cases
    from kpc.build_file import build

    started = time.perf_counter()
    cases = load_cases(path).cases
    result = {"file": os.path.basename(path), "kernels": {}, "functions": 0, "error": None}
    with tempfile.TemporaryDirectory(prefix="kpc-collection-") as out:
        report = build(path, target="kokkos", out=out, write_report=False)
        result["functions"] = len(report.kernels)
        build_kept = {k.name: f"{k.construct or 'kept'}: {k.reason}" for k in report.kernels if k.status == "numba"}
        result["build"] = collections.Counter(k.status for k in report.kernels)
        result["build_kept"] = build_kept
        if report.error:
            result["error"] = report.error
            return result
        module = import_path(report.output, name=f"kpc_collection_{os.getpid()}_{os.path.basename(path)[:-3]}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            floors = {kernel: atol for (name, kernel), (atol, _) in REASSOCIATION_NOISE.items()
                      if name == os.path.basename(path)}
            checked = check_file(path, module, target="kokkos", atol_floors=floors)
        runtime = getattr(module, "_kpc", None)
        fallbacks = getattr(runtime, "fallbacks", {}) if runtime is not None else {}
    failed = collections.defaultdict(list)
    for failure in checked.failures:
        failed[failure.kernel].append(f"{failure.variant}: {failure.message}"[:300])
    for name in cases:
        called = [record for (function, _), record in fallbacks.items() if function == name]
        if name in failed:
            state, why = "mismatch", failed[name][0]
        elif name in build_kept:
            state, why = "numba (build)", build_kept[name]
        elif called:
            record = called[0]
            state = "numba (call)"
            why = f"{record.get('construct')}: {record.get('message')}"
        else:
            state, why = "kokkos", ""
        result["kernels"][name] = {"state": state, "why": why}
    result["runs"] = checked.runs
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def _run_file(path: str, env: dict) -> dict:
    command = [sys.executable, os.path.abspath(__file__), "--one", path]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=3600)
    if done.returncode != 0 or not done.stdout.strip():
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return {"file": os.path.basename(path), "kernels": {}, "functions": 0,
                "error": f"crashed (exit {done.returncode}): {' / '.join(tail)}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _short(reason: str) -> str:
    """A reason without its place, to group kernels by construct."""
    text = reason.split("\n")[0]
    for marker in (": error: ", "kept as Numba: "):
        if marker in text:
            text = text.split(marker, 1)[1]
    return text[:160]


def markdown(results: list, conditions: dict) -> str:
    lines = ["# Public-style collection: what kpc translates", "",
             f"Conditions: {conditions['when']}, {conditions['machine']}, {conditions['threads']} threads, "
             f"Kokkos target, OpenMP; every file built without signatures (typed at each call), "
             f"its KPC_CASES kernels called through the drop-in module beside Numba. "
             f"Command: `{conditions['command']}`.", "",
             "| file | functions | build t/l/n | cases | ran as Kokkos | fell back (build / call) | mismatch |",
             "|---|---|---|---|---|---|---|"]
    totals = collections.Counter()
    reasons = collections.defaultdict(list)
    full = 0
    for r in results:
        states = collections.Counter(k["state"] for k in r["kernels"].values())
        build = r.get("build", {})
        cell = f"{build.get('translated', 0)}/{build.get('lazy', 0)}/{build.get('numba', 0)}"
        if r.get("error"):
            lines.append(f"| {r['file']} | {r['functions']} | {cell} | - | - | - | error: {r['error'][:80]} |")
            totals["errors"] += 1
            continue
        complete = states["kokkos"] == len(r["kernels"]) and not build.get("numba", 0)
        full += complete
        lines.append(f"| {r['file']} | {r['functions']} | {cell} | {len(r['kernels'])} | {states['kokkos']}"
                     f"{' (all)' if complete else ''} | {states['numba (build)']} / {states['numba (call)']} | "
                     f"{states['mismatch']} |")
        totals.update(states)
        totals["cases"] += len(r["kernels"])
        for name, k in r["kernels"].items():
            if k["state"] != "kokkos":
                reasons[(k["state"], _short(k["why"]))].append(f"{r['file'][:-3]}.{name}")
    lines += ["", f"**{full} of {len(results)} files fully translated** (every function translated and every "
              f"listed kernel ran as Kokkos and matched Numba). Listed kernels: {totals['cases']}; ran as Kokkos "
              f"{totals['kokkos']}, kept as Numba at build {totals['numba (build)']}, fell back at the call "
              f"{totals['numba (call)']}, mismatches {totals['mismatch']}, files that failed to run "
              f"{totals['errors']}.", "", "## Why kernels run as Numba", ""]
    for (state, why), names in sorted(reasons.items(), key=lambda item: (-len(item[1]), item[0])):
        lines.append(f"- {len(names)} × {state}: {why} — {', '.join(names)}")
    checked = {r["file"] for r in results}
    noise = [(name, kernel, atol, why) for (name, kernel), (atol, why) in sorted(REASSOCIATION_NOISE.items())
             if name in checked]
    if noise:
        lines += ["", "## Tolerances the harness widens", ""]
        lines += [f"- {name[:-3]}.{kernel}: atol {atol:g}: {why}" for name, kernel, atol, why in noise]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--write", metavar="STEM", help="write STEM.md and STEM.json")
    parser.add_argument("--one", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(check_one(args.one), default=dict))
        return 0
    env = dict(os.environ)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda p: _run_file(p, env), sorted(args.files)))
    conditions = {"when": time.strftime("%Y-%m-%d"), "machine": f"{platform.machine()} {os.cpu_count()} cores",
                  "threads": os.environ.get("OMP_NUM_THREADS", "default"),
                  "command": f"python scripts/collection_report.py <{len(args.files)} files> --jobs {args.jobs}"}
    text = markdown(results, conditions)
    print(text)
    if args.write:
        with open(args.write + ".md", "w") as handle:
            handle.write(text)
        with open(args.write + ".json", "w") as handle:
            json.dump({"conditions": conditions, "files": results}, handle, indent=1, default=dict)
    return 0


if __name__ == "__main__":
    sys.exit(main())
