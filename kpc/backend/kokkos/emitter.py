"""The Kokkos C++ emitter: one translation unit per source module and set of type signatures.

Each *specialization* (an IR module typed for one set of argument types, after the
``kokkos`` pass pipeline) becomes a C++ namespace holding its functions; the
functions called from Python get an entry (a METH_FASTCALL function) named
``<function>__<namespace>`` that checks and wraps the NumPy arguments and calls the host code;
host-space modules call kpc's support library (``kpc_support.cpp``, see ``SUPPORT_SOURCE``) for
what needs pybind11, CUDA modules are pybind11 modules. The emitter
decides what to print (variants, declarations, regions) and hands small models to
the jinja2 templates next to this file, which only lay them out.

>>> unit = emit_translation_unit([Specialization(module, ["potential"])], space="openmp")  # doctest: +SKIP
>>> unit.entries[0].symbol                                                                  # doctest: +SKIP
'potential__s0'
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from kpc import __version__
from kpc.ir import nodes as n
from kpc.ir.intrinsics import HOST_ROUTINES, ORDER_READERS, ORDER_ROUTINES
from kpc.ir.queries import called_inside, nested_bodies, own_exprs
from kpc.ir.types import ArrayType, DTypeType, NoneType, ScalarType, TupleType, Type

from . import analysis, cuda
from .cxx import LAYOUTS, BackendError, c_string, identifier, scalar_type
from .functions import FunctionEmitter

HERE = Path(__file__).resolve().parent
INCLUDE_DIR = HERE
HEADERS = ("kpc_compat.hpp", "kpc_semantics.hpp", "kpc_python.hpp", "kpc_runtime.hpp", "kpc_host.hpp",
           "kpc_numpy.hpp", "kpc_placement.hpp", "kpc_cuda.hpp", "kpc_scatter.hpp", "kpc_random.hpp", "kpc_linalg.hpp", "kpc_blas.hpp",
           "kpc_order.hpp", "kpc_support.cpp")
# The support library linked into every host-space module (built once per toolchain and flags).
SUPPORT_SOURCE = HERE / "kpc_support.cpp"

EXEC_SPACES = {"openmp": "Kokkos::OpenMP", "serial": "Kokkos::Serial", "cuda": "Kokkos::Cuda",
               "threads": "Kokkos::Threads"}

_LINE_RESET = "//@@KPC_LINE_RESET@@"

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(HERE / "templates")),
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    undefined=jinja2.StrictUndefined,
)


@dataclass
class Specialization:
    """An IR module typed for one set of argument types, and the functions Python calls in it."""

    module: object
    entries: list


@dataclass
class ParamBinding:
    name: str
    type: Type
    written: bool = False


@dataclass
class EntryModel:
    """One function callable from Python: its entry symbol and argument conversions."""

    symbol: str
    function: str
    namespace: str
    cxx_name: str
    params: list
    arg_types: tuple
    return_type: Type
    conversions: list = field(default_factory=list)
    call_args: list = field(default_factory=list)
    returns_value: bool = True
    returns_object: bool = False
    function_literal: str = ""
    # The kernel runs with the GIL released when its specialization has loops (a loop-free
    # one returns in nanoseconds, less than releasing costs) and touches no Python objects
    # (arrays it allocates are NumPy arrays; returned arrays are their owners).
    releases_gil: bool = True


@dataclass
class SpecializationModel:
    namespace: str
    description: str
    functions: list
    accumulators: list


@dataclass
class TranslationUnit:
    """The generated C++ source and what it exports."""

    source: str
    entries: list
    space: str
    fastmath: bool
    headers_digest: str

    def entry(self, function: str, arg_types: tuple) -> EntryModel:
        for e in self.entries:
            if e.function == function and e.arg_types == tuple(arg_types):
                return e
        raise KeyError((function, arg_types))


def headers_digest() -> str:
    """A hash of the support headers: generated sources include them, so cache keys cover them."""
    digest = hashlib.sha256()
    for name in HEADERS:
        digest.update((HERE / name).read_bytes())
    return digest.hexdigest()


class _UnitContext:
    """What a FunctionEmitter asks about the rest of its specialization."""

    def __init__(self, module, namespace: str, host_variant: dict, space: str):
        self.module = module
        self.namespace = namespace
        self.host_variant = host_variant
        self.space = space
        # functions that run inside parallel regions (on CUDA: on the device)
        self.device_functions = called_inside(module, lambda loop: loop.parallel is not None)
        # integer parameters of helpers with the ranges their call sites give (no index wraps)
        self.parameter_intervals = analysis.parameter_intervals(module)

    def variant_name(self, name: str, device: bool) -> str:
        if device and self.host_variant.get(name):
            return f"{name}__serial"
        return name

    callee_name = variant_name


def _has_regions(function) -> bool:
    """Parallel loops, or a ``matmul`` routine (it launches its own loop nest: on CUDA a device
    kernel, so the arrays it reads must be on the device)."""
    return any(isinstance(node, n.For) and node.parallel is not None
               or isinstance(node, n.Call) and node.kind == "builtin" and node.func == "matmul"
               for node in n.walk(function))


def _needs_host_variant(function) -> bool:
    """A function launches parallel regions, allocates NumPy arrays, returns arrays to Python or
    raises: what it does when called from Python differs from what it can do inside a region."""
    if _has_regions(function) or _has_array(function.return_type):
        return True
    return any(isinstance(node, n.Call) and node.kind == "numpy" or isinstance(node, n.Raise)
               for node in n.walk(function))


def _calls(function, variant: str):
    """(callee name, device context?) for every kernel call in a function variant."""
    found = []

    def visit(stmts, in_region):
        for stmt in stmts:
            region_here = in_region or (variant == "host" and isinstance(stmt, n.For) and stmt.parallel is not None)
            for node in own_exprs(stmt):
                for sub in n.walk(node):
                    if isinstance(sub, n.Call) and sub.kind == "kernel":
                        found.append((sub.func, variant == "device" or in_region))
            for block in nested_bodies(stmt):
                visit(block, region_here)

    visit(function.body, False)
    return found


def _plan_variants(module, entries) -> tuple:
    """The (function, variant) pairs to emit and, per function, whether it has a host variant
    of its own (else one ``KOKKOS_INLINE_FUNCTION`` serves host and device code)."""
    host_variant = {name: _needs_host_variant(f) for name, f in module.functions.items()}
    needed = set()
    work = [(name, "host") for name in entries]
    while work:
        name, variant = work.pop()
        if name not in module.functions:
            raise BackendError(f"call of unknown kernel {name}")
        if variant == "host" and not host_variant[name]:
            variant = "device"
        if (name, variant) in needed:
            continue
        needed.add((name, variant))
        for callee, device in _calls(module.functions[name], variant):
            work.append((callee, "device" if device else "host"))
    return needed, host_variant


def _describe(module, entries) -> str:
    parts = []
    for name in entries:
        f = module.functions[name]
        parts.append(f"{name}(" + ", ".join(str(p.type) for p in f.params) + ")")
    return ", ".join(parts)


def _render_region(model) -> str:
    return _ENV.get_template("region.cpp.j2").render(**model.__dict__)


def _binding(entry_function, namespace, symbol, written) -> EntryModel:
    f = entry_function
    params = [ParamBinding(p.name, p.type, p.name in written) for p in f.params]
    entry = EntryModel(
        symbol=symbol, function=f.name, namespace=namespace,
        cxx_name=f.name, params=params, arg_types=tuple(p.type for p in f.params), return_type=f.return_type,
    )
    owners = []
    function_name = c_string(f.name)
    for position, p in enumerate(params):
        arg = identifier(p.name)
        if isinstance(p.type, ArrayType):
            t = p.type
            entry.conversions.append(
                f"auto {arg} = kpc::from_numpy<{scalar_type(t.dtype)}, {t.ndim}, {LAYOUTS[t.layout]}>"
                f"(args[{position}], {function_name}, {c_string(p.name)}, {'true' if p.written else 'false'});")
            entry.call_args.append(f"{arg}.view")
            owners.append(f"{arg}.owner")
        elif isinstance(p.type, DTypeType):
            continue  # the dtype is part of the specialization: the C++ function does not take it
        elif isinstance(p.type, ScalarType):
            entry.conversions.append(
                f"const auto {arg} = kpc::scalar_arg<{scalar_type(p.type)}>(args[{position}], {function_name}, "
                f"{c_string(p.name)});")
            entry.call_args.append(arg)
        else:
            raise BackendError(f"parameter {p.name!r} of @{f.name} has type {p.type}, which kpc cannot take "
                               "from Python yet", f.loc)
    entry.returns_object = _has_array(f.return_type)
    if entry.returns_object:
        entry.call_args += owners
    entry.returns_value = not isinstance(f.return_type, NoneType)
    entry.function_literal = function_name
    return entry


def _has_array(t) -> bool:
    if isinstance(t, ArrayType):
        return True
    if isinstance(t, TupleType):
        return any(_has_array(e) for e in t.elements)
    return False


def emit_translation_unit(specializations, space: str = "openmp", source: str = "", generated_name: str = "module.cpp"):
    """The C++ source of one module: every specialization, with bindings for its entries."""
    if space not in EXEC_SPACES:
        raise BackendError(f"unknown execution space {space!r}; expected one of {', '.join(EXEC_SPACES)}")
    spec_models, entries = [], []
    fastmath, scatter = True, False
    draws = any(isinstance(node, n.Call) and node.kind == "random"
                for spec in specializations for node in n.walk(list(spec.module.functions.values())))
    routines = {node.func for spec in specializations for node in n.walk(list(spec.module.functions.values()))
                if isinstance(node, n.Call) and node.kind == "builtin" and node.func in HOST_ROUTINES}
    products = "matmul" in routines
    ordered = any(isinstance(node, n.Call) and node.kind == "builtin"
                  and (node.func in ORDER_ROUTINES or node.func in ORDER_READERS)
                  for spec in specializations for node in n.walk(list(spec.module.functions.values())))
    linalg = bool(routines - {"matmul"})
    if linalg and space == "cuda":
        raise BackendError("np.linalg, np.histogram, np.cov and np.bincount are translated for host execution "
                           "spaces only (kpc_linalg.hpp runs on the host)")
    for index, spec in enumerate(specializations):
        module = spec.module
        namespace = f"s{index}"
        needed, host_variant = _plan_variants(module, spec.entries)
        render_region = _render_region
        if space == "cuda":
            fenced = cuda.needs_fences(module, {name for name, variant in needed if variant == "host"})
            render_region = cuda.region_renderer(_render_region, fenced)
        has_regions = {name: _has_regions(f) for name, f in module.functions.items()}
        context = _UnitContext(module, namespace, host_variant, space)
        written = analysis.written_params(module)
        functions, accumulators = [], []
        touches_python = False
        loops = any(isinstance(node, (n.For, n.While)) for f in module.functions.values() for node in n.walk(f))
        for name in module.bottom_up():
            for variant in ("device", "host"):
                if (name, variant) not in needed:
                    continue
                function = module.functions[name]
                fastmath = fastmath and bool(function.options.get("fastmath"))
                emitter = FunctionEmitter(context, function, variant, render_region)
                functions.append(emitter.model())
                accumulators += emitter.accumulators
                scatter = scatter or emitter.uses_scatter
                touches_python = touches_python or bool(emitter.owners)
        for name in spec.entries:
            f = module.functions[name]
            entry = _binding(f, namespace, f"{name}__{namespace}", written[name])
            entry.releases_gil = loops and not touches_python
            if space == "cuda":
                cuda.adapt_entry(entry, module, name, has_regions)
            entries.append(entry)
        spec_models.append(SpecializationModel(namespace, _describe(module, spec.entries), functions, accumulators))
    text = _ENV.get_template("module.cpp.j2").render(
        version=__version__, source=source or "(unknown)", space=space, exec_space=EXEC_SPACES[space],
        specializations=spec_models, entries=entries, scatter=scatter, draws=draws, linalg=linalg,
        products=products, ordered=ordered,
    )
    if space == "cuda":
        text = cuda.finish_source(text)
    return TranslationUnit(
        source=_reset_lines(text, generated_name), entries=entries, space=space,
        fastmath=fastmath and bool(specializations), headers_digest=headers_digest(),
    )


def _reset_lines(text: str, generated_name: str) -> str:
    """Replace the markers after each function by ``#line`` directives back to the generated file."""
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if line == _LINE_RESET:
            lines[number - 1] = f"#line {number + 1} {c_string(generated_name)}"
    return "\n".join(lines)

