"""Build one source file with either target and write its report: ``kpc.build`` and ``kpc build``.

``build(path, target=...)`` runs the target's build through the public API (``kpc.api.build``
for Kokkos C++, ``kpc.api.build_pykokkos`` for PyKokkos; both walk ``kpc.pipeline``), writes
``<out>/<stem>.py`` (imported the same way for both targets) and ``<out>/<stem>.kpc.json``,
and returns a ``kpc.report.BuildReport``: per kernel, translated / kept as Numba / failed, the
dispatch and policy the passes chose (``kpc.pipeline.read_decisions``), reductions, cache hit
or miss, build time.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time

from kpc.ir.diagnostics import KpcError
from kpc.report import BuildReport, KernelReport, parse_reason, summarize

TARGETS = ("kokkos", "pykokkos")
SPACES = ("openmp", "serial", "cuda")
DEFAULT_OUT = "kpc_out"
_PYKOKKOS_SPACES = {"openmp": "OpenMP", "serial": "Serial", "cuda": "Cuda"}


class OutputError(OSError):
    """The output directory cannot be created or written."""


def prepare_output(out) -> str:
    """Create ``out`` if needed and check that files can be written there; its absolute path."""
    out = os.path.abspath(os.fspath(out))
    try:
        os.makedirs(out, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=out, prefix=".kpc-probe-", delete=True)
        probe.close()
    except OSError as error:
        raise OutputError(f"cannot write to output directory {out}: {error.strerror or error}") from None
    return out


def report_path(out, path) -> str:
    stem = os.path.splitext(os.path.basename(os.fspath(path)))[0]
    return os.path.join(os.fspath(out), f"{stem}.kpc.json")


def build(path, target: str = "kokkos", out=DEFAULT_OUT, space: str | None = None, signatures=None,
          strict: bool = False, auto_parallel: bool = True, write_report: bool = True) -> BuildReport:
    """Build ``path`` for ``target`` into ``out``; the ``BuildReport`` (also written as JSON).

    ``space``: the execution space; None means ``openmp`` for the Kokkos target and
    PyKokkos's own default space (chosen when the output runs) for the PyKokkos target.
    ``signatures`` as for ``kpc.api.load_module`` (Kokkos: compiled ahead of time).
    ``strict``: a kernel kpc cannot translate raises ``KpcError`` (Kokkos) or, for
    PyKokkos, makes the build write nothing (not even the report file) and return the
    report with the kernels kept as Numba.
    A diagnostic in the file itself (a syntax error) raises ``KpcError``; an
    unwritable ``out`` raises ``OutputError``.

    >>> import textwrap, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "m.py"), "w").write(textwrap.dedent('''
    ...     from numba import njit
    ...     @njit
    ...     def total(a):
    ...         s = 0.0
    ...         for i in range(a.shape[0]):
    ...             s += a[i]
    ...         return s
    ... '''))
    >>> report = build(os.path.join(d, "m.py"), target="pykokkos", out=os.path.join(d, "out"))
    >>> k = report.kernel("total")
    >>> k.status, k.dispatch, k.reductions
    ('translated', 'parallel_reduce', ['sum:s'])
    >>> sorted(os.listdir(os.path.join(d, "out")))
    ['m.kpc.json', 'm.py']
    """
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; expected one of {', '.join(TARGETS)}")
    if space is None and target == "kokkos":
        space = "openmp"
    if space is not None and space not in SPACES:
        raise ValueError(f"unknown execution space {space!r}; expected one of {', '.join(SPACES)}")
    started = time.perf_counter()
    path = os.fspath(path)
    out = prepare_output(out)
    from kpc.passes.budget import file_budget

    with file_budget():  # every pipeline run over this file draws from one KPC_PASS_BUDGET
        report = _build(path, target, out, space, signatures, strict, auto_parallel)
    report.seconds = time.perf_counter() - started
    if write_report and not (strict and not report.ok(strict=True)):  # --strict failed: write nothing
        report.report_path = report_path(out, path)
        _write_atomically(report.report_path, report.to_json() + "\n")
    return report


def _build(path, target, out, space, signatures, strict, auto_parallel) -> BuildReport:
    from kpc.api import load_module
    from kpc.pipeline import read_decisions, read_source

    load_module(path, signatures=signatures, strict=strict)  # the file's own diagnostics raise here
    source = read_source(path)
    report = BuildReport(os.path.relpath(path) if not os.path.isabs(path) else path, target,
                         space or "pykokkos-default")
    roles, warnings = read_decisions(path, source, target, signatures, auto_parallel)
    report.warnings = warnings
    if target == "kokkos":
        _build_kokkos(report, path, source, out, space, signatures, strict, auto_parallel, roles)
    else:
        _build_pykokkos(report, path, source, out, space, signatures, strict, auto_parallel, roles)
    return report


def _kernel(name, status, roles, reason=None, construct=None) -> KernelReport:
    role, regions = roles.get(name, ("", []))
    kernel = KernelReport(name, status, role=role)
    if status == "translated":
        kernel.dispatch, kernel.policy, kernel.reductions = summarize(role, regions)
        kernel.regions = regions
    else:
        location, parsed_construct, message = parse_reason(reason)
        kernel.location, kernel.reason = location, message
        kernel.construct = construct or parsed_construct
    return kernel


def _build_kokkos(report, path, source, out, space, signatures, strict, auto_parallel, roles) -> None:
    from kpc import api
    from kpc.api import load_module
    from kpc.runtime.argument_types import format_type

    generic = load_module(path, source=source)
    order = [name for name, _ in sorted(list(generic.functions.items()) + list(generic.rejected.items()),
                                        key=lambda item: item[1].loc.line)]
    constructs = {name: r.diagnostic.construct for name, r in generic.rejected.items()}
    try:
        result = api.build(path, out, signatures=signatures, space=space, strict=strict, source=source,
                           auto_parallel=auto_parallel)
    except KpcError:
        raise
    except Exception as error:  # the C++ compiler, the toolchain or Kokkos: the build failed
        report.error = f"{type(error).__name__}: {error}"
        for name in order:
            if name in generic.functions:
                report.kernels.append(_kernel(name, "failed", roles, reason=report.error))
            else:
                report.kernels.append(_kernel(name, "numba", roles, str(generic.rejected[name].diagnostic),
                                              constructs.get(name)))
        return
    report.result = result
    report.output = result.module_path
    fallbacks = runtime_fallbacks(path, source)
    for name in order:
        if name in result.rejected:
            report.kernels.append(_kernel(name, "numba", roles, result.rejected[name], constructs.get(name)))
            continue
        if name in result.deferred:  # its typing under guessed argument types failed
            kernel = _kernel(name, "lazy", {}, reason=result.deferred[name]["reason"])
            kernel.role = roles.get(name, ("entry", []))[0]
            kernel.assumptions = list(result.deferred[name]["assumptions"])
            kernel.cache = "lazy"
            kernel.fallbacks = fallbacks.get(name, [])
            report.kernels.append(kernel)
            continue
        kernel = _kernel(name, "translated", roles)
        kernel.fallbacks = fallbacks.get(name, [])
        compiled = [s for s in result.specializations if s.function == name]
        if compiled:
            kernel.cache = "miss" if any(s.built for s in compiled) else "hit"
            kernel.build_seconds = max(s.seconds for s in compiled)  # a hit: the time to find and verify it
            kernel.signatures = [f"{name}({', '.join(format_type(t) for t in s.types)})" for s in compiled]
        elif kernel.role != "device":
            kernel.cache = "lazy"
        report.kernels.append(kernel)


def runtime_fallbacks(path, source: str) -> dict:
    """Per function, ``name(types): reason`` of each argument-type signature that ran as Numba
    at a call (recorded in the build cache by a drop-in module built from this very source);
    the cache's records are read once per build."""
    import hashlib

    from kpc.runtime.cache import BuildCache
    from kpc.runtime.argument_types import format_type
    from kpc.runtime.dispatch import compiler_digest

    digest = hashlib.sha256(source.encode()).hexdigest()
    found: dict = {}
    for record in BuildCache().fallbacks():
        if (record.get("digest") == digest and record.get("kpc") == compiler_digest()
                and os.path.abspath(str(record.get("source"))) == os.path.abspath(path)):
            name = record.get("function")
            signature = ", ".join(format_type(tuple(t)) for t in record.get("types", []))
            where = f"{record['location']}: " if record.get("location") else ""
            found.setdefault(name, set()).add(
                f"{name}({signature}): {where}{record.get('construct')}: {record.get('message')}")
    return {name: sorted(lines) for name, lines in found.items()}


def _build_pykokkos(report, path, source, out, space, signatures, strict, auto_parallel, roles) -> None:
    from kpc import api
    from kpc.api import load_module
    from kpc.pipeline import _guessed_types

    if space is not None and space not in _PYKOKKOS_SPACES:
        raise ValueError(f"the pykokkos target's space must be one of {', '.join(_PYKOKKOS_SPACES)}, "
                         f"not {space!r}")
    generic = load_module(path, source=source)
    generic_locs = {name: r.diagnostic.loc for name, r in generic.rejected.items()}
    staging = tempfile.mkdtemp(dir=out, prefix=".kpc-build-")
    try:
        result = api.build_pykokkos(path, staging, signatures=signatures, space=_PYKOKKOS_SPACES.get(space),
                                    source=source, auto_parallel=auto_parallel)
        report.result = result
        report.violations = [str(v) for v in result.violations]
        report.warnings = list(dict.fromkeys(report.warnings + [str(w) for w in result.warnings]))
        for k in result.kernels:
            if k.status == "translated":
                kernel = _kernel(k.name, "translated", roles)
                kernel.role = k.role or kernel.role
            elif k.status == "lazy":  # its typing under guessed argument types failed
                kernel = _kernel(k.name, "lazy", {}, reason=k.reason or k.construct)
                kernel.location = kernel.location or _location(None, path, k.line)
                kernel.reason, kernel.role, kernel.cache = k.reason or k.construct, k.role, "lazy"
                kernel.assumptions = _guessed_types(path, source, k.name)
            else:
                kernel = _kernel(k.name, "numba", roles, k.reason or k.construct)
                kernel.location = kernel.location or _location(generic_locs.get(k.name), path, k.line)
                kernel.construct = kernel.construct or k.construct
            report.kernels.append(kernel)
        if strict and not report.ok(strict=True):
            return
        final = os.path.join(out, os.path.basename(result.output))
        os.replace(result.output, final)
        report.output = final
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _location(loc, path, line) -> str | None:
    """``file:line:col`` of the frontend's diagnostic, else ``file:line`` of the backend's report."""
    if loc is not None and loc.line > 0:
        return str(loc)
    return f"{path}:{line}" if line else None


def _write_atomically(path: str, text: str) -> None:
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)
