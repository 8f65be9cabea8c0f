"""The Python API of kpc: load a module's kernels as IR (and, from the other layers, build them).

>>> import textwrap, tempfile, os
>>> src = textwrap.dedent('''
...     from numba import njit
...     @njit
...     def add(a, b):
...         return a + b
... ''')
>>> with tempfile.TemporaryDirectory() as d:
...     path = os.path.join(d, "m.py")
...     _ = open(path, "w").write(src)
...     module = load_module(path, signatures=["add(f8, i8)"])
>>> [(p.name, str(p.type)) for p in module.functions["add"].params]
[('a', 'f64'), ('b', 'i64')]
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

from kpc.frontend import parse_module
from kpc.ir.diagnostics import KpcError
from kpc.ir.module import Module
from kpc.ir.nodes import Loc


def load_module(path, signatures=None, strict: bool = False, source: str | None = None) -> Module:
    """Parse the Numba kernels of the Python file ``path`` into an untyped IR ``Module``.

    The file is read, never imported or run. ``signatures`` gives kernels argument
    types (``["name(float64[:, :], int64)"]`` or ``{"name": "f8(f8[:, :], i8)"}``);
    others keep their eager ``@njit("...")`` signature, or stay generic. Kernels kpc
    cannot translate are listed in ``Module.rejected`` with their diagnostic; with
    ``strict=True`` the first one raises ``KpcError`` instead. ``source``: the text, if
    already read. Run ``kpc.passes.manager.run_pipeline`` on the result to type it.
    """
    path = os.fspath(path)
    if source is None:
        try:
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
        except FileNotFoundError:
            raise KpcError.at(Loc(path, 0, 0), f"no such file: {path}", "file") from None
        except IsADirectoryError:
            raise KpcError.at(Loc(path, 0, 0), f"{path} is a directory, not a Python file", "file") from None
        except UnicodeDecodeError as err:
            raise KpcError.at(Loc(path, 0, 0), f"{path} is not UTF-8 text: {err.reason}", "file") from None
    return parse_module(source, path, signatures=signatures, strict=strict)


# --------------------------------------------------------------------------- PyKokkos target


@dataclass
class PyKokkosBuild:
    """What ``build_pykokkos`` wrote: the module text and path, and per jitted function what happened.

    ``kernels``: one ``KernelReport`` per function (``translated`` or kept as ``numba`` with
    the construct and line that stopped it); ``violations``: what the PyKokkos contract
    checker found in the output (empty for every corpus kernel); ``warnings``: pipeline
    warnings (races in ``prange``, ...).
    """

    source: str
    output: str
    kernels: list
    violations: list
    warnings: list

    @property
    def kept_as_numba(self) -> list:
        return [k for k in self.kernels if k.status == "numba"]

    def summary(self) -> str:
        lines = [f"{self.output}: {len(self.kernels) - len(self.kept_as_numba)} translated, "
                 f"{len(self.kept_as_numba)} kept as Numba"]
        lines += [f"  {kernel}" for kernel in self.kernels]
        lines += [f"  contract violation {v}" for v in self.violations]
        return "\n".join(lines)


def build_pykokkos(path, out_dir, signatures=None, space: str | None = None,
                   source: str | None = None, auto_parallel: bool = True) -> PyKokkosBuild:
    """Translate the Numba kernels of ``path`` into a PyKokkos module ``<out_dir>/<stem>.py``.

    ``signatures`` as for ``load_module``; ``space``: ``None`` for PyKokkos's default
    execution space, ``"OpenMP"``, ``"Serial"``, ``"Threads"``, or ``"Cuda"`` (the callers pass
    CuPy arrays; the contract check adds the Cuda rules). Kernels that cannot be
    translated stay Numba (re-exported from ``path``), listed in the returned report. A
    kernel the frontend or the type passes reject keeps the whole module as Numba, with
    that diagnostic as the reason. ``auto_parallel=False``: only ``prange`` loops run in parallel.
    """
    from kpc.backend.pykokkos import check

    path = os.fspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    output = os.path.join(os.fspath(out_dir), f"{stem}.py")
    result, warnings = _emit_pykokkos(path, output, signatures, space, source, auto_parallel)
    _write_text(output, result.source)
    return PyKokkosBuild(result.source, output, result.kernels, check(result.source, space=space), warnings)


def _emit_pykokkos(path, output, signatures, space, source, auto_parallel, only=None):
    """The PyKokkos module of ``path`` as it would be written at ``output`` (the emitter's result)
    and the pipeline's warnings; nothing is written. ``only``: names of the kernels to keep
    (with what they call), as for a specialization."""
    from kpc.backend.pykokkos import emit_module
    from kpc.ir.module import Rejected
    from kpc.passes.manager import PassContext, run_pipeline

    module = load_module(path, signatures=signatures, source=source)
    if only is not None:
        module.keep_only(only)
    ctx = PassContext(target="pykokkos", auto_parallel=auto_parallel)
    try:
        run_pipeline(module, ctx)
    except KpcError as error:
        for name, function in list(module.functions.items()):
            module.rejected[name] = Rejected(name, error.diagnostic, function.loc)
        module.functions.clear()
        module.rebuild_callgraph()
    return emit_module(module, output, space=space, options={"auto_parallel": auto_parallel}), list(ctx.warnings)


def _write_text(output, text: str) -> None:
    """``text`` into ``output`` atomically (a reader never sees half a file)."""
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    temporary = f"{output}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, output)


def build_pykokkos_specialization(source_path, function: str, types: tuple, space: str | None,
                                  options: dict) -> dict:
    """The PyKokkos module of ``source_path`` with ``function`` typed for ``types`` (runtime
    argument types, ``kpc.runtime.dispatch.typeof``): what a PyKokkos module built without
    signatures asks for when it is called with other argument types.

    Upstream PyKokkos compiles workunits from a real file and keys its own cache by the
    file's path, not its text; so the module is written once per content, as
    ``<cache>/pykokkos/<stem>_<sha256 of its text>.py``. Returns ``{"path", "translated",
    "reason"}``: ``translated`` False when kpc keeps ``function`` as Numba for these types.
    """
    import hashlib

    from kpc.runtime.cache_dir import cache_root
    from kpc.runtime.dispatch import format_type

    source_path = os.path.abspath(os.fspath(source_path))
    stem = os.path.splitext(os.path.basename(source_path))[0]
    folder = os.path.join(str(cache_root()), "pykokkos")
    signature = f"{function}({', '.join(format_type(t) for t in types)})"
    result, _ = _emit_pykokkos(source_path, os.path.join(folder, f"{stem}.py"), [signature], space, None,
                               options.get("auto_parallel", True), only=[function])
    digest = hashlib.sha256(result.source.encode()).hexdigest()[:16]
    output = os.path.join(folder, f"{stem}_{digest}.py")
    if not os.path.exists(output):
        _write_text(output, result.source)
    kernel = next(k for k in result.kernels if k.name == function)
    return {"path": output, "translated": kernel.status == "translated",
            "reason": None if kernel.status == "translated" else
            (f"{kernel.construct} ({kernel.reason})" if kernel.reason else kernel.construct)}


def check_pykokkos(path) -> list:
    """Contract violations of the PyKokkos module at ``path`` (what ``--check-pykokkos`` prints)."""
    from kpc.backend.pykokkos import check

    with open(os.fspath(path), encoding="utf-8") as handle:
        return check(handle.read())


# --------------------------------------------------------------------------- Kokkos C++ target

KOKKOS_SPACES = {"openmp": "OpenMP", "serial": "Serial", "cuda": "Cuda"}


@dataclass
class Specialized:
    """One compiled specialization: a function, its argument types (``kpc.runtime.dispatch``
    tuples), the cache entry and the pybind11 symbol; ``built``: compiled now (not a cache hit)."""

    function: str
    types: tuple
    key: str
    symbol: str
    built: bool
    seconds: float


@dataclass
class BuildResult:
    """What ``build`` wrote: the drop-in module, the functions it translated, the functions
    kept as Numba (name -> reason) and the specializations compiled ahead of time. ``deferred``:
    translated functions without a signature that kpc could not type under assumed argument
    types (name -> ``{"reason": what it reported, "assumptions": the guessed parameter types}``);
    the argument types of each call decide (``lazy``)."""

    module_path: str
    functions: list
    rejected: dict
    specializations: list
    space: str
    cache_root: str
    deferred: dict = field(default_factory=dict)

    def report(self) -> str:
        from kpc.runtime.dispatch import format_type

        lines = [f"{self.module_path}: {len(self.functions)} translated to Kokkos C++ ({self.space}), "
                 f"{len(self.rejected)} kept as Numba"]
        for s in self.specializations:
            state = f"built in {s.seconds:.1f} s" if s.built else "cached"
            signature = ", ".join(format_type(t) for t in s.types)
            lines.append(f"  {s.function}({signature})  {state}  [{s.key[:12]}]")
        lazy = [f for f in self.functions if not any(s.function == f for s in self.specializations)]
        if lazy:
            lines.append(f"  compiled on first call: {', '.join(lazy)}")
        for name, reason in self.deferred.items():
            lines.append(f"  typed at each call: {name}: under assumed types: {reason['reason'].splitlines()[0]}")
        for name, reason in self.rejected.items():
            lines.append(f"  kept as Numba: {name}: {reason.splitlines()[0] if reason else ''}")
        return "\n".join(lines)


def build(path, out, signatures=None, space: str = "openmp", strict: bool = False,
          source: str | None = None, auto_parallel: bool = True) -> BuildResult:
    """Translate the Numba kernels of ``path`` to Kokkos C++ and write the drop-in ``<out>/<stem>.py``.

    Functions with eager signatures (``@njit("f8(f8[:])")``) or with ``signatures``
    given here (as for ``load_module``) are compiled now, all of them in one C++
    translation unit, and accept only those signatures (as Numba's eager dispatch
    does); the others compile on the first call for each new argument-type
    signature. Compiled modules live in the build cache (``$KPC_CACHE_DIR``).
    Functions kpc cannot translate stay Numba in the drop-in module (``strict``:
    raise instead). A function without a signature is typed for the arguments of each
    call: when its typing under assumed argument types (float64 for unknown dtypes) fails,
    it is still translated (``BuildResult.deferred``), and a call whose types kpc cannot
    type or compile runs the Numba function with a warning. ``auto_parallel=False``: only ``prange`` loops run in parallel (also for
    the specializations the drop-in module compiles later).
    """
    from kpc.backend.kokkos.dropin import DropinFunction, emit_dropin, python_signature
    from kpc.runtime.cache import BuildCache

    path = os.path.abspath(os.fspath(path))
    check_space(space)
    if source is None:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
    generic = load_module(path, source=source, strict=strict)
    rejected = {name: str(r.diagnostic) for name, r in generic.rejected.items()}
    requested = _signature_requests(signatures, generic)
    deferred = {}
    for name, error in _untranslatable(path, source, generic, auto_parallel, space).items():
        if name in requested and _type_dependent(error):
            continue  # typed for the requested signatures below instead (_failing_requests)
        guesses = [] if name in requested else _guessed_types(path, source, name)
        if guesses and _type_dependent(error):  # typed under guessed argument types: each call decides
            deferred[name] = {"reason": _reason(error), "assumptions": guesses}
        elif strict:
            raise KpcError.at(generic.functions[name].loc, _reason(error), "kokkos backend")
        else:
            rejected[name] = _reason(error)
    translated = [name for name in generic.functions if name not in rejected]

    requests, eager = [], set()
    for name, texts in requested.items():
        if name in rejected:
            continue
        eager.add(name)
        requests += [(name, types) for types in texts]
    if not strict:
        for name, reason in _failing_requests(path, source, requests, auto_parallel, space).items():
            rejected[name] = reason
            translated.remove(name)
        requests = [(name, types) for name, types in requests if name not in rejected]
    specialized = (compile_specializations(path, requests, space, source=source, auto_parallel=auto_parallel)
                   if requests else [])

    functions = []
    for name in translated:
        function = generic.functions[name]
        params = [p.name for p in function.params]
        signature, call_args = python_signature(source, name, params)
        functions.append(DropinFunction(name, tuple(params), signature, call_args, function.docstring,
                                        name in eager))
    stem = os.path.splitext(os.path.basename(path))[0]
    cache_root = str(BuildCache().root)
    text = emit_dropin(
        source_path=path, source_text=source, name=stem, docstring=_module_docstring(source), space=space,
        options={} if auto_parallel else {"auto_parallel": False}, cache_root=cache_root, functions=functions,
        prebuilt=[(s.function, s.types, s.key, s.symbol) for s in specialized], rejected=rejected,
    )
    output = os.path.join(os.fspath(out), f"{stem}.py")
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    temporary = f"{output}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, output)
    return BuildResult(output, translated, rejected, specialized, space, cache_root, deferred)


def compile_specialization(source_path, function: str, types: tuple, space: str, options: dict) -> tuple:
    """Compile one function for one argument-type signature: ``(cache key, symbol)``.

    Called by a drop-in module the first time it sees new argument types.
    """
    result = compile_specializations(source_path, [(function, tuple(types))], space,
                                     auto_parallel=options.get("auto_parallel", True))
    return result[0].key, result[0].symbol


def rebuild_specializations(source_path, requests, space: str, options: dict) -> list:
    """Compile ``requests`` together again (a drop-in module whose ahead-of-time entry is
    missing from the cache, or damaged): ``[(function, types, cache key, symbol)]``.
    With the source unchanged this is the same translation unit, so the same cache entry."""
    result = compile_specializations(source_path, [(f, tuple(t)) for f, t in requests], space,
                                     auto_parallel=options.get("auto_parallel", True))
    return [(s.function, s.types, s.key, s.symbol) for s in result]


def compile_specializations(path, requests, space: str = "openmp", source: str | None = None,
                            auto_parallel: bool = True) -> list:
    """Compile ``requests`` (``(function, argument types)`` pairs) into one translation unit.

    Returns a ``Specialized`` per request, in order. A request the compiler cannot type
    raises ``kpc.runtime.dispatch.SpecializationTypeError``.
    """
    import time

    from kpc import __version__
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
    from kpc.runtime.cache import BuildCache, cache_key
    from kpc.runtime.dispatch import SpecializationTypeError
    from kpc.runtime.toolchain import compile_extension, extension_suffix, toolchain_for

    path = os.path.abspath(os.fspath(path))
    if source is None:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
    install = check_space(space)
    toolchain = toolchain_for(install)

    rounds: list = []
    for function, types in requests:
        for entries in rounds:
            if function not in entries:
                entries[function] = tuple(types)
                break
        else:
            rounds.append({function: tuple(types)})
    pending, rounds, typed = rounds, [], []
    while pending:
        entries = pending.pop(0)
        try:
            typed.append(_typed_specialization(path, source, entries, auto_parallel))
        except SpecializationTypeError:
            if len(entries) == 1:
                raise
            # kernels calling one helper with different argument types (welford(x) and
            # welford(X[:, j])): each is typed in a scope of its own
            pending = [{function: types} for function, types in entries.items()] + pending
            continue
        rounds.append(entries)
    specializations = [Specialization(module, list(entries)) for module, entries in zip(typed, rounds)]
    stem = os.path.splitext(os.path.basename(path))[0]
    unit = emit_translation_unit(specializations, space=space, source=path, generated_name=f"{stem}.kokkos.cpp")

    extra = kokkos_compile_flags(unit)
    material = kokkos_key_material(unit, install, toolchain)
    key = cache_key(material)

    def compile_source(source_path, library, module_name):
        import contextlib
        from concurrent.futures import ThreadPoolExecutor

        flags = extra + [f"-DKPC_MODULE_NAME={module_name}"]
        cuda = unit.space == "cuda"  # a pybind11 module, without the support library
        support = None if cuda else _support_object(toolchain, extra, build=False)
        # The first host module of a toolchain and flag set builds the support library beside it.
        building = not cuda and support is None
        with ThreadPoolExecutor(max_workers=1) if building else contextlib.nullcontext() as pool:
            objects = [support] if support is not None else ()
            if building:
                built = pool.submit(_support_object, toolchain, extra)
                objects = lambda: [built.result()]  # noqa: E731 (called once the module is compiled)
            compile_extension(source_path, library, toolchain, flags,
                              precompiled=_precompiled_header(unit.source, toolchain, extra), objects=objects)

    metadata = {
        "python_source": path,
        "entries": [{"function": e.function, "types": [str(t) for t in e.arg_types], "symbol": e.symbol}
                    for e in unit.entries],
        "space": space,
        "kokkos": material["kokkos"],
        "compiler": material["compiler"],
        "command": material["command"],
        "kpc": __version__,
    }
    started = time.perf_counter()
    entry, built = BuildCache().get_or_build(key, unit.source, compile_source, metadata, extension_suffix())
    seconds = time.perf_counter() - started
    result = []
    for index, entries in enumerate(rounds):
        for function, types in entries.items():
            result.append((function, types, index))
    by_request = {(f, t): Specialized(f, t, entry.key, f"{f}__s{i}", built, seconds) for f, t, i in result}
    return [by_request[(f, tuple(t))] for f, t in requests]


def check_space(space: str):
    """The Kokkos install to build for ``space``, or a clear error when it cannot run there."""
    from kpc.runtime.kokkos import find_kokkos

    backend = KOKKOS_SPACES.get(space)
    if backend is None:
        raise ValueError(f"unknown execution space {space!r}; expected one of {', '.join(KOKKOS_SPACES)}")
    install = find_kokkos()
    if backend not in install.backends:
        raise RuntimeError(f"execution space {space!r} needs a Kokkos built with {backend}; the Kokkos "
                           f"{install.version} at {install.root} has {', '.join(install.backends)}")
    return install


def kokkos_compile_flags(unit) -> list:
    """Flags kpc adds to the toolchain's for a generated module (``module_flags``)."""
    return module_flags(unit.space, unit.fastmath)


def module_flags(space: str, fastmath: bool) -> list:
    """Flags kpc adds to the toolchain's for a module of ``space``: ``-fwrapv`` (int64 overflow
    wraps, as in Numba); ``-ffp-contract=off`` (no fused multiply-adds: Numba's LLVM does not
    contract ``a * b + c`` either, and ``ss / n - mean * mean`` must stay exactly 0 for one value)
    unless every function of the module has ``fastmath=True``, which gets ``-ffast-math`` instead;
    last, the user's ``KPC_CXXFLAGS`` (split like a shell would; part of the cache key)."""
    import shlex

    from kpc.backend.kokkos.emitter import INCLUDE_DIR

    semantics = ["-ffast-math"] if fastmath else ["-ffp-contract=off"]
    if space == "cuda":
        from kpc.runtime.device_arrays import cuda_compile_flags

        semantics += cuda_compile_flags(fastmath)
    return [f"-I{INCLUDE_DIR}", "-fwrapv"] + semantics + shlex.split(os.environ.get("KPC_CXXFLAGS", ""))


def prepare_toolchain(space: str = "openmp", fastmath: bool = False) -> dict:
    """Build now what the first host module of ``space`` would otherwise build beside its own
    compile: kpc's support library and, unless ``KPC_PCH=0``, the precompiled header, for the
    flags of modules without ``fastmath`` (or with it). Both are kept in the cache, once per
    toolchain and flag set; what is there already is reused. Returns ``{"support": Path,
    "pch": Path or None, "seconds": float}``."""
    import time

    from kpc.runtime.pch import disabled_by_environment
    from kpc.runtime.toolchain import toolchain_for

    if space == "cuda":
        raise ValueError("a CUDA module is compiled whole (no support library, no precompiled header): "
                         "nothing to prepare for space 'cuda'")
    started = time.perf_counter()
    toolchain = toolchain_for(check_space(space))
    extra = module_flags(space, fastmath)
    support = _support_object(toolchain, extra)
    pch = None
    if not disabled_by_environment():
        from kpc.runtime.pch import precompiled_header

        eager = dict(os.environ, KPC_PCH="eager")  # build it now, not for the second module
        pch = precompiled_header(toolchain.compiler, toolchain.compiler_id, toolchain.compiler_version,
                                 toolchain.compile_flags() + extra, ["kpc_host.hpp"], environ=eager)
    return {"support": support, "pch": pch.gch if pch is not None else None,
            "seconds": time.perf_counter() - started}


def _support_object(toolchain, extra: list, build: bool = True):
    """kpc's support library (``kpc_support.cpp``) compiled with the module's flags, once per toolchain
    and flag set (``kpc.runtime.support_library``); host-space modules link it (CUDA modules are
    pybind11 modules and do not). With ``build=False``: None unless it is built already."""
    from kpc.backend.kokkos.emitter import SUPPORT_SOURCE
    from kpc.runtime.support_library import support_object

    return support_object(toolchain.compiler, toolchain.compiler_id, toolchain.compiler_version,
                          toolchain.compile_flags() + list(extra), SUPPORT_SOURCE, build=build)


def _precompiled_header(source: str, toolchain, extra: list):
    """The PCH (``kpc.runtime.pch``) of the header ``source`` includes first, built once per
    toolchain and flags; None when nothing precedes that include but comments (a CUDA module
    defines KPC_CUDA first), with ``KPC_PCH=0``, for compilers other than GCC, or when
    building it failed. The umbrella holds only that include, so the module compiled with it
    is the same translation unit (and the same cache key) as without."""
    from kpc.runtime.pch import precompiled_header

    first = _leading_include(source)
    if first is None:
        return None
    return precompiled_header(toolchain.compiler, toolchain.compiler_id, toolchain.compiler_version,
                              toolchain.compile_flags() + list(extra), [first])


def _leading_include(source: str):
    """``kpc_numpy.hpp`` for a source whose first line of code is ``#include "kpc_numpy.hpp"``."""
    import re

    for line in source.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        found = re.fullmatch(r'#\s*include\s+"(kpc_\w+\.hpp)"', stripped)
        return found.group(1) if found else None
    return None


def kokkos_key_material(unit, install, toolchain) -> dict:
    """Everything a compiled module depends on; its hash is the module's cache key: the generated
    source and support headers, the signatures, the execution space, the Kokkos install, the
    compiler and flags, the Python ABI and the kpc version."""
    import sys

    from kpc import __version__
    from kpc.runtime.toolchain import extension_suffix

    return {
        "kind": "kokkos-module",
        "source": unit.source,
        "headers": unit.headers_digest,
        "entries": [[e.symbol, [str(t) for t in e.arg_types]] for e in unit.entries],
        "space": unit.space,
        "kokkos": {"root": str(install.root), "version": install.version, "backends": list(install.backends)},
        "compiler": [toolchain.compiler, toolchain.compiler_id, toolchain.compiler_version],
        "command": toolchain.compile_command("SOURCE", "LIBRARY", kokkos_compile_flags(unit)),
        "python": [sys.version, extension_suffix()],
        "kpc": __version__,
    }


def _typed_specialization(path, source, entries: dict, auto_parallel: bool = True):
    """The module typed for ``entries`` (function -> argument types) after the kokkos pipeline,
    holding only those functions and what they call."""
    from kpc.passes.manager import PassContext, run_pipeline
    from kpc.runtime.dispatch import SpecializationTypeError, format_type

    texts = [f"{name}({', '.join(format_type(t) for t in types)})" for name, types in entries.items()]
    try:
        module = load_module(path, signatures=texts, source=source)
    except KpcError as error:
        raise SpecializationTypeError(_reason(error), error.diagnostic) from None
    _raise_rejected(module, entries)
    module.keep_only(entries)
    try:
        run_pipeline(module, PassContext(target="kokkos", auto_parallel=auto_parallel))
    except KpcError as error:
        raise SpecializationTypeError(_reason(error), error.diagnostic) from None
    _raise_rejected(module, entries)  # a pass may keep a function as Numba (lower-numpy, ...)
    return module


def _raise_rejected(module, names) -> None:
    """``SpecializationTypeError`` with the diagnostic of the first of ``names`` kept as Numba."""
    from kpc.runtime.dispatch import SpecializationTypeError

    for name in names:
        if name in module.rejected:
            diagnostic = module.rejected[name].diagnostic
            raise SpecializationTypeError(str(diagnostic), diagnostic)


def _signature_requests(signatures, generic) -> dict:
    """function -> list of argument-type tuples, from ``signatures`` and eager decorator signatures."""
    from kpc.ir.signature import parse_signature

    requested: dict = {}

    def add(name, text):
        parsed = parse_signature(text)
        requested.setdefault(parsed.name or name, []).append(tuple(_runtime_type(t) for t in parsed.args))

    if isinstance(signatures, dict):
        for name, value in signatures.items():
            for text in ([value] if isinstance(value, str) else value):
                add(name, text)
    elif signatures:
        for text in signatures:
            add(None, text)
    for name, function in generic.functions.items():
        if name not in requested:
            for text in function.signatures:
                add(name, text)
    return requested


def _failing_requests(path, source, requests, auto_parallel: bool = True, space: str = "openmp") -> dict:
    """Requested specializations that cannot be typed or emitted, checked one by one without
    compiling: function -> reason (the function then stays Numba)."""
    from kpc.backend.kokkos.cxx import BackendError
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
    from kpc.runtime.dispatch import SpecializationTypeError, format_type

    reasons = {}
    for name, types in requests:
        if name in reasons:
            continue
        try:
            module = _typed_specialization(path, source, {name: types}, auto_parallel)
            emit_translation_unit([Specialization(module, [name])], space=space)
        except (SpecializationTypeError, BackendError) as error:
            signature = ", ".join(format_type(t) for t in types)
            reasons[name] = f"for ({signature}): {_reason(error)}"
    return reasons


def _runtime_type(t) -> tuple:
    """An IR type as the runtime's argument-type tuple."""
    from kpc.ir.types import runtime_type

    return runtime_type(t)


def _guessed_types(path, source, name: str) -> list:
    """The parameter types of ``name`` that its typing without a signature only guesses."""
    from kpc.passes.infer_types import guessed_types

    module = load_module(path, source=source)
    module.keep_only([name])
    return guessed_types(module, name)


def _type_dependent(error) -> bool:
    """Whether ``error`` may come from guessed argument types: a diagnostic of the passes (the
    Kokkos emitter's refusals and a spent pass budget are not)."""
    diagnostic = getattr(error, "diagnostic", None)
    return isinstance(error, KpcError) and diagnostic is not None and diagnostic.construct != "pass budget"


def _untranslatable(path, source, generic, auto_parallel: bool = True, space: str = "openmp") -> dict:
    """Functions whose generic typing (float64 assumed) the pipeline or the Kokkos emitter
    rejects: name -> the error. Checked without compiling anything."""
    from kpc.backend.kokkos.cxx import BackendError
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
    from kpc.passes.manager import PassContext, run_pipeline

    def check(names) -> None:
        module = load_module(path, source=source)
        module.keep_only(names)
        run_pipeline(module, PassContext(target="kokkos", auto_parallel=auto_parallel))
        for name in names:
            if name in module.rejected:
                raise KpcError(module.rejected[name].diagnostic)
            emit_translation_unit([Specialization(module, [name])], space=space)

    names = list(generic.functions)
    try:
        check(names)
        return {}
    except (KpcError, BackendError):
        pass
    errors = {}
    for name in names:
        try:
            check([name])
        except (KpcError, BackendError) as error:
            errors[name] = error
    return errors


def _reason(error) -> str:
    diagnostic = getattr(error, "diagnostic", None)
    return diagnostic.format() if diagnostic is not None else str(error)


def _module_docstring(source: str) -> str | None:
    import ast

    try:
        return ast.get_docstring(ast.parse(source), clean=False)
    except SyntaxError:
        return None
