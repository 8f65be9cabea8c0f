"""Annotated IR module -> one PyKokkos Python module, plus a per-kernel build report.

The emitter decides, the templates (``templates/*.py.j2``) only lay out. For each
entry kernel, in source order, it builds a caller (host.py) whose parallel loops
become workunits (regions.py); device functions become ``@pk.function`` helpers on
demand (device.py). A kernel with any construct that cannot be written as correct
PyKokkos is kept as the original Numba function, re-exported from the source
module, and the report says which construct and line stopped it. Every other
top-level name of the source resolves, through the module's ``__getattr__``, to the
source module's own object, so the output is the whole module. Where the module imports
PyKokkos, each caller first checks that this is the process whose import of it initialized
Kokkos (``helpers.PROCESS_GUARD``): a forked child raises instead of hanging.

Workunit names end in a short hash of their own text and of every ``@pk.function``
of the module (all of which upstream compiles into each workunit): upstream caches
builds by file path and workunit name only (PYKOKKOS_CONTRACT.md §13), so changed
code must get a new name.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import textwrap
from dataclasses import dataclass, field

import jinja2

from kpc import __version__
from kpc.backend.source_names import source_dunders
from kpc.ir import nodes as n
from kpc.ir import python_source
from kpc.ir.signature import parse_signature
from kpc.ir.types import ArrayType, NoneType, ScalarType, TupleType, runtime_type

from . import spelling
from .bounds import Bounds
from .device import DeviceCode, DeviceSignature, NameAllocator, all_names
from .effects import names_bound, undefined_names, written_params
from .helpers import (
    AS_VIEW, CHECK_PROCESS, CUDA_HOST_HELPERS, CUPY_IMPORT, DEVICE_HELPERS, HOST_HELPERS, KOKKOS_PID, ON_HOST,
    PASSED_CUPY, PROCESS_GUARD, WITH_ADDRESS, WRITE_BACK,
)
from .host import HostCode
from .model import CallerModel, FunctionModel, KeptModel, ModuleModel
from .regions import RegionLowering
from .unsupported import Unsupported, loc_of, require_numba_semantics

HOST_SPACES = ("OpenMP", "Serial", "Threads")
DEVICE_SPACES = ("Cuda",)


@dataclass
class KernelReport:
    """What happened to one jitted function: ``translated``, kept as ``numba`` (with why), or
    ``lazy``: typed at each call, its guessed types did not type (why)."""

    name: str
    status: str
    role: str = "entry"
    line: int | None = None
    construct: str | None = None
    reason: str | None = None
    workunits: list = field(default_factory=list)

    def __str__(self) -> str:
        if self.status == "lazy":
            return f"{self.name}: typed at each call ({self.reason})"
        if self.status == "translated":
            what = "@pk.function" if self.role == "device" else f"workunits: {', '.join(self.workunits) or 'none'}"
            return f"{self.name}: translated ({what})"
        where = f" at line {self.line}" if self.line else ""
        why = f" ({self.reason})" if self.reason else ""
        return f"{self.name}: kept as Numba{where}: {self.construct}{why}"


@dataclass
class EmitResult:
    source: str
    kernels: list


class _DeviceFunctions:
    """``@pk.function`` versions of the module's functions, lowered on first use and cached."""

    def __init__(self, ctx: "_Context"):
        self.ctx = ctx
        self.done: dict = {}
        self.models: dict = {}
        self.uses: dict = {}
        self.helpers: dict = {}
        self.active: set = set()

    def get(self, name: str):
        return self._get(name)

    def element(self, name: str, k: int):
        """The ``@pk.function`` computing element ``k`` of the tuple ``name`` returns."""
        return self._get((name, k))

    def _get(self, key):
        name = key if isinstance(key, str) else key[0]
        if name not in self.ctx.module.functions:
            return None
        if key in self.active:
            raise Unsupported(f"recursive call to '{name}'", loc_of(self.ctx.module.functions[name]))
        if key not in self.done:
            self.active.add(key)
            try:
                element = None if isinstance(key, str) else key[1]
                self.done[key] = self._lower(self.ctx.module.functions[name], element)
            except Unsupported as exc:
                self.done[key] = exc
            finally:
                self.active.discard(key)
        result = self.done[key]
        if isinstance(result, Unsupported):
            raise Unsupported(f"device function '{name}': {result.construct}", result.loc, result.reason)
        return result

    def _lower(self, fn: n.Function, element: int | None = None) -> DeviceSignature:
        ctx = self.ctx
        _require_defined(fn)
        alloc = NameAllocator(all_names(fn) | ctx.module_names)
        code = DeviceCode(fn, "function", self, alloc, ctx.bounds(fn))
        code.return_element = element
        for name in all_names(fn):
            if name in spelling.CPP_KEYWORDS or name in ctx.module_names or name in ("pk", "math"):
                code.names[name] = alloc.claim(name + "_")
        written = names_bound(fn.body)
        params = []
        for p in fn.params:
            pk_name = code.name(p.name)
            if isinstance(p.type, ArrayType):
                annotation = spelling.view_annotation(p.type)
                if ctx.entry_views.get(pk_name, {annotation}) != {annotation}:
                    # Upstream gives a function's view parameter the type of a workunit view of the
                    # same name (contract §6): a different rank or dtype would not compile.
                    pk_name = alloc.claim(pk_name + "_view")
                code.add_view_param(p.name, p.type, pk_name)
                params.append(f"{pk_name}: {annotation}")
            elif isinstance(p.type, ScalarType):
                annotation = spelling.scalar_annotation(p.type)
                if p.name in written:
                    # Scalar parameters are const upstream: copy into a local first.
                    incoming = alloc.claim(pk_name + "_in")
                    params.append(f"{incoming}: {annotation}")
                    code.hoisted[pk_name] = (annotation, incoming)
                    code.declared.add(pk_name)
                else:
                    code.scalars[p.name] = p.type
                    params.append(f"{pk_name}: {annotation}")
            else:
                raise Unsupported(f"parameter '{p.name}' of type {p.type}", loc_of(p))
        returns_type = fn.return_type
        if element is not None:
            if not isinstance(returns_type, TupleType) or element >= len(returns_type.elements):
                raise Unsupported(f"'{fn.name}' does not return a tuple", loc_of(fn))
            if ctx.written.get(fn.name):
                raise Unsupported(f"'{fn.name}' returns a tuple and writes arrays", loc_of(fn),
                                  "kpc splits tuple results into one call per element, so the body must be pure")
            returns_type = returns_type.elements[element]
        if isinstance(returns_type, NoneType):
            returns = "None"
        elif isinstance(returns_type, ScalarType):
            returns = spelling.scalar_annotation(returns_type)
        else:
            raise Unsupported(f"'{fn.name}' returns {fn.return_type}", loc_of(fn),
                              "a @pk.function returns a scalar or None")
        code.body(fn.body)
        params += [f"{pk_name}: pk.int64" for _, _, pk_name in code.extent_params]
        body = [(0, line) for line in code.hoisted_declarations()] + code.lines
        if not code.lines:
            body.append((0, "pass"))
        base = fn.name if fn.role == "device" else f"{fn.name}_device"
        if element is None:
            pk_name = base if fn.role == "device" else ctx.claim_module_name(base)
        else:
            pk_name = ctx.claim_module_name(f"{base}_{element}")
        comment = [f"{ctx.basename}:{fn.loc.line}: def {fn.name}"]
        # The docstring travels as a comment: a string statement would go through upstream's translator.
        comment += [line.rstrip() for line in (fn.docstring or "").strip().splitlines()]
        if element is not None:
            comment.append(f"element {element} of the tuple {fn.name} returns (a @pk.function returns one scalar)")
        if code.extent_params:
            comment.append("array sizes are parameters: upstream rejects v.extent() inside @pk.function")
        key = fn.name if element is None else (fn.name, element)
        self.models[key] = FunctionModel(pk_name, params, returns, body, comment)
        self.uses[key] = set(code.signatures_used)
        self.helpers[key] = set(code.helpers)
        return DeviceSignature(pk_name, fn, [(v, d) for v, d, _ in code.extent_params])

    def closure(self, names: set) -> set:
        result, stack = set(), list(names)
        while stack:
            name = stack.pop()
            if name not in result:
                result.add(name)
                stack.extend(self.uses.get(name, ()))
        return result


class _Context:
    """Shared state of one emission: the module, names taken at module level, per-function facts."""

    def __init__(self, module, space: str | None):
        self.module = module
        self.space = f"pk.{space}" if space else None
        self.on_device = space in DEVICE_SPACES  # arrays travel as CuPy arrays (contract §4)
        self.basename = os.path.basename(module.path)
        self.source_lines = module.source.splitlines()
        self.module_names = set(module.functions) | set(DEVICE_HELPERS) | set(HOST_HELPERS) \
            | set(CUDA_HOST_HELPERS) | {"_numba", CHECK_PROCESS, KOKKOS_PID}
        self.device = _DeviceFunctions(self)
        self.written = written_params(module.functions)
        self.host_calls: set = set()
        self._bounds: dict = {}
        self.helpers_used: set = set()
        self.entry_views: dict = {}
        for fn in module.functions.values():
            if fn.role in ("entry", "both"):
                typed = [(p.name, p.type) for p in fn.params] + list(fn.locals.items())
                for name, ty in typed:
                    if isinstance(ty, ArrayType):
                        try:
                            self.entry_views.setdefault(name, set()).add(spelling.view_annotation(ty))
                        except spelling.NotSpellable:
                            pass

    def bounds(self, fn: n.Function) -> Bounds:
        if fn.name not in self._bounds:
            self._bounds[fn.name] = Bounds(fn)
        return self._bounds[fn.name]

    def claim_module_name(self, name: str) -> str:
        candidate, k = name, 1
        while candidate in self.module_names:
            k += 1
            candidate = f"{name}_{k}"
        self.module_names.add(candidate)
        return candidate

    def use_helpers(self, names) -> None:
        self.helpers_used |= set(names)

    def source_comment(self, node) -> str:
        line = loc_of(node).line
        text = self.source_lines[line - 1].strip() if 0 < line <= len(self.source_lines) else ""
        return f"{self.basename}:{line}: {text}"


def _kept_reason(exc: Unsupported) -> str:
    return f"{exc.construct} ({exc.reason})" if exc.reason else exc.construct


class PyKokkosEmitter:
    """Emits one module. ``space``: ``None`` (PyKokkos's default space), a host space name or ``Cuda``."""

    def __init__(self, module, output_path: str, space: str | None = None, options: dict | None = None,
                 typed_at_call=()):
        if space is not None and space not in HOST_SPACES + DEVICE_SPACES:
            raise ValueError(f"space {space!r}: choose one of {', '.join(HOST_SPACES + DEVICE_SPACES)} or None")
        self.module = module
        self.output_path = output_path
        self.space = space
        self.options = dict(options or {})
        self.typed_at_call = set(typed_at_call)
        self.ctx = _Context(module, space)
        self.written = self.ctx.written

    def emit(self) -> EmitResult:
        module = self.module
        # Serial host code calls entry kernels through their callers, device-only functions as Numba.
        callables = {name: (name if fn.role in ("entry", "both") else f"_numba.{name}")
                     for name, fn in module.functions.items()}
        reports, callers, workunits, kept, used_functions = [], {}, [], [], set()
        for name, fn in module.functions.items():
            if fn.role == "device":
                continue
            try:
                require_numba_semantics(module, name)
                caller, regions = self._caller(fn, callables)
            except Unsupported as exc:
                line = exc.loc.line or fn.loc.line or None
                kept.append(KeptModel(name, _kept_reason(exc)))
                reports.append(KernelReport(name, "numba", fn.role, line, exc.construct, exc.reason))
                continue
            callers[name] = (caller, regions)
            used_functions |= set().union(*(r.functions for r in regions)) if regions else set()
            for region in regions:
                workunits.append(region.workunit)
            reports.append(KernelReport(name, "translated", fn.role, fn.loc.line or None))
        for name, reason in module.rejected.items():
            diagnostic = reason.diagnostic
            message = getattr(diagnostic, "message", str(diagnostic))
            lazy = name in self.typed_at_call
            kept.append(KeptModel(name, message, typed_at_call=lazy))
            reports.append(KernelReport(name, "lazy" if lazy else "numba", "entry", reason.loc.line or None, message))
        functions = self._functions(used_functions)
        self._device_reports(reports, kept, used_functions)
        names = self._hash_names(workunits, functions)
        caller_models = []
        for name, (caller, regions) in callers.items():
            caller.body = [(d, _substitute(t, names)) for d, t in caller.body]
            if functions or workunits:  # the module imports PyKokkos: a forked child raises before calling it
                caller.body = [(0, f"{CHECK_PROCESS}()")] + (caller.body if caller.body != [(0, "pass")] else [])
            caller_models.append(caller)
            for report in reports:
                if report.name == name:
                    report.workunits = [names[r.placeholder] for r in regions]
        for workunit in workunits:
            workunit.name = names[f"@@{workunit.name}@@"]
        kept, reports = self._source_names(kept), self._source_reports(reports)
        order = list(module.functions) + list(module.rejected) + [k.name for k in kept]
        kept.sort(key=lambda k: order.index(k.name))
        reports.sort(key=lambda r: order.index(r.name))
        model = self._model(functions, workunits, caller_models, kept, reports)
        model.per_call = {name: _per_call_types(self.module.functions[name]) for name in callers}
        # no types were built for these: every call's types get a module (or Numba) of their own
        model.per_call.update({k.name: ((), None) for k in kept if k.typed_at_call})
        model.options = self.options
        model.space = self.space
        return EmitResult(_render(model), reports)

    # ------------------------------------------------------------------ pieces
    def _caller(self, fn: n.Function, callables: dict):
        _require_defined(fn)
        on_device = self.ctx.on_device
        if on_device and "cp" in all_names(fn):
            raise Unsupported(f"a variable named 'cp' in '{fn.name}'", loc_of(fn),
                              "the Cuda-space output imports CuPy as cp; rename the variable")
        host = HostCode(fn, callables, all_names(fn) | self.ctx.module_names, on_device)
        regions = RegionLowering(self.ctx, fn, host)
        host.regions = regions
        written = self.written.get(fn.name, set())
        preamble, write_back = [], []
        arrays = [p.name for p in fn.params if isinstance(p.type, ArrayType)]
        rebound = {target.id for stmt in n.walk(fn) if isinstance(stmt, n.Assign)
                   for target in (stmt.target.elements if isinstance(stmt.target, n.TupleExpr) else [stmt.target])
                   if isinstance(target, n.Name)} & set(arrays)
        if on_device and arrays and _returns_array(fn.return_type):
            host.passed_cupy = host.fresh("cupy_args")
        for p in fn.params:
            if p.default is not None:
                raise Unsupported(f"default value of parameter '{p.name}'", loc_of(p))
            if isinstance(p.type, ArrayType):
                dtype = f"np.{p.type.dtype.name if not p.type.dtype.is_bool else 'bool_'}"
                spelling.view_annotation(p.type)
                call = f'{AS_VIEW}("{p.name}", {p.name}, {dtype}, {p.type.ndim})'
                if p.name in written:
                    converted = host.fresh(f"{p.name}_c")
                    host.names[p.name] = converted
                    preamble.append(f"{converted} = {call}")
                    if p.name in rebound:  # swapped with another array: write back the entry view
                        view = host.fresh(f"{p.name}_view")
                        preamble.append(f"{view} = {converted}")
                        host.entry_views[p.name] = view
                        converted = view
                    write_back.append(f"{WRITE_BACK}({p.name}, {converted})")
                else:
                    preamble.append(f"{p.name} = {call}")
            elif isinstance(p.type, ScalarType):
                preamble.append(f"{p.name} = {_scalar_conversion(p.name, p.type)}")
            else:
                raise Unsupported(f"parameter '{p.name}' of type {p.type}", loc_of(p))
        if write_back:
            host.depth = 1
        host.body(fn.body)
        if PASSED_CUPY in host.helpers:  # an array result other than an argument: NumPy or CuPy, as passed
            preamble.insert(0, f"{host.passed_cupy} = {PASSED_CUPY}({', '.join(arrays)})")
        self.ctx.host_calls |= host.numba_calls
        body = [(0, line) for line in preamble]
        if write_back:
            body += [(0, "try:")] + host.lines + [(0, "finally:")] + [(1, line) for line in write_back]
        else:
            body += host.lines
        if not body:
            body = [(0, "pass")]
        caller = CallerModel(fn.name, ", ".join(p.name for p in fn.params), fn.docstring, body)
        self.ctx.use_helpers({AS_VIEW} if preamble and any(AS_VIEW in t for t in preamble) else set())
        self.ctx.use_helpers({WRITE_BACK} if write_back else set())
        self.ctx.use_helpers(host.helpers)
        return caller, regions.regions

    def _functions(self, used: set) -> list:
        names = self.ctx.device.closure(used)
        order, seen = [], set()
        source_order = list(self.module.functions)

        def rank(key):
            return (source_order.index(key), -1) if isinstance(key, str) else (source_order.index(key[0]), key[1])

        def visit(key):  # source order, callees before their callers
            if key in seen or key not in names:
                return
            seen.add(key)
            for callee in sorted(self.ctx.device.uses.get(key, ()), key=rank):
                visit(callee)
            order.append(key)

        for key in sorted(names, key=rank):
            visit(key)
        helpers = set()
        for name in names:
            helpers |= self.ctx.device.helpers.get(name, set())
        self.ctx.use_helpers(helpers)
        models = [DEVICE_HELPERS[h] for h in DEVICE_HELPERS if h in self.ctx.helpers_used]
        return models + [self.ctx.device.models[name] for name in order]

    def _source_names(self, kept: list) -> list:
        """The kept functions as the source names them (``_source_name``): the kernels kpc writes for a
        ``@vectorize`` ufunc or a ``@stencil`` (``kpc.frontend.ufuncs``, ``kpc.frontend.stencils``) are the
        source's ufunc or stencil object, and a helper's copies the helper, re-exported once under its name."""
        result, seen = [], set()
        for model in kept:
            name = self._source_name(model.name)
            if name not in seen:
                seen.add(name)
                result.append(KeptModel(name, model.reason) if name != model.name else model)
        for name, function in self.module.functions.items():
            if ("vectorize" in function.options or "guvectorize" in function.options) and name not in seen:
                seen.add(name)  # a ufunc only kernels call, or a gufunc's function
                result.append(KeptModel(name, "ufunc (kept as Numba on the PyKokkos target)"))
        return result

    def _source_name(self, name: str) -> str:
        """The source's name of function ``name``: a ufunc's, a stencil's or a gufunc's for the
        kernels kpc writes for them, the helper's for a copy typed for other arguments
        (``infer-types``), else ``name``."""
        function = self.module.functions.get(name)
        if function is None:
            return name
        options = function.options
        return (options.get("ufunc_of") or options.get("stencil_of") or options.get("gufunc_of")
                or function.specialized_from or name)

    def _source_reports(self, reports: list) -> list:
        """The reports under the source's names (see ``_source_names``): one per ufunc or stencil."""
        result, seen = [], set()
        for report in reports:
            name = self._source_name(report.name)
            if name in seen:
                continue
            seen.add(name)
            if name != report.name:
                report = KernelReport(name, "numba", "entry", report.line, report.construct, report.reason)
            result.append(report)
        return result

    def _device_reports(self, reports: list, kept: list, used: set) -> None:
        emitted = {key if isinstance(key, str) else key[0] for key in self.ctx.device.closure(used)}
        for name, fn in self.module.functions.items():
            if fn.role != "device":
                continue
            if name in emitted:
                reports.append(KernelReport(name, "translated", "device", fn.loc.line or None))
                continue
            failures = [r for key, r in self.ctx.device.done.items()
                        if (key == name or key[0] == name) and isinstance(r, Unsupported)]
            if failures:
                result = failures[0]
                construct, reason, line = result.construct, result.reason, result.loc.line or None
            elif name in self.ctx.host_calls:
                construct, reason, line = "called only from serial host code, which calls the Numba original", \
                    None, None
            else:
                construct, reason, line = "device function not called by any translated kernel", None, None
            kept.append(KeptModel(name, f"{construct} ({reason})" if reason else construct))
            reports.append(KernelReport(name, "numba", "device", line, construct, reason))

    def _hash_names(self, workunits: list, functions: list) -> dict:
        env = _environment()
        functions_text = "\n".join(env.get_template("blocks.py.j2").module.function(f) for f in functions)
        names = {}
        for workunit in workunits:
            text = env.get_template("blocks.py.j2").module.workunit(workunit)
            digest = hashlib.sha256((text + "\n" + functions_text).encode()).hexdigest()[:8]
            names[f"@@{workunit.name}@@"] = self.ctx.claim_module_name(f"{workunit.name}_{digest}")
        return names

    def _model(self, functions, workunits, callers, kept, reports) -> ModuleModel:
        header = _header(self.module, self.space, reports)
        host_text = "\n".join(text for c in callers for _, text in c.body)
        device_text = "\n".join(text for unit in functions + workunits for _, text in unit.body)
        imports = ["import importlib.util"]
        if "math." in host_text + device_text:
            imports.append("import math")
        if "operator." in host_text:
            imports.append("import operator")
        imports += ["import os", "import sys", ""]
        if callers or (kept and self.ctx.on_device):  # _on_host checks for NumPy results
            imports.append("import numpy as np")
        process_guard = None
        if functions or workunits:
            imports.append("import pykokkos as pk")
            process_guard = PROCESS_GUARD
        host_helpers = CUDA_HOST_HELPERS if self.ctx.on_device else HOST_HELPERS
        if self.ctx.on_device:
            if AS_VIEW in self.ctx.helpers_used:  # the Cuda space's _as_view calls it
                self.ctx.use_helpers({WITH_ADDRESS})
            if kept or callers:  # kept kernels, and the Numba fallback of per-call types
                self.ctx.use_helpers({ON_HOST})
        helpers = [host_helpers[h] for h in host_helpers if h in self.ctx.helpers_used]
        if self.ctx.on_device and (helpers or "cp." in host_text):
            imports += ["", CUPY_IMPORT]
        out_dir = os.path.dirname(os.path.abspath(self.output_path))
        absolute = os.path.abspath(self.module.path)
        return ModuleModel(header, imports, helpers, os.path.relpath(absolute, out_dir), absolute, functions,
                           workunits, callers, kept, numba_now=bool(kept) or "_numba." in host_text,
                           kept_on_host=self.ctx.on_device,
                           source_dunders=source_dunders(self.module.source), process_guard=process_guard)


def _per_call_types(fn: n.Function) -> tuple:
    """``(built, eager)``: the argument types ``fn`` was built for, and those of its eager
    signatures (None without: any types), as ``kpc.runtime.argument_types.typeof`` spells them."""
    built = tuple(runtime_type(p.type) for p in fn.params)
    if not fn.signatures:
        return built, None
    try:
        return built, [tuple(runtime_type(t) for t in parse_signature(text).args) for text in fn.signatures]
    except ValueError:  # an eager signature with types Python cannot pass: the built one only
        return built, [built]


def _returns_array(ty) -> bool:
    return isinstance(ty, ArrayType) or (isinstance(ty, TupleType) and any(map(_returns_array, ty.elements)))


def _require_defined(fn: n.Function) -> None:
    missing = undefined_names(fn)
    if missing:
        raise Unsupported(f"'{missing[0]}' is read but never assigned in '{fn.name}'", loc_of(fn),
                          "the IR after the passes lost a definition; kpc will not emit code for it")


def _scalar_conversion(name: str, ty: ScalarType) -> str:
    """Scalars as the built signature types them (Numba converts at the call boundary too)."""
    if ty.is_bool:
        return f"bool({name})"
    if ty.is_int:
        return f"operator.index({name})" if ty.bits == 64 and ty.is_signed else f"np.{ty.name}({name})"
    if ty.name == "float64":
        return f"float({name})"
    return f"np.{ty.name}({name})"


def _substitute(text: str, names: dict) -> str:
    return re.sub(r"@@[A-Za-z0-9_]+@@", lambda m: names[m.group(0)], text)


def _header(module, space, reports) -> list:
    translated = [r.name for r in reports if r.status == "translated" and r.role != "device"]
    helpers = [r.name for r in reports if r.status == "translated" and r.role == "device"]
    kept = [r for r in reports if r.status == "numba"]
    lines = [
        f"PyKokkos translation of {os.path.basename(module.path)}, generated by kpc {__version__}.",
        "",
        "Regenerate instead of editing. Each Numba kernel keeps its name, signature and docstring;",
        "its parallel loops run as the @pk.workunit functions below, in the "
        + (f"pk.{space} execution space." if space else "default PyKokkos execution space."),
        "",
    ]
    if space in DEVICE_SPACES:
        lines += [
            f"{space} space: every policy names it, pk.RangePolicy(pk.{space}, begin, end); the process-wide",
            "default space (pk.set_default_space) is left alone. Upstream does not move NumPy arrays to",
            "the device, so the callers pass CuPy arrays to the workunits: a NumPy argument is copied to",
            "the device (and back, if a kernel writes it), a C-contiguous CuPy argument of the built dtype",
            "is used in place. Arrays the callers allocate are CuPy arrays; array results come back as",
            "CuPy when any argument was CuPy, else as NumPy; scalar results as Python numbers. Needs the",
            "cupy package. kpc's tests check this text statically; they do not run it on a GPU.",
            "",
        ]
    lines += [
        "Compilation cache: upstream PyKokkos caches each compiled workunit under ./pk_cpp by file path",
        "and workunit name only, never by source. Every workunit name here ends in a hash of its own",
        "source and of every @pk.function in this file (upstream compiles all of them into each",
        "workunit), so regenerated code with a changed body gets a new name and a fresh build.",
        "",
        f"Every other top-level name of {os.path.basename(module.path)} (plain functions, constants, classes,",
        "imports) is that module's own object, imported from it on first use (__getattr__ below).",
    ]
    if translated:
        lines += ["", "Translated kernels: " + ", ".join(translated) + "."]
    if helpers:
        lines += ["Device functions, as @pk.function: " + ", ".join(helpers) + "."]
    if kept:
        lines += ["", "Kept as Numba (re-exported from the source module):"]
        for r in kept:
            where = f" (line {r.line})" if r.line else ""
            lines.append(f"    {r.name}{where}: {r.construct}" + (f"; {r.reason}" if r.reason else ""))
        if space in DEVICE_SPACES:
            lines.append("These run on the host, as Numba: CuPy arguments travel as NumPy copies (_on_host).")
    docstring = _source_docstring(module.source)
    if docstring:  # the source module's own, carried as the Kokkos drop-in carries it
        lines += [""] + docstring.splitlines()
    return lines


def _source_docstring(source: str) -> str | None:
    try:
        return ast.get_docstring(python_source.parse(source))
    except SyntaxError:
        return None


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.join(os.path.dirname(__file__), "templates")),
        keep_trailing_newline=True,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["pyrepr"] = repr
    env.filters["docstring"] = _docstring
    env.filters["signature"] = _signature
    return env


LINE_LENGTH = 100


def _signature(name: str, params: list, returns: str | None = None) -> str:
    """``def name(params) -> returns:`` on one line, or one parameter per line when too long."""
    tail = f" -> {returns}:" if returns else ":"
    line = f"def {name}({', '.join(params)}){tail}"
    if len(line) <= LINE_LENGTH:
        return line
    inner = "".join(f"    {p},\n" for p in params)
    return f"def {name}(\n{inner}){tail}"


def _docstring(text: str) -> str:
    """The original docstring, re-indented for the caller (a raw string when it holds backslashes)."""
    prefix = "r" if "\\" in text else ""
    body = text.replace('"""', "'''")
    lines = body.strip("\n").splitlines() or [""]
    if len(lines) == 1:
        return f'{prefix}"""{lines[0].strip()}"""'
    rest = textwrap.dedent("\n".join(lines[1:])).splitlines()
    inner = "\n".join(("    " + line) if line.strip() else "" for line in rest)
    return f'{prefix}"""{lines[0].strip()}\n{inner}\n    """'


def _docstring_safe(line: str) -> str:
    return line.replace("\\", "\\\\").replace('"""', "'''")


def _render(model: ModuleModel) -> str:
    env = _environment()
    text = env.get_template("module.py.j2").render(
        header=[_docstring_safe(line) for line in model.header], imports=model.imports,
        process_guard=model.process_guard, helpers=model.helpers,
        numba_source=model.numba_source,
        numba_source_absolute=model.numba_source_absolute,
        numba_stem=os.path.splitext(os.path.basename(model.numba_source))[0],
        numba_now=model.numba_now,
        source_dunders=model.source_dunders,
        functions=model.functions, workunits=model.workunits, callers=model.callers, kept=model.kept,
        kept_on_host=model.kept_on_host,
        per_call=model.per_call, options=model.options, space=model.space,
    )
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{4,}", "\n\n\n", text).rstrip("\n") + "\n"
    python_source.parse(text)
    return text


def emit_module(module, output_path: str, space: str | None = None, options: dict | None = None,
                typed_at_call=()) -> EmitResult:
    """The PyKokkos module for ``module`` (an IR module after the ``pykokkos`` pipeline).

    ``output_path``: where the text will be written (relative paths inside it are resolved
    from there); ``space``: ``None`` for PyKokkos's default execution space, ``OpenMP``,
    ``Serial``, ``Threads``, or ``Cuda`` (callers pass CuPy arrays to the workunits);
    ``options``: the build's options (``auto_parallel``), which the module gives kpc when it
    asks for a specialization for other argument types (``kpc.runtime.pykokkos_types``);
    ``typed_at_call``: rejected kernels whose guessed types did not type, which the module types
    at each call instead of keeping them as Numba.
    """
    return PyKokkosEmitter(module, output_path, space, options, typed_at_call).emit()
