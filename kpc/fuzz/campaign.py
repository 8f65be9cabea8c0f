"""A fuzzing campaign: generate modules, build each through kpc once, compare with Numba, tally.

``run_campaign(kernels=2000, seed=1, batch=50, out="fuzz_out")`` writes, under ``out``:
``modules/`` (every generated module), ``build/`` (kpc's drop-in modules), ``repro/`` (one
standalone file per mismatching or crashing kernel, with its ``KPC_CASES`` and the failure in
its docstring: ``kpc check repro/<kernel>.py`` replays it), ``summary.json`` and ``summary.md``
(counts by kernel kind, refusals by reason, failures; both rewritten after every module). Campaigns run
side by side with different seeds and ``out`` folders, sharing one ``KPC_CACHE_DIR``: every
file a campaign writes is under its ``out`` (kernel and module names carry the seed), and
kpc's build cache takes concurrent builders. A module
whose C++ does not compile is bisected down to the kernels that break it; those are crashes,
the rest is rebuilt and checked.

>>> Tally(kernels=3, matched=2, kept={"while": 1}).line()
'3 kernels: 2 matched, 1 kept as Numba (while: 1), 0 mismatches, 0 crashes'
>>> Tally(kernels=2, matched=2, raised={"ZeroDivisionError": 1}).line()
'2 kernels: 2 matched (1 raising as Numba does: ZeroDivisionError: 1), 0 kept as Numba, 0 mismatches, 0 crashes'
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from kpc.fuzz.expressions import FuzzOptions
from kpc.fuzz.module import GeneratedModule, generate_module


@dataclass
class Tally:
    """Counts of a campaign and the failing kernels (``failures``: dicts with kernel, status,
    message, reproducer path); ``raised``: matched kernels that raised on some input, as Numba
    did, by exception type."""

    kernels: int = 0
    matched: int = 0
    raised: dict = field(default_factory=dict)
    kept: dict = field(default_factory=dict)
    mismatches: int = 0
    crashes: int = 0
    invalid: int = 0
    failures: list = field(default_factory=list)
    by_kind: dict = field(default_factory=dict)  # kind -> {"kernels", "matched", "kept", "mismatches", ...}

    def merge(self, other: "Tally") -> None:
        """Add ``other``'s counts (a module's) to these."""
        for name in ("kernels", "matched", "mismatches", "crashes", "invalid"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mine, theirs in ((self.raised, other.raised), (self.kept, other.kept)):
            for key, value in theirs.items():
                mine[key] = mine.get(key, 0) + value
        self.failures += other.failures
        for kind, row in other.by_kind.items():
            for outcome, value in row.items():
                self.by_kind.setdefault(kind, {})[outcome] = self.by_kind.get(kind, {}).get(outcome, 0) + value

    def count(self, kind: str, outcome: str) -> None:
        row = self.by_kind.setdefault(kind, {})
        row[outcome] = row.get(outcome, 0) + 1

    def line(self) -> str:
        kept = sum(self.kept.values())
        reasons = counts(self.kept)
        raised = f" ({sum(self.raised.values())} raising as Numba does: {counts(self.raised)})" if self.raised else ""
        text = (f"{self.kernels} kernels: {self.matched} matched{raised}, {kept} kept as Numba"
                f"{f' ({reasons})' if reasons else ''}, {self.mismatches} mismatches, {self.crashes} crashes")
        if self.invalid:
            text += f"; {self.invalid} not valid under Numba (fuzzer bugs)"
        return text

    def to_dict(self) -> dict:
        return {"kernels": self.kernels, "matched": self.matched, "raised": self.raised, "kept_as_numba": self.kept,
                "mismatches": self.mismatches, "crashes": self.crashes, "invalid": self.invalid,
                "by_kind": self.by_kind, "failures": self.failures}


def counts(by_name: dict) -> str:
    return ", ".join(f"{name}: {count}" for name, count in sorted(by_name.items(), key=lambda kv: -kv[1]))


def run_campaign(kernels: int, seed: int, batch: int, out, options: FuzzOptions = FuzzOptions(),
                 space: str = "openmp", log=print, resume: bool = False) -> Tally:
    """Generate ``kernels`` kernels in modules of ``batch``, check them all; the ``Tally``.

    The C++ build of a module overlaps the Numba comparison of the one before (one compile at
    a time). ``resume``: go on from the modules ``out/summary.json`` counts (same seed, batch,
    constructs and space), as a campaign stopped between modules left it."""
    out = os.path.abspath(os.fspath(out))
    for sub in ("modules", "build", "repro"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    tally, index = Tally(), 0
    if resume and os.path.isfile(os.path.join(out, "summary.json")):
        tally, index = resumed(os.path.join(out, "summary.json"), seed, batch, space, options)
        log(f"resuming after module {index - 1}: {tally.line()}")
    generated = tally.kernels
    pending = None
    with ThreadPoolExecutor(max_workers=1) as pool:
        while generated < kernels or pending is not None:
            ready = None
            if generated < kernels:
                count = min(batch, kernels - generated)
                module = generate_module(seed, index, count, options)
                generated += count
                started, part = time.perf_counter(), Tally()
                plan = build_module(module, out, space, part, log)
                future = pool.submit(run_worker, *plan) if plan else None
                ready = (module, index, started, part, future)
                index += 1
            if pending is not None:
                finish_module(pending, out, tally, log)
                write_summary(out, seed, batch, space, options, tally, done=tally.kernels >= kernels)
            pending = ready
    return tally


def resumed(path: str, seed: int, batch: int, space: str, options: FuzzOptions) -> tuple:
    """``(Tally, next module index)`` from a campaign's ``summary.json``."""
    with open(path, encoding="utf-8") as handle:
        summary = json.load(handle)
    wanted = {"seed": seed, "batch": batch, "space": space, "constructs": options.constructs}
    if any(summary.get(key) != value for key, value in wanted.items()):
        raise ValueError(f"{path} is another campaign's ({ {k: summary.get(k) for k in wanted} }, not {wanted})")
    tally = Tally(kernels=summary["kernels"], matched=summary["matched"], raised=summary["raised"],
                  kept=summary["kept_as_numba"], mismatches=summary["mismatches"], crashes=summary["crashes"],
                  invalid=summary["invalid"], failures=summary["failures"], by_kind=summary["by_kind"])
    return tally, -(-tally.kernels // batch)


def write_summary(out: str, seed: int, batch: int, space: str, options: FuzzOptions, tally: Tally,
                  done: bool) -> None:
    """``summary.json`` and ``summary.md``, rewritten after every module so that a long campaign's
    counts so far can be read."""
    summary = {"seed": seed, "batch": batch, "space": space, "constructs": options.constructs, "complete": done,
               **tally.to_dict()}
    write_atomically(os.path.join(out, "summary.json"), json.dumps(summary, indent=1))
    write_atomically(os.path.join(out, "summary.md"), summary_markdown(summary))


def summary_markdown(summary: dict) -> str:
    """``summary.json``'s counts as a Markdown table by kernel kind (construct), then the kernels kept
    as Numba by reason and the failures: what a campaign's report in benchmarks/results shows.

    >>> print(summary_markdown({"kernels": 2, "matched": 1, "raised": {}, "kept_as_numba": {"r": 1},
    ...     "mismatches": 0, "crashes": 0, "by_kind": {"mask_read": {"kernels": 2, "matched": 1, "kept": 1}},
    ...     "failures": []}).splitlines()[2])
    | mask_read | 2 | 1 | 1 | 0 | 0 |
    """
    lines = ["| kind | kernels | matched | kept as Numba | mismatches | crashes |", "|---|---|---|---|---|---|"]
    for kind, row in sorted(summary["by_kind"].items()):
        lines.append(f"| {kind} | {row.get('kernels', 0)} | {row.get('matched', 0)} | {row.get('kept', 0)} | "
                     f"{row.get('mismatch', 0)} | {row.get('crash', 0)} |")
    lines.append(f"| **all** | {summary['kernels']} | {summary['matched']} | {sum(summary['kept_as_numba'].values())} | "
                 f"{summary['mismatches']} | {summary['crashes']} |")
    if summary.get("raised"):
        lines += ["", f"Matched kernels raising as Numba does, on some input: {counts(summary['raised'])}."]
    lines += ["", "Kept as Numba at build (refused with a listed reason; not counted as matched):", ""]
    for kind, row in sorted(summary["by_kind"].items()):
        for key, count in sorted(row.items()):
            if key.startswith("kept: "):
                lines.append(f"- {kind}: {count} x {key[len('kept: '):]}")
    lines += ["", "Failures:" if summary["failures"] else "Failures: none."]
    for failure in summary["failures"]:
        lines.append(f"- {failure['status']} {failure['kernel']} ({failure['kind']}): {failure['message'].splitlines()[0]}")
    return "\n".join(lines) + "\n"


def write_atomically(path: str, text: str) -> None:
    """Write ``path`` through a temporary file of this process, so a reader (or a campaign started
    by mistake on the same ``--out``) never sees half a file."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)


def build_module(module: GeneratedModule, out: str, space: str, tally: Tally, log):
    """Build ``module``, counting its kernels, those kept as Numba and those whose C++ does not
    compile; ``(source, drop-in module, translated kernels)`` for ``run_worker``, or None."""
    names = [k.name for k in module.kernels]
    tally.kernels += len(names)
    for kernel in module.kernels:
        tally.count(kernel.kind, "kernels")
    report, broken = build_bisecting(module, names, out, space, log)
    for name, message in broken.items():
        record(tally, module, out, name, "crash", f"kpc build failed: {message}")
    if report is None:
        return None
    translated = []
    for kernel in report.kernels:
        if kernel.name not in names or kernel.name in broken:
            continue
        if kernel.status == "numba":
            reason = kept_reason(kernel)
            tally.kept[reason] = tally.kept.get(reason, 0) + 1
            tally.count(module.kernel(kernel.name).kind, "kept")
            tally.count(module.kernel(kernel.name).kind, f"kept: {kept_reason(kernel, detail=True)}")
        else:
            translated.append(kernel.name)
    path = module_path(module, out, [n for n in names if n not in broken])
    return path, report.output, translated


def finish_module(pending: tuple, out: str, tally: Tally, log) -> None:
    """Count the worker's results of a built module (a future, a dict or None) into ``tally``."""
    module, index, started, part, results = pending
    if hasattr(results, "result"):
        results = results.result()
    for name, result in (results or {}).items():
        status = result["status"]
        part.count(module.kernel(name).kind, "matched" if status == "ok" else status)
        if status == "ok":
            part.matched += 1
            for exception in result.get("raised", []):
                part.raised[exception] = part.raised.get(exception, 0) + 1
            continue
        message = f"[{result.get('variant', '')}] {result.get('message', '')}"
        if result.get("python"):
            message += f" (plain Python agrees with: {result['python']})"
        record(part, module, out, name, status, message)
    tally.merge(part)
    log(f"module {index} ({time.perf_counter() - started:.0f} s): {tally.line()}")


def kept_reason(kernel, detail: bool = False) -> str:
    """A short category for a kernel kept as Numba: its construct, else the diagnostic's words
    without the location and the names: ``kpc can return an array only when it is a parameter``;
    ``detail`` keeps the diagnostic's parenthesis (``(np.min of a boolean selection)``)."""
    if kernel.construct and not detail:
        return kernel.construct
    text = re.sub(r"^\S+:\d+:\d+: ", "", (kernel.reason or "unknown").strip().splitlines()[0])
    text = re.sub(r"'[^']*'|`[^`]*`", "...", text).split(";")[0]
    return text[:120] if detail else text.split(" (")[0][:70]


def record(tally: Tally, module: GeneratedModule, out: str, name: str, status: str, message: str) -> None:
    """Count a failing kernel and write its standalone reproducer."""
    if message.startswith("kpc build failed"):
        tally.count(module.kernel(name).kind, status)
    if status == "mismatch":
        tally.mismatches += 1
    elif status == "invalid":
        tally.invalid += 1
    else:
        tally.crashes += 1
    note = f"{status}: {message}\n\nReplay: kpc check {name}.py"
    path = os.path.join(out, "repro", f"{name}.py")
    write_atomically(path, module.source([name], note=note))
    tally.failures.append({"kernel": name, "kind": module.kernel(name).kind, "status": status,
                           "message": message, "reproducer": path})


def module_path(module: GeneratedModule, out: str, names) -> str:
    """Write the module holding ``names``; its path (one file per distinct subset)."""
    suffix = "" if len(names) == len(module.kernels) else f"_{len(names)}of{len(module.kernels)}_{names[0]}"
    path = os.path.join(out, "modules", f"fz{module.seed}_{module.index}{suffix}.py")
    write_atomically(path, module.source(names))
    return path


def build_bisecting(module: GeneratedModule, names: list, out: str, space: str, log) -> tuple:
    """Build the kernels ``names``; when that fails, find the kernels that make it fail by halving.
    Returns ``(report of the build without them or None, {broken kernel: message})``."""
    report, error = build_once(module, names, out, space)
    if error is None:
        return report, {}
    if len(names) == 1:
        return None, {names[0]: error}
    log(f"module {module.index}: build of {len(names)} kernels failed ({error.splitlines()[0][:120]}); bisecting")
    half = len(names) // 2
    broken = {}
    for part in (names[:half], names[half:]):
        _, found = build_bisecting(module, part, out, space, log)
        broken.update(found)
    rest = [n for n in names if n not in broken]
    if not rest:
        return None, broken
    report, error = build_once(module, rest, out, space)
    if error is not None:  # only a combination of kernels fails: blame them all
        return None, {**broken, **{n: error for n in rest}}
    return report, broken


def build_once(module: GeneratedModule, names: list, out: str, space: str) -> tuple:
    """``(BuildReport, None)`` or ``(None, what went wrong)``: a raised exception or a failed compile."""
    from kpc.check.runner import case_signatures
    from kpc.build_file import build

    path = module_path(module, out, names)
    try:
        report = build(path, target="kokkos", out=os.path.join(out, "build"), space=space,
                       signatures=case_signatures(path), write_report=False)
    except Exception as error:  # any exception of the compiler is a finding, reported with the kernel
        return None, f"{type(error).__name__}: {error}"
    if report.error is not None:
        return None, report.error
    return report, None


def run_worker(source: str, dropin: str, kernels: list) -> dict:
    """Check ``kernels`` in child processes; a child that dies is a crash of the kernel it was running."""
    results: dict = {}
    todo = list(kernels)
    while todo:
        started = None
        child = subprocess.run([sys.executable, "-m", "kpc.fuzz.worker", source, dropin, *todo],
                               capture_output=True, text=True)
        for line in child.stdout.splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if event.get("event") == "start":
                started = event["kernel"]
            elif event.get("event") == "result":
                results[event["kernel"]] = event
                started = None
        if started is not None or (child.returncode != 0 and len(results) < len(kernels)):
            victim = started or next(k for k in todo if k not in results)
            tail = "\n".join(child.stderr.strip().splitlines()[-5:])
            results[victim] = {"status": "crash",
                               "message": f"the process died (exit status {child.returncode}): {tail}"}
        todo = [k for k in todo if k not in results]
    return results
