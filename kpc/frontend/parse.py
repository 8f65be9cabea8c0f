"""Source module -> IR ``Module``: find the kernels, lower each, apply signatures, reject what cannot go.

A kernel that cannot be translated is recorded in ``Module.rejected`` with its
diagnostic (it stays a Numba function in the output), and so is every kernel that
calls it, directly or not; recursion (direct or mutual) is found on the call graph.
With ``strict=True`` the first diagnostic is raised instead.
"""

from __future__ import annotations

import ast
import dataclasses

import networkx as nx

from kpc.ir import python_source
from kpc.ir.diagnostics import KpcError
from kpc.ir.module import Module, Rejected
from kpc.ir import nodes as n
from kpc.ir.intrinsics import NUMPY_DTYPES
from kpc.ir.nodes import Call, Loc, walk
from kpc.ir.signature import Signature, SignatureError, parse_named_signature, parse_signature
from kpc.ir.types import UNKNOWN, ArrayType, DTypeType, scalar

from .decorators import DecoratorReader
from .gufuncs import LOOP as GUFUNC_LOOP, LayoutError, loop_kernel, parse_layout
from .lower import FunctionLowering
from .scope import ModuleScope
from .stencils import AT as STENCIL_AT, INTO as STENCIL_INTO, NEW as STENCIL_NEW
from .stencils import PARFOR_AT, PARFOR_INTO, PARFOR_NEW
from .stencils import SCOPE_NAMES as STENCIL_SCOPE_NAMES, StencilError, StencilSpec
from .stencils import rename_calls as rename_stencil_calls
from .ufuncs import array_kernels, kernel_options
from .unsupported import hint


def parse_module(source: str, path: str = "<string>", signatures=None, strict: bool = False) -> Module:
    """Parse ``source`` (the text of ``path``) into an untyped IR module.

    ``signatures``: types to give kernels, overriding their eager signatures: a dict
    ``name -> "f8(f8[:])" | "(f8[:],)" | Signature`` or a list of ``"name(f8[:]) -> f8"``.
    A kernel without one keeps its first eager signature, else stays generic (``?``).
    """
    try:
        tree = python_source.parse(source, filename=path)
    except SyntaxError as err:
        loc = Loc(path, err.lineno or 0, max((err.offset or 1) - 1, 0))
        end = (err.end_offset - 1) if err.end_offset and err.end_lineno == err.lineno else -1
        raise KpcError.at(loc, f"syntax error: {err.msg}", "syntax", hint("syntax"), source, end) from None
    scope = ModuleScope.from_tree(tree)
    reader = DecoratorReader(scope, path, source)
    module = Module(path, source, imports=list(scope.imports))
    overrides = _normalize_signatures(signatures, path)

    defs = [s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    kernels = {d.name for d in defs if any(reader.numba_decorator(x) for x in d.decorator_list)}
    stencils = {d.name for d in defs if any(reader.numba_decorator(x) == "stencil" for x in d.decorator_list)}
    gufuncs = {d.name for d in defs if any(reader.numba_decorator(x) == "guvectorize" for x in d.decorator_list)}
    ufuncs = {d.name for d in defs if any(reader.numba_decorator(x) == "vectorize" for x in d.decorator_list)}
    if stencils or gufuncs or ufuncs:
        scope.aliases.update(STENCIL_SCOPE_NAMES)
        kernels |= {GUFUNC_LOOP.format(g) for g in gufuncs}
    if stencils:
        kernels |= {name.format(s) for s in stencils
                    for name in (STENCIL_AT, STENCIL_INTO, STENCIL_NEW, PARFOR_AT, PARFOR_INTO, PARFOR_NEW)}
    for fdef in defs:
        try:
            spec = reader.read(fdef)
            if spec is None:
                continue
            if spec.spelling == "stencil":
                overrides.pop(fdef.name, None)  # called from Python: the pipeline types its kernels
                for function in _stencil_kernels(fdef, spec, scope, kernels, path, source):
                    signature = overrides.pop(function.name, None)
                    if signature is not None:
                        _apply_signature(function, signature, function.loc, source)
                    module.add(function)
                continue
            if stencils:
                rename_stencil_calls(fdef, stencils, parfor=spec.options.get("parallel") is True)
            function = FunctionLowering(fdef, spec, scope, kernels, path, source).lower()
            if spec.spelling == "guvectorize":
                overrides.pop(fdef.name, None)  # the loop kernel is typed per call (pipeline)
                for kernel in _gufunc_kernels(fdef, function, spec, scope, kernels, path, source):
                    signature = overrides.pop(kernel.name, None)
                    if signature is not None:
                        _apply_signature(kernel, signature, kernel.loc, source)
                    module.add(kernel)
                continue
            if spec.spelling == "vectorize":
                # a ufunc's loops are typed per call (kpc.runtime.ufunc casts to the loop's types)
                function.options["vectorize"] = {
                    "target": spec.options.get("target", "cpu"), "nin": len(function.params),
                    "loops": [[[t.numpy_name for t in sig.args], sig.return_type.numpy_name] for sig in spec.parsed]}
                function.signatures = []
                ufunc_kernels = _ufunc_kernels(fdef, spec, scope, kernels | {fdef.name}, path, source)
                signature = overrides.pop(fdef.name, None)
                if signature is not None and any(isinstance(t, ArrayType) for t in signature.args):
                    signature = None  # a ufunc of arrays: its array kernels are typed instead (pipeline)
            else:
                ufunc_kernels = []
                signature = overrides.pop(fdef.name, None) or (spec.parsed[0] if spec.parsed else None)
            if signature is not None:
                _apply_signature(function, signature, spec.loc or function.loc, source)
        except KpcError as err:
            if strict:
                raise
            module.rejected[fdef.name] = Rejected(fdef.name, err.diagnostic, err.loc)
            overrides.pop(fdef.name, None)  # a kernel kept as Numba: its --signature has nothing to type
            continue
        module.add(function)
        for kernel in ufunc_kernels:
            signature = overrides.pop(kernel.name, None)
            if signature is not None:
                _apply_signature(kernel, signature, kernel.loc, source)
            module.add(kernel)
    if overrides:
        name = next(iter(overrides))
        known = ", ".join(module.functions) or "none"
        raise KpcError.at(Loc(path, 0, 0), f"--signature names {name!r}, which is not a kernel of "
                                           f"{path} (kernels: {known})", "signature")
    module.rebuild_callgraph()
    _reject_recursion(module, source, strict)
    if module.rejected:
        _reject_callers_of_rejected(module, kernels, source, strict)
        module.rebuild_callgraph()
    return module


def _ufunc_kernels(fdef, spec, scope, kernels: set, path: str, source: str) -> list:
    """The array kernels of the ``@vectorize`` function ``fdef`` (``kpc.frontend.ufuncs``), lowered."""
    from .decorators import JitSpec

    options = kernel_options(spec.options)
    lowered = []
    for kernel in array_kernels(fdef):
        function = FunctionLowering(kernel, JitSpec("njit", dict(options), loc=spec.loc), scope, kernels,
                                    path, source).lower()
        function.options["ufunc_of"] = fdef.name
        lowered.append(function)
    return lowered


def _writable_inputs(fdef, layout, writable) -> list:
    """The positions of the inputs ``writable_args`` names (names or positions, as Numba takes
    them): the gufunc writes those back into the caller's arrays."""
    params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
    positions = []
    for item in writable:
        position = item if isinstance(item, int) else params.index(item) if item in params else None
        if position is None or not 0 <= position < layout.nin:
            raise LayoutError(f"writable_args names {item!r}, which is not an input of '{fdef.name}'")
        positions.append(position)
    return sorted(set(positions))


def _gufunc_kernels(fdef, function, spec, scope, kernels: set, path: str, source: str) -> list:
    """The ``@guvectorize`` function (a device kernel, ``function``) and its loop kernel
    (``kpc.frontend.gufuncs``), lowered; the layout checked as Numba checks it."""
    from .decorators import JitSpec

    try:
        layout = parse_layout(spec.options["layout"])
        loop = loop_kernel(fdef, layout)
        for parsed in spec.parsed:
            if len(parsed.args) != len(layout.inputs) + len(layout.outputs):
                raise LayoutError(f"signature {parsed} has {len(parsed.args)} types for a layout of "
                                  f"{len(layout.inputs) + len(layout.outputs)} arguments")
            for ty, group in zip(parsed.args, layout.inputs + layout.outputs):
                rank = getattr(ty, "ndim", 0)
                if rank != len(group) and not (rank == 1 and not group):
                    raise LayoutError(f"signature {parsed}: {ty} does not have the rank of ({', '.join(group)})")
        writable = _writable_inputs(fdef, layout, spec.options.get("writable_args") or ())
    except LayoutError as error:
        raise KpcError.at(spec.loc or function.loc, f"unsupported construct 'gufunc layout' on '{fdef.name}': "
                                                    f"{error}", "gufunc layout", "", source) from None
    function.signatures = []
    function.options["guvectorize"] = {"layout": {**layout.as_dict(), "writable": writable},
                                       "target": spec.options.get("target", "cpu"),
                                       "loop": GUFUNC_LOOP.format(fdef.name), "loops": [
                                           [[getattr(t, "dtype", t).numpy_name for t in parsed.args[:layout.nin]],
                                            [getattr(t, "dtype", t).numpy_name for t in parsed.args[layout.nin:]]]
                                           for parsed in spec.parsed]}
    options = kernel_options(spec.options)
    lowered = FunctionLowering(loop, JitSpec("njit", options, loc=spec.loc), scope, kernels, path, source).lower()
    lowered.options["gufunc_of"] = fdef.name
    return [function, lowered]


def _stencil_kernels(fdef, spec, scope, kernels: set, path: str, source: str) -> list:
    """The kernels of the ``@stencil`` function ``fdef`` (``kpc.frontend.stencils``), lowered."""
    from .decorators import JitSpec

    try:
        stencil = StencilSpec.read(fdef, spec.options)
    except StencilError as error:
        node = error.node
        raise KpcError.at(Loc(path, node.lineno, node.col_offset), f"unsupported construct 'stencil' "
                          f"'{fdef.name}': {error}", "stencil", hint("stencil"), source) from None
    lowered = []
    for parfor in (False, True):
        for kernel, parallel in zip(stencil.kernels(parfor), (False, True, True)):
            options = {"parallel": True} if parallel else {}
            if parfor:
                options["error_model"] = "numpy"  # Numba's parfor of the stencil
            function = FunctionLowering(kernel, JitSpec("njit", options, loc=spec.loc), scope, kernels,
                                        path, source).lower()
            function.options["stencil_of"] = fdef.name
            lowered.append(function)
    lowered[1].options["stencil"] = {"name": fdef.name, "nin": len(stencil.params),
                                     "new": lowered[2].name, "into": lowered[1].name}
    return lowered


def _normalize_signatures(signatures, path: str) -> dict:
    if not signatures:
        return {}
    items = signatures.items() if isinstance(signatures, dict) else [(None, s) for s in signatures]
    result = {}
    for name, value in items:
        if isinstance(value, Signature):
            sig = value
        else:
            try:
                sig = parse_signature(value, name) if name else parse_named_signature(value)
            except SignatureError as err:
                raise KpcError.at(Loc(path, 0, 0), f"bad signature: {err}", "signature",
                                  hint("eager signature")) from None
        name = name or sig.name
        if name is None:
            raise KpcError.at(Loc(path, 0, 0), f"signature {value!r} does not name a function: write "
                                               "'name(float64[:, :], int64)'", "signature")
        result[name] = sig
    return result


def _apply_signature(function, signature: Signature, loc: Loc, source: str) -> None:
    args = list(signature.args)
    for param in function.params[len(args):]:
        # a dtype parameter left out takes its default's type, as the call would pass it
        if not (isinstance(param.default, n.GlobalConst) and isinstance(param.default.value, str)
                and param.default.value in NUMPY_DTYPES.values()):
            break
        args.append(DTypeType(scalar(param.default.value)))
    if len(args) == len(function.params):
        signature = dataclasses.replace(signature, args=tuple(args))
    if len(signature.args) != len(function.params):
        raise KpcError.at(loc, f"signature {signature.text or signature} of '{function.name}' has "
                               f"{len(signature.args)} argument types but the function takes "
                               f"{len(function.params)} parameters", "eager signature",
                          hint("eager signature"), source)
    for param, ty in zip(function.params, signature.args):
        param.type = ty
    function.return_type = signature.return_type if signature.return_type is not None else UNKNOWN


def _reject(module: Module, name: str, error: KpcError, strict: bool) -> None:
    if strict:
        raise error
    module.rejected[name] = Rejected(name, error.diagnostic, error.loc)
    del module.functions[name]


def _reject_recursion(module: Module, source: str, strict: bool) -> None:
    graph = module.callgraph
    cyclic = set()
    for component in nx.strongly_connected_components(graph):
        if len(component) > 1 or any(graph.has_edge(f, f) for f in component):
            cyclic |= component
    for name in [f for f in module.functions if f in cyclic]:
        callee = next(c for c in module.callees(name) if c in cyclic and
                      nx.has_path(graph, c, name))
        site = module.sites(name, callee)[0]
        path = nx.shortest_path(graph, callee, name)
        chain = " -> ".join([name] + path)
        error = KpcError.at(site.loc, f"unsupported construct 'recursion' in kernel '{name}': {chain}",
                            "recursion", hint("recursion"), source)
        _reject(module, name, error, strict)


def _reject_callers_of_rejected(module: Module, kernels: set, source: str, strict: bool) -> None:
    changed = True
    while changed:
        changed = False
        for name, function in list(module.functions.items()):
            for node in walk(function):
                if isinstance(node, Call) and node.kind == "kernel" and node.func not in module.functions \
                        and (node.func in module.rejected or node.func in kernels):
                    error = KpcError.at(
                        node.loc, f"kernel '{name}' calls '{node.func}', which kpc cannot translate "
                                  f"(it stays a Numba function)", "call to a rejected kernel",
                        f"fix the diagnostic of '{node.func}' first", source)
                    _reject(module, name, error, strict)
                    changed = True
                    break
