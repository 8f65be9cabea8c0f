"""The compiler pipeline: a Python file's Numba kernels to a drop-in module, one named step after another.

    source ──load_module──▶ IR module ──specialize──▶ typed specializations, holding the
    decisions of the target's passes ──emit_unit──▶ emitted units (a C++ translation unit;
    emit_pykokkos: a PyKokkos module's text) ──compile_unit──▶ compiled objects (a build
    cache entry)

``build_kokkos`` (``kpc.api.build``, ``kpc build``) walks it once, top to bottom as written
here: ``load_module``; ``plan_kokkos_build`` (which functions are translated, typed at each
call or kept as Numba, checked without compiling); ``compile_specializations`` (the
functions with signatures: ``specialize``, ``emit_unit``, ``compile_unit``);
``emit_dropin_module``. ``build_pykokkos`` is the PyKokkos target's walk. A drop-in module
calls back into ``compile_specializations`` and ``build_pykokkos_specialization`` for the
argument types of a new call (through ``kpc.compiler()``, the façade ``kpc.api``).
Each step takes and returns IR or plain data; ``kpc.compile_setup`` holds what compiling a
unit needs besides its text (install, flags, cache key, shared objects).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "m.py")
>>> _ = open(path, "w").write("from numba import njit\\n\\n@njit\\ndef add(a, b):\\n    return a + b\\n")
>>> source = read_source(path)
>>> list(load_module(path, source=source).functions)
['add']
>>> f8 = ("scalar", "float64")
>>> typed = specialize(path, source, [("add", (f8, f8))])
>>> [str(p.type) for p in typed.typed[0].module.functions["add"].params], typed.symbol("add", (f8, f8))
(['f64', 'f64'], 'add__s0')
>>> unit = emit_unit(typed.typed, "openmp", path)
>>> [(e.symbol, unit.space) for e in unit.entries]
[('add__s0', 'openmp')]
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

from kpc.frontend import parse_module
from kpc.ir import python_source
from kpc.ir.diagnostics import KpcError
from kpc.ir.module import Module
from kpc.ir.nodes import Loc

# --------------------------------------------------------------------------- the Kokkos C++ build


def build_kokkos(path, out, signatures=None, space: str = "openmp", strict: bool = False,
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
    type or compile runs the Numba function with a warning. ``auto_parallel=False``: only
    ``prange`` loops run in parallel (also for the specializations the drop-in module compiles
    later).
    """
    from kpc.compile_setup import check_space
    from kpc.runtime.cache import BuildCache

    path = os.path.abspath(os.fspath(path))
    check_space(space)
    if source is None:
        source = read_source(path)
    generic = load_module(path, source=source, strict=strict)
    plan = plan_kokkos_build(path, source, generic, signatures, space, strict, auto_parallel)
    specialized = (compile_specializations(path, plan.requests, space, source=source, auto_parallel=auto_parallel)
                   if plan.requests else [])
    cache_root = str(BuildCache().root)
    text = emit_dropin_module(path, source, generic, plan, specialized, space, auto_parallel, cache_root)
    output = os.path.join(os.fspath(out), f"{_stem(path)}.py")
    write_text(output, text)
    return BuildResult(output, plan.translated, plan.rejected, specialized, space, cache_root, plan.deferred)


@dataclass
class Specialized:
    """One compiled specialization: a function, its argument types (``kpc.runtime.dispatch``
    tuples), the cache entry and the pybind11 symbol; ``built``: compiled now (not a cache hit)."""

    function: str
    types: tuple
    key: str | None
    symbol: str | None
    built: bool
    seconds: float
    # --space cuda: the device build's entry (None: the function runs on the host build only)
    # and where calls run (choose-placement's reason, or why one build is missing)
    device_key: str | None = None
    device_symbol: str | None = None
    placement: str = ""


@dataclass
class BuildResult:
    """What ``build_kokkos`` wrote: the drop-in module, the functions it translated, the functions
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
        from kpc.runtime.argument_types import format_type

        lines = [f"{self.module_path}: {len(self.functions)} translated to Kokkos C++ ({self.space}), "
                 f"{len(self.rejected)} kept as Numba"]
        for s in self.specializations:
            state = f"built in {s.seconds:.1f} s" if s.built else "cached"
            signature = ", ".join(format_type(t) for t in s.types)
            keys = " ".join(f"[{tier}{key[:12]}]" for tier, key in
                            ((("host " if s.device_key or self.space == "cuda" else ""), s.key),
                             ("device ", s.device_key)) if key)
            lines.append(f"  {s.function}({signature})  {state}  {keys}")
            if s.placement:
                lines.append(f"    placement: {s.placement}")
        lazy = [f for f in self.functions if not any(s.function == f for s in self.specializations)]
        if lazy:
            lines.append(f"  compiled on first call: {', '.join(lazy)}")
        for name, reason in self.deferred.items():
            lines.append(f"  typed at each call: {name}: under assumed types: {reason['reason'].splitlines()[0]}")
        for name, reason in self.rejected.items():
            lines.append(f"  kept as Numba: {name}: {reason.splitlines()[0] if reason else ''}")
        return "\n".join(lines)


# --------------------------------------------------------------------------- 1. source -> IR


def read_source(path) -> str:
    """The text of the Python file ``path``."""
    with open(path, encoding="utf-8") as handle:
        return handle.read()


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
            source = read_source(path)
        except FileNotFoundError:
            raise KpcError.at(Loc(path, 0, 0), f"no such file: {path}", "file") from None
        except IsADirectoryError:
            raise KpcError.at(Loc(path, 0, 0), f"{path} is a directory, not a Python file", "file") from None
        except UnicodeDecodeError as err:
            raise KpcError.at(Loc(path, 0, 0), f"{path} is not UTF-8 text: {err.reason}", "file") from None
    return parse_module(source, path, signatures=signatures, strict=strict)


def signature_requests(signatures, generic) -> dict:
    """function -> list of argument-type tuples, from ``signatures`` and eager decorator signatures."""
    from kpc.ir.signature import parse_named_signature, parse_signature
    from kpc.ir.types import runtime_type

    requested: dict = {}

    def add(name, text):
        parsed = parse_signature(text, name) if name else parse_named_signature(text)
        requested.setdefault(parsed.name or name, []).append(tuple(runtime_type(t) for t in parsed.args))

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
    for function in generic.functions.values():
        stencil = function.options.get("stencil")
        if stencil and stencil["name"] in requested:  # a stencil called from Python: its new-array kernel
            requested.setdefault(stencil["new"], []).extend(requested.pop(stencil["name"]))
    for name, function in generic.functions.items():
        if "guvectorize" in function.options:
            for kernel, types in gufunc_requests(function.options["guvectorize"], requested.pop(name, [])):
                if types not in requested.setdefault(kernel, []):
                    requested[kernel].append(types)
        if "vectorize" in function.options:
            for kernel, types in ufunc_requests(name, function.options["vectorize"], requested.pop(name, [])):
                if types not in requested.setdefault(kernel, []):
                    requested[kernel].append(types)
    return requested


def gufunc_requests(gufunc: dict, calls: list) -> list:
    """``(loop kernel, argument types)`` a ``@guvectorize`` function runs for calls of argument types
    ``calls`` (``kpc.runtime.gufunc.GUFunc``: loop dimensions flattened into one C-contiguous axis)."""
    import numpy as np

    from kpc.runtime.ufunc import LoopTable

    layout = gufunc["layout"]
    loops = LoopTable([(ins, outs[0]) for ins, outs in gufunc["loops"]], exact_first=gufunc["target"] == "parallel")
    outs_of = {tuple(np.dtype(t) for t in ins): outs for ins, outs in gufunc["loops"]}
    requests = []
    for types in calls:
        inputs = types[:len(layout["inputs"])]
        loop = loops.resolve(tuple(np.dtype(t[1]) for t in inputs))
        if loop is None:
            continue
        flat = [("array", d.name, len(core) + 1, "C") for d, core in zip(loop[0], layout["inputs"])]
        flat += [("array", out, len(core) + 1, "C") for out, core in zip(outs_of[loop[0]], layout["outputs"])]
        requests.append((gufunc["loop"], tuple(flat)))
    return requests


def ufunc_requests(name: str, ufunc: dict, calls: list) -> list:
    """``(kernel, argument types)`` that a ``@vectorize`` function ``name`` runs for calls of
    argument types ``calls`` (as ``kpc.runtime.ufunc.UFunc`` casts them to their loop; scalars
    taken as NumPy scalars), and, for its eager signatures, the loops over 1-D contiguous arrays
    and the reduce and accumulate kernels of the loops of one dtype."""
    import numpy as np

    from kpc.frontend.ufuncs import accumulate_name, into_name, new_name, reduce_name
    from kpc.runtime.ufunc import LoopTable

    loops = LoopTable(ufunc["loops"], exact_first=ufunc["target"] == "parallel")
    requests = [(into_name(name), tuple(("array", d.name, 1, "C") for d in ins) + (("array", out.name, 1, "C"),))
                for ins, out in loops.loops]
    # ufunc.reduce and ufunc.accumulate of a loop whose inputs and output have one dtype: flat arrays
    # seen as (outer, n, inner), folded into (outer, inner) or (outer, n, inner)
    requests += [(fold(name), (("array", out.name, 1, "C"),) * 2 + (("scalar", "int64"),) * 2)
                 for fold in (reduce_name, accumulate_name)
                 for ins, out in loops.loops if len(ins) == 2 and ins[0] == ins[1] == out]
    for types in calls:
        arrays = [t for t in types if t[0] == "array"]
        if not loops.loops:
            requests.append((new_name(name) if arrays else name, tuple(types)))
            continue
        loop = loops.resolve(tuple(np.dtype(t[1]) for t in types))
        if loop is None:
            continue  # NumPy's TypeError, from Numba's ufunc
        cast = tuple(t if t[1] == d.name else ("array", d.name, t[2], "F" if t[3] == "F" else "C")
                     if t[0] == "array" else ("scalar", d.name) for t, d in zip(types, loop[0]))
        if arrays:
            requests.append((into_name(name), cast + (("array", loop[1].name, max(t[2] for t in arrays), "C"),)))
        else:
            requests.append((name, cast))
    return requests


# --------------------------------------------------------------------------- what a build translates


@dataclass
class KokkosPlan:
    """What a Kokkos build translates, found without compiling: ``translated`` (in source order),
    ``rejected`` (name -> why it stays Numba), ``deferred`` (translated, typed at each call: see
    ``BuildResult``), ``requests`` (``(function, argument types)`` compiled now) and ``eager``
    (the functions with signatures: they accept only those)."""

    translated: list
    rejected: dict
    deferred: dict
    requests: list
    eager: set


def plan_kokkos_build(path, source, generic, signatures, space: str, strict: bool,
                      auto_parallel: bool = True) -> KokkosPlan:
    """Which functions of ``generic`` (``load_module`` of ``path``) the Kokkos build translates:
    each is typed under assumed types (or for its requested signatures) and emitted for ``space``,
    without compiling. ``strict``: a function kpc cannot translate raises ``KpcError``."""
    rejected = {name: str(r.diagnostic) for name, r in generic.rejected.items()}
    requested = signature_requests(signatures, generic)
    space = checked_space(space)
    deferred = {}
    for name, error in untranslatable(path, source, generic, auto_parallel, space).items():
        if name in requested and _type_dependent(error):
            continue  # typed for the requested signatures below instead (failing_requests)
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
        for name, reason in failing_requests(path, source, requests, auto_parallel, space).items():
            rejected[name] = reason
            translated.remove(name)
        requests = [(name, types) for name, types in requests if name not in rejected]
    return KokkosPlan(translated, rejected, deferred, requests, eager)


def untranslatable(path, source, generic, auto_parallel: bool = True, space: str = "openmp") -> dict:
    """Functions whose generic typing (float64 assumed) the pipeline or the Kokkos emitter
    rejects: name -> the error. Checked without compiling anything."""
    from kpc.backend.kokkos.cxx import BackendError
    from kpc.backend.kokkos.emitter import Specialization
    from kpc.passes.manager import PassContext, run_pipeline

    def check(names) -> None:
        module = load_module(path, source=source)
        module.keep_only(names)
        run_pipeline(module, PassContext(target="kokkos", auto_parallel=auto_parallel))
        for name in names:
            if name in module.rejected:
                raise KpcError(module.rejected[name].diagnostic)
            emit_unit([Specialization(module, [name])], space, path)

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


def failing_requests(path, source, requests, auto_parallel: bool = True, space: str = "openmp") -> dict:
    """Requested specializations that cannot be typed or emitted, checked one by one without
    compiling: function -> reason (the function then stays Numba)."""
    from kpc.backend.kokkos.cxx import BackendError
    from kpc.runtime.argument_types import format_type
    from kpc.runtime.fallback import SpecializationTypeError

    reasons = {}
    for name, types in requests:
        if name in reasons:
            continue
        try:
            emit_unit(specialize(path, source, [(name, types)], auto_parallel).typed, space, path)
        except (SpecializationTypeError, BackendError) as error:
            signature = ", ".join(format_type(t) for t in types)
            reasons[name] = f"for ({signature}): {_reason(error)}"
    return reasons


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


def _reason(error) -> str:
    diagnostic = getattr(error, "diagnostic", None)
    return diagnostic.format() if diagnostic is not None else str(error)


# --------------------------------------------------------------------------- requests -> compiled objects


def compile_specializations(path, requests, space: str = "openmp", source: str | None = None,
                            auto_parallel: bool = True) -> list:
    """Compile ``requests`` (``(function, argument types)`` pairs) into one translation unit.

    Returns a ``Specialized`` per request, in order. A request the compiler cannot type
    raises ``kpc.runtime.fallback.SpecializationTypeError``.
    """
    from kpc.compile_setup import check_space

    path = os.path.abspath(os.fspath(path))
    if source is None:
        source = read_source(path)
    check_space(space)
    typed = specialize(path, source, requests, auto_parallel)
    if space == "cuda":
        return compile_gpu_builds(path, typed, requests)
    compiled = compile_unit(emit_unit(typed.typed, space, path), path)
    found = {(function, types): Specialized(function, types, compiled.entry.key, typed.symbol(function, types),
                                            compiled.built, compiled.seconds)
             for entries in typed.rounds for function, types in entries.items()}
    return [found[(f, tuple(t))] for f, t in requests]


# --------------------------------------------------------------------------- 2. typed specializations


@dataclass
class Specializations:
    """Requests typed in as few IR modules as one function's several signatures allow:
    ``typed[i]`` (the Kokkos emitter's ``Specialization``: an IR module after the target's
    passes, holding their decisions, and the functions Python calls in it) holds ``rounds[i]``
    (function -> argument types)."""

    typed: list
    rounds: list

    def round_of(self, function: str, types: tuple) -> int:
        """The last round (IR module, ``typed`` item) holding ``function`` for ``types``."""
        return max(i for i, entries in enumerate(self.rounds) if entries.get(function) == tuple(types))

    def symbol(self, function: str, types: tuple) -> str:
        """The entry of ``function`` for ``types`` in the compiled module (the last round holding it)."""
        return f"{function}__s{self.round_of(function, types)}"


def specialize(path, source, requests, auto_parallel: bool = True) -> Specializations:
    """``requests`` (``(function, argument types)`` pairs) typed and decided by the Kokkos pipeline:
    a function's first signature goes in the first IR module, its second in the second, and so on.
    Raises ``SpecializationTypeError`` for a request kpc cannot type."""
    from kpc.backend.kokkos.emitter import Specialization
    from kpc.runtime.fallback import SpecializationTypeError

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
            typed.append(typed_specialization(path, source, entries, auto_parallel))
        except SpecializationTypeError:
            if len(entries) == 1:
                raise
            # kernels calling one helper with different argument types (welford(x) and
            # welford(X[:, j])): each is typed in a scope of its own
            pending = [{function: types} for function, types in entries.items()] + pending
            continue
        rounds.append(entries)
    return Specializations([Specialization(module, list(entries)) for module, entries in zip(typed, rounds)],
                           rounds)


def typed_specialization(path, source, entries: dict, auto_parallel: bool = True) -> Module:
    """The module typed for ``entries`` (function -> argument types) after the kokkos pipeline,
    holding only those functions and what they call."""
    from kpc.passes.manager import PassContext, run_pipeline
    from kpc.runtime.argument_types import format_type
    from kpc.runtime.fallback import SpecializationTypeError

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
    from kpc.runtime.fallback import SpecializationTypeError

    for name in names:
        if name in module.rejected:
            diagnostic = module.rejected[name].diagnostic
            raise SpecializationTypeError(str(diagnostic), diagnostic)


# --------------------------------------------------------------------------- 3. emitted units


def emit_unit(specializations: list, space: str, path: str):
    """The C++ translation unit (``kpc.backend.kokkos.emitter.TranslationUnit``) of
    ``specializations`` for the execution space ``space``, generated from the Python file ``path``;
    raises ``kpc.backend.kokkos.cxx.BackendError`` for what the space cannot run."""
    from kpc.backend.kokkos.emitter import emit_translation_unit

    return emit_translation_unit(specializations, space=space, source=path,
                                 generated_name=f"{_stem(path)}.kokkos.cpp")


# --------------------------------------------------------------------------- 4. compiled objects


@dataclass
class CompiledUnit:
    """A translation unit compiled into the build cache: its ``entry`` (``kpc.runtime.cache``),
    whether it was ``built`` now (not a cache hit) and the ``seconds`` it took to build or find."""

    entry: object
    built: bool
    seconds: float


def compile_unit(unit, python_source: str, install=None) -> CompiledUnit:
    """Compile ``unit`` for its execution space (``unit.space``) into the build cache, keyed by
    everything it depends on (``kpc.compile_setup.kokkos_key_material``); a cache hit compiles
    nothing. ``python_source``: the file it came from, recorded in the entry's metadata;
    ``install``: the Kokkos to build against (default: the one found for the space; the host
    build of a GPU module passes its CPU Kokkos)."""
    import contextlib
    import time
    from concurrent.futures import ThreadPoolExecutor

    from kpc import __version__
    from kpc.compile_setup import (check_space, kokkos_compile_flags, kokkos_key_material, precompiled_header,
                                   support_object)
    from kpc.runtime.cache import BuildCache, cache_key
    from kpc.runtime.toolchain import compile_extension, extension_suffix, toolchain_for

    install = install if install is not None else check_space(unit.space)
    toolchain = toolchain_for(install)
    extra = kokkos_compile_flags(unit)
    material = kokkos_key_material(unit, install, toolchain)

    def compile_source(source_path, library, module_name):
        flags = extra + [f"-DKPC_MODULE_NAME={module_name}"]
        cuda = unit.space == "cuda"  # a pybind11 module, without the support library
        support = None if cuda else support_object(toolchain, extra, build=False)
        # The first host module of a toolchain and flag set builds the support library beside it.
        building = not cuda and support is None
        with ThreadPoolExecutor(max_workers=1) if building else contextlib.nullcontext() as pool:
            objects = [support] if support is not None else ()
            if building:
                built = pool.submit(support_object, toolchain, extra)
                objects = lambda: [built.result()]  # noqa: E731 (called once the module is compiled)
            compile_extension(source_path, library, toolchain, flags,
                              precompiled=precompiled_header(unit.source, toolchain, extra), objects=objects)

    metadata = {
        "python_source": python_source,
        "entries": [{"function": e.function, "types": [str(t) for t in e.arg_types], "symbol": e.symbol,
                     "written": [k for k, p in enumerate(e.params) if p.written]}
                    for e in unit.entries],
        "space": unit.space,
        "kokkos": material["kokkos"],
        "compiler": material["compiler"],
        "command": material["command"],
        "kpc": __version__,
    }
    started = time.perf_counter()
    entry, built = BuildCache().get_or_build(cache_key(material), unit.source, compile_source, metadata,
                                             extension_suffix())
    return CompiledUnit(entry, built, time.perf_counter() - started)


# --------------------------------------------------------------------------- 4b. the two builds of a GPU module


def compile_gpu_builds(path, typed: Specializations, requests) -> list:
    """The host build and the device build of ``typed`` for ``--space cuda``
    (``kpc.runtime.placement``): the OpenMP unit compiled against the CPU Kokkos
    (``compile_setup.host_kokkos``), and the CUDA unit of the functions ``choose-placement`` lets
    run on the device, compiled against the CUDA Kokkos. Without a CPU Kokkos every function is
    in the device build, as before placement. A ``Specialized`` per request, in order."""
    host = host_kokkos()
    host_compiled = None
    reasons = {function: placement_of(typed.typed, function) for function, _ in requests}
    if host.install is not None:
        host_compiled = compile_unit(emit_unit(typed.typed, "openmp", path), path, install=host.install)
    device_typed = device_specializations(typed.typed, everything=host_compiled is None)
    device_compiled, device_error = None, ""
    if any(spec.entries for spec in device_typed):
        try:
            device_compiled = compile_unit(emit_unit(device_typed, "cuda", path), path)
        except Exception as error:  # noqa: BLE001 (the host build runs every call; the report says why)
            if host_compiled is None:
                raise
            device_error = f"host only: the device build failed: {str(error).splitlines()[0]}"
    result = []
    for function, types in requests:
        symbol = typed.symbol(function, types)
        # the round of these types, not any round: choose-placement decides per specialization
        on_device = device_compiled is not None and function in device_typed[typed.round_of(function, types)].entries
        compiled = host_compiled or device_compiled
        placement = device_error or reasons[function]
        if host_compiled is None:
            placement = f"device only: {host.reason}"
        result.append(Specialized(
            function, tuple(types), host_compiled.entry.key if host_compiled else None,
            symbol if host_compiled else None, compiled.built, compiled.seconds,
            device_compiled.entry.key if on_device else None, symbol if on_device else None, placement))
    return result


def device_specializations(typed: list, everything: bool = False) -> list:
    """``typed`` with only the entries ``choose-placement`` lets run on the device (all of them
    with ``everything``), each module cut down to them and what they call (a host-only function
    the device build leaves out must not reach its emitter). Cuts ``typed``'s modules: emit
    their host unit first."""
    from kpc.backend.kokkos.emitter import Specialization

    device = []
    for spec in typed:
        entries = [name for name in spec.entries
                   if everything or (spec.module.functions[name].placement or (True,))[0]]
        if entries != list(spec.entries):
            spec.module.keep_only(entries)
        device.append(Specialization(spec.module, entries))
    return device


def placement_of(typed: list, function: str) -> str:
    """What ``choose-placement`` recorded for ``function`` (its reason)."""
    for spec in typed:
        if function in spec.entries:
            placement = spec.module.functions[function].placement
            return placement[1] if placement else ""
    return ""


def compile_tier(path, function: str, types: tuple, tier: str, auto_parallel: bool = True) -> dict:
    """One build of one specialization of a ``--space cuda`` module, for a drop-in module's first
    call with these types: ``tier`` ``"host"`` (compiled now) or ``"device"`` (compiled in the
    background). ``{"key", "symbol", "written"}`` (argument positions the function writes), or
    ``kpc.runtime.placement.TierUnavailable`` saying why that build cannot exist."""
    from kpc.runtime.placement import TierUnavailable

    path = os.path.abspath(os.fspath(path))
    source = read_source(path)
    typed = specialize(path, source, [(function, tuple(types))], auto_parallel)
    if tier == "host":
        host = host_kokkos()
        if host.install is None:
            raise TierUnavailable(host.reason)
        unit = emit_unit(typed.typed, "openmp", path)
        compiled = compile_unit(unit, path, install=host.install)
    else:
        reason = placement_of(typed.typed, function)
        device_typed = device_specializations(typed.typed, everything=host_kokkos().install is None)
        if not any(spec.entries for spec in device_typed):
            raise TierUnavailable(reason)
        unit = emit_unit(device_typed, "cuda", path)
        compiled = compile_unit(unit, path)
    entry = next(e for e in unit.entries if e.function == function)
    return {"key": compiled.entry.key, "symbol": entry.symbol,
            "written": [k for k, p in enumerate(entry.params) if p.written]}


def host_kokkos():
    """The CPU Kokkos of a GPU build's host build (``kpc.runtime.kokkos.HostKokkos``)."""
    from kpc.runtime.kokkos import find_host_kokkos, find_kokkos

    return find_host_kokkos(find_kokkos())


def checked_space(space: str) -> str:
    """The space whose emitter decides what a build translates: a GPU build with a host build
    translates what the host build can run (functions the device build cannot take run there)."""
    if space == "cuda" and host_kokkos().install is not None:
        return "openmp"
    return space


# --------------------------------------------------------------------------- the drop-in module


def emit_dropin_module(path, source, generic, plan: KokkosPlan, specialized: list, space: str,
                       auto_parallel: bool, cache_root: str) -> str:
    """The text of the drop-in module of ``path``: ``plan``'s translated functions (their
    ahead-of-time ``specialized`` entries, the rest compiled at a call), the others re-exported
    from the Numba module."""
    from kpc.backend.kokkos.dropin import DropinFunction, emit_dropin, python_signature

    from kpc.frontend.ufuncs import accumulate_name, into_name, new_name, reduce_name

    functions = []
    for name in plan.translated:
        function = generic.functions[name]
        params = [p.name for p in function.params]
        signature, call_args = python_signature(source, name, params)
        ufunc = function.options.get("vectorize")
        if ufunc is not None:
            if into_name(name) not in plan.translated or new_name(name) not in plan.translated:
                continue  # the source's Numba ufunc
            ufunc = dict(ufunc, into=into_name(name), new=new_name(name),
                         reduce=reduce_name(name) if reduce_name(name) in plan.translated else None,
                         accumulate=accumulate_name(name) if accumulate_name(name) in plan.translated else None)
        hidden = bool(function.options.get("ufunc_of") or function.options.get("stencil_of")
                      or function.options.get("gufunc_of"))
        gufunc = function.options.get("guvectorize")
        if gufunc is not None:
            if gufunc["loop"] not in plan.translated:
                continue  # the source's Numba gufunc
            functions.append(DropinFunction(name, tuple(params), signature, call_args, function.docstring,
                                            False, hidden=False, gufunc=gufunc))
            continue
        eager = name in plan.eager and ufunc is None and not hidden  # a ufunc's loops are typed at each call
        functions.append(DropinFunction(name, tuple(params), signature, call_args, function.docstring,
                                        eager, ufunc, hidden))
    for function in generic.functions.values():
        stencil = function.options.get("stencil")
        if stencil and function.name in plan.translated and stencil["new"] in plan.translated:
            functions.append(DropinFunction(stencil["name"], (), "", "", None, False, stencil=stencil))
    return emit_dropin(
        source_path=path, source_text=source, name=_stem(path), docstring=_module_docstring(source), space=space,
        options={} if auto_parallel else {"auto_parallel": False}, cache_root=cache_root, functions=functions,
        prebuilt=[(s.function, s.types, s.key, s.symbol) + ((s.device_key, s.device_symbol) if space == "cuda" else ())
                  for s in specialized], rejected=plan.rejected,
    )


def write_text(output, text: str) -> None:
    """``text`` into ``output`` atomically (a reader never sees half a file)."""
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    temporary = f"{output}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, output)


def _stem(path) -> str:
    return os.path.splitext(os.path.basename(os.fspath(path)))[0]


def _module_docstring(source: str) -> str | None:
    import ast

    try:
        return ast.get_docstring(python_source.parse(source), clean=False)
    except SyntaxError:
        return None


# --------------------------------------------------------------------------- the PyKokkos build


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
    output = os.path.join(os.fspath(out_dir), f"{_stem(path)}.py")
    result, warnings = emit_pykokkos(path, output, signatures, space, source, auto_parallel)
    write_text(output, result.source)
    return PyKokkosBuild(result.source, output, result.kernels, check(result.source, space=space), warnings)


def emit_pykokkos(path, output, signatures, space, source, auto_parallel, only=None):
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
    # as the Kokkos target's plan: a kernel whose guessed types do not type is typed at each call
    text = source if source is not None else read_source(path)
    typed_at_call = [name for name, rejected in module.rejected.items()
                     if rejected.guessed and _guessed_types(path, text, name)]
    return emit_module(module, output, space=space, options={"auto_parallel": auto_parallel},
                       typed_at_call=typed_at_call), list(ctx.warnings)


def build_pykokkos_specialization(source_path, function: str, types: tuple, space: str | None,
                                  options: dict) -> dict:
    """The PyKokkos module of ``source_path`` with ``function`` typed for ``types`` (runtime
    argument types, ``kpc.runtime.argument_types.typeof``): what a PyKokkos module built without
    signatures asks for when it is called with other argument types.

    Upstream PyKokkos compiles workunits from a real file and keys its own cache by the
    file's path, not its text; so the module is written once per content, as
    ``<cache>/pykokkos/<stem>_<sha256 of its text>.py``. Returns ``{"path", "translated",
    "reason"}``: ``translated`` False when kpc keeps ``function`` as Numba for these types.
    """
    import hashlib

    from kpc.runtime.cache_dir import cache_root
    from kpc.runtime.argument_types import format_type

    source_path = os.path.abspath(os.fspath(source_path))
    stem = _stem(source_path)
    folder = os.path.join(str(cache_root()), "pykokkos")
    signature = f"{function}({', '.join(format_type(t) for t in types)})"
    result, _ = emit_pykokkos(source_path, os.path.join(folder, f"{stem}.py"), [signature], space, None,
                              options.get("auto_parallel", True), only=[function])
    digest = hashlib.sha256(result.source.encode()).hexdigest()[:16]
    output = os.path.join(folder, f"{stem}_{digest}.py")
    if not os.path.exists(output):
        write_text(output, result.source)
    kernel = next(k for k in result.kernels if k.name == function)
    return {"path": output, "translated": kernel.status == "translated",
            "reason": None if kernel.status == "translated" else
            (f"{kernel.construct} ({kernel.reason})" if kernel.reason else kernel.construct)}


def check_pykokkos(path) -> list:
    """Contract violations of the PyKokkos module at ``path`` (what ``--check-pykokkos`` prints)."""
    from kpc.backend.pykokkos import check

    return check(read_source(os.fspath(path)))


# --------------------------------------------------------------------------- the decisions, for the report


def read_decisions(path, source, target: str, signatures, auto_parallel: bool = True) -> tuple:
    """function -> (role, regions) after the target's pipeline (generic types where no signature
    says), and the pipeline's warnings; empty when the pipeline rejects the module as a whole."""
    from kpc.passes.manager import PassContext, run_pipeline
    from kpc.report import decisions

    module = load_module(path, signatures=signatures, source=source)
    ctx = PassContext(target=target, auto_parallel=auto_parallel)
    try:
        run_pipeline(module, ctx)
        return decisions(module), [str(w) for w in ctx.warnings]
    except KpcError:
        pass
    found, warnings = {}, []
    for name in module.functions:  # one kernel (and its callees) at a time: the others still get theirs
        single = load_module(path, signatures=signatures, source=source)
        if name not in single.functions:  # a copy infer-types made for other argument types
            continue
        single.keep_only([name])
        ctx = PassContext(target=target, auto_parallel=auto_parallel)
        try:
            run_pipeline(single, ctx)
        except KpcError:
            continue
        decided = decisions(single)
        if name not in decided:  # the pipeline kept it as Numba (single.rejected)
            continue
        found[name] = decided[name]
        warnings += [str(w) for w in ctx.warnings if str(w) not in warnings]
    return found, warnings


def explain_decisions(path, signatures, target: str, auto_parallel: bool = True) -> str:
    """What ``--explain`` prints for ``path``: every loop's decision (``kpc.passes.explain``), and a
    line for each kernel the pipeline did not decide for.

    A kernel without a signature whose guessed types do not type (float64 where the body needs
    something else) is typed at each call; its decisions are shown under a second guess, every
    guessed type an integer (``integer_guess``), said to be guesses, or, when that does not type
    either, what kpc reported. Kernels the frontend refuses stay Numba, with the reason.
    """
    from kpc.passes.explain import explain
    from kpc.passes.infer_types import integer_guess
    from kpc.passes.manager import PassContext, run_pipeline
    from kpc.runtime.argument_types import format_type
    from kpc.ir.types import runtime_type

    source = read_source(path)
    module = load_module(path, signatures=signatures, source=source)
    refused = dict(module.rejected)
    run_pipeline(module, PassContext(target=target, auto_parallel=auto_parallel))
    parts = [explain(module)] if module.functions else []
    for name, rejected in module.rejected.items():
        reason = getattr(rejected.diagnostic, "message", str(rejected.diagnostic)).splitlines()[0]
        if name in refused:
            parts.append(f"@{name}: kept as Numba: {reason}")
            continue
        single = load_module(path, signatures=signatures, source=source)
        types = integer_guess(single, name) if name in single.functions else None
        if types is not None:
            second = f"{name}({', '.join(format_type(runtime_type(t)) for t in types)})"
            retry = load_module(path, signatures=list(signatures or []) + [second], source=source)
            retry.keep_only([name])
            try:
                run_pipeline(retry, PassContext(target=target, auto_parallel=auto_parallel))
            except KpcError:
                retry.functions.clear()
            if name in retry.functions:
                function = retry.functions[name]
                function.guessed = [f"{p.name}: {p.type}" for p in function.params] + [
                    f"float64 did not type ({reason})"]
                parts.append(explain(_only(retry, name)))
                continue
        parts.append(f"@{name}: typed at each call (each call's argument types decide); under the "
                     f"guessed types: {reason}")
    return "\n".join(parts) if parts else "no loops"


def _only(module: Module, name: str) -> Module:
    """``module`` without the functions other than ``name`` (its callees are explained with the file)."""
    for other in [f for f in module.functions if f != name]:
        del module.functions[other]
    return module
