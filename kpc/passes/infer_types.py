"""infer-types: type every expression, local, parameter and return value with Numba's rules, across calls.

Parameter types come from the signature (eager, or given to ``load_module`` / ``kpc ir
--signature``), from the call sites for functions called by other kernels (callers
are typed first; a device function called with types that do not unify is an error
naming both sites), or, for an entry without a signature (generic mode, the PyKokkos
target), from its uses: arrays get their rank from ``infer_view_dims.param_uses`` and
dtype float64, integer-used scalars int64, other scalars float64; each such choice is
recorded in ``Function.assumptions``. Locals unify all their assignments (int then
float gives float64, as in Numba; an int then an array is an error naming both
assignments). The rules themselves are in ``numba_rules``; ``function_typing`` types one
function's body, ``numpy_typing`` the NumPy calls in it. Scalar calls of NumPy ufuncs
(``np.sqrt(x)``) become ``Call(kind="math")``.

A type error raises ``KpcError``, except in a kernel typed only from assumptions (no
signature on it or on any kernel calling it): that kernel and its callers move to
``Module.rejected`` with the diagnostic (they stay Numba) and the rest is typed again.

Before::

    func @lj(r: ?) -> ?   role=entry
      sr6 = (1.0 / r) ** 6
      return 4.0 * (sr6 * sr6 - sr6)

After (called as ``lj(r)`` with ``r: f64`` from another kernel)::

    func @lj(r: f64) -> f64   role=entry
      sr6: f64 = (1.0 / r) ** 6
      return 4.0 * (sr6 * sr6 - sr6)

>>> from kpc.frontend import parse_module
>>> from kpc.passes.manager import PassContext, run_pipeline
>>> m = parse_module('''
... from numba import njit
... @njit("f4(f4[:], i4)")
... def scaled(a, k):
...     s = 0
...     for i in range(k):
...         s += a[i] * 2
...     return s / k
... ''', "m.py")
>>> _ = run_pipeline(m, PassContext(), ["infer-types"])
>>> print(format_function(m.functions["scaled"]))
func @scaled(a: f32[:], k: i32) -> f32   role=entry signatures=['f4(f4[:], i4)']
  s: f64 = 0
  for i: i32 in range(0, k):
    s += a[i] * 2
  return s / k
"""

from __future__ import annotations

import copy
import heapq

import networkx as nx

from kpc.ir import nodes as n
from kpc.ir.diagnostics import Diagnostic, KpcError, Note, source_line_at
from kpc.ir.module import Rejected
from kpc.ir.printer import format_function  # noqa: F401  (doctest)
from kpc.ir.types import FLOAT64, INT64, UNKNOWN, ArrayType, DTypeType, scalar

from . import numba_rules as rules
from .function_typing import MAX_SWEEPS, FunctionTyping
from .infer_view_dims import param_uses
from .manager import Pass, register
from .split_rebindings import split_rebinding, split_rebinding_at


@register
class InferTypes(Pass):
    """Type the module: parameters, locals, every expression, return types; interprocedural."""

    name = "infer-types"

    def apply(self, ctx, module) -> None:
        declared = {name for name, f in module.functions.items() if all(p.type != UNKNOWN for p in f.params)}
        while True:
            typing = ModuleTyping(module, ctx)
            try:
                typing.run()
                return
            except KpcError as error:
                culprit = typing.current
                rebinding = getattr(error, "rebinding", None)
                if rebinding is not None and culprit is not None \
                        and split_rebinding(module.functions[culprit], rebinding[1], rebinding[0]):
                    ctx.analyses.pop("param-uses", None)
                    continue
                at = getattr(error, "rebinding_at", None)
                if at is not None and at[0] in module.functions and split_rebinding_at(module.functions[at[0]], *at[1:]):
                    ctx.analyses.pop("param-uses", None)
                    continue
                conflict = getattr(error, "call_site", None)
                if conflict is not None and specialize_callee(module, typing, *conflict):
                    ctx.analyses.pop("param-uses", None)
                    continue
                if culprit is None or not _generic_chain(module, culprit, declared):
                    raise
                _reject_generic(module, culprit, error)
                ctx.analyses.pop("param-uses", None)


MAX_SPECIALIZATIONS = 16


def specialize_callee(module, typing, callee: str, call: n.Call, types: tuple) -> bool:
    """Give ``call`` and the other call sites of ``callee`` that pass its argument ``types``
    (types another site's or the callee's signature do not take: ``norm2(a)`` of a vector,
    ``norm2(m)`` of a matrix) a copy of ``callee`` of their own, ``<callee>_<k>``: Numba compiles
    a helper once per argument types. False where ``callee`` has an eager signature or was
    copied too often already."""
    function = module.functions[callee]
    origin = function.specialized_from or callee
    copies = [f for f in module.functions.values() if f.specialized_from == origin]
    if function.signatures or len(copies) >= MAX_SPECIALIZATIONS:
        return False
    k = 2
    while f"{origin}_{k}" in module.functions or f"{origin}_{k}" in module.rejected:
        k += 1
    clone = copy.deepcopy(function)
    clone.name = f"{origin}_{k}"
    clone.specialized_from = origin
    for param in clone.params:
        param.type = UNKNOWN
    clone.return_type = UNKNOWN
    module.functions[clone.name] = clone
    call.func = clone.name
    for other, (_, _, other_types) in typing.sites.get(callee, {}).items():
        if tuple(other_types) == types and other in typing.site_calls:
            typing.site_calls[other].func = clone.name
    module.rebuild_callgraph()
    return True


def _generic_chain(module, name: str, declared: set) -> bool:
    """Whether ``name`` and every kernel calling it, directly or not, were typed without a signature."""
    chain = {name} | nx.ancestors(module.callgraph, name)
    return not chain & declared


def _reject_generic(module, name: str, error: KpcError) -> None:
    """Keep ``name`` and its callers as Numba: their types were only assumed and do not work out.

    With signatures the same error is raised instead (the types were given, so the code is wrong).
    """
    callers = nx.ancestors(module.callgraph, name)
    module.rejected[name] = Rejected(name, error.diagnostic, error.loc, guessed=True)
    for caller in sorted(callers):
        site = next((s for callee in module.callees(caller) if callee == name or callee in callers
                     for s in module.sites(caller, callee)), None)
        loc = site.loc if site is not None else module.functions[caller].loc
        diagnostic = Diagnostic(f"kernel '{caller}' calls '{name}', which kpc cannot type without a signature "
                                f"(it stays a Numba function)", loc, "call to a rejected kernel",
                                f"fix the diagnostic of '{name}' first", source_line_at(loc, module.source))
        module.rejected[caller] = Rejected(caller, diagnostic, loc, guessed=True)
    for rejected in [name, *callers]:
        del module.functions[rejected]
    module.rebuild_callgraph()


class ModuleTyping:
    """Types the functions of a module to a fixed point over the call graph (callers first)."""

    def __init__(self, module, ctx):
        self.module = module
        self.ctx = ctx
        self.source = module.source
        self.returns: dict = {}
        self.sites: dict = {name: {} for name in module.functions}
        self.params: dict = {}
        self.generic: dict = {}
        self.guessed: dict = {}  # name -> the notes of its generic types the body does not settle
        self.uses = None
        self.current = None
        # id of a call node -> the node, for each call site in ``sites``
        self.site_calls: dict = {}

    def error(self, loc, message: str, construct: str = "type error", hint: str = "", notes=None) -> KpcError:
        return KpcError.at(loc, message, construct, hint, self.source, notes=notes)

    def run(self) -> None:
        module = self.module
        order = list(reversed(module.bottom_up()))
        position = {name: i for i, name in enumerate(order)}
        queue = list(range(len(order)))
        queued = set(queue)
        converged = {}
        visits = 0
        while queue:
            visits += 1
            if visits > MAX_SWEEPS * max(1, len(order)):
                raise self.error(module.functions[self.current].loc,
                                 f"the types of kernel '{self.current}' and its callers do not settle "
                                 f"after {MAX_SWEEPS} rounds over the call graph", "type inference",
                                 "give the kernel a signature (--signature or @njit(\"...\"))")
            index = heapq.heappop(queue)
            queued.discard(index)
            name = order[index]
            self.current = name
            typing = FunctionTyping(self, module.functions[name], self.param_types(module.functions[name]))
            typing.converge()
            converged[name] = typing
            dirty = []
            returned = typing.return_type
            if returned != self.returns.get(name, UNKNOWN):
                self.returns[name] = returned
                dirty += module.callers(name)
            for callee, records in typing.calls.items():
                self.site_calls.update((id(call), call) for call, _ in records)
                if replace_records(self.sites[callee], name, records):
                    dirty.append(callee)
            for other in dirty:
                if position[other] not in queued:
                    queued.add(position[other])
                    heapq.heappush(queue, position[other])
        for name in order:
            self.current = name
            converged[name].finish()
        self.current = None
        for name in order:
            function = module.functions[name]
            typing = converged[name]
            for param, ty in zip(function.params, typing.params):
                param.type = ty
            function.locals = typing.local_types()
            if function.return_type == UNKNOWN:
                function.return_type = typing.return_type
            if self.generic.get(name):
                function.assumptions = list(self.generic[name])
                function.guessed = list(self.guessed.get(name, []))

    # -- parameters
    def param_types(self, function: n.Function) -> list:
        if all(p.type != UNKNOWN for p in function.params):
            return [p.type for p in function.params]
        callers = self.module.callers(function.name)
        if callers:
            return self.from_call_sites(function)
        return self.generic_params(function)

    def from_call_sites(self, function: n.Function) -> list:
        result = [p.type for p in function.params]
        first = [None] * len(result)
        for site_id, (loc, caller, types) in sorted(self.sites[function.name].items(), key=_site_order):
            for i, (param, ty) in enumerate(zip(function.params, types)):
                if param.type != UNKNOWN or ty == UNKNOWN:
                    continue
                if first[i] is None:
                    first[i] = (loc, ty)
                    result[i] = ty
                    continue
                unified = rules.unify(result[i], ty)
                if unified is None:
                    error = self.error(
                        loc, f"kernel '{function.name}' is called with {param.name}: {ty} here but "
                             f"{param.name}: {first[i][1]} at {first[i][0]}", "type conflict",
                        "kpc gives each device function one signature: make every call pass the same "
                        "types (float(x), a.astype(...), a[i, :] for rows)",
                        notes=[Note(f"called with {param.name}: {first[i][1]} here", first[i][0])])
                    if site_id in self.site_calls:  # infer-types tries a copy per types first
                        error.call_site = (function.name, self.site_calls[site_id], tuple(types))
                    raise error
                if ty != result[i]:
                    self.warn(loc, f"'{function.name}' is called with {param.name}: {ty} here and "
                                   f"{first[i][1]} at {first[i][0]}; both calls use {unified}")
                result[i] = unified
        return result

    def warn(self, loc, message: str) -> None:
        diagnostic = Diagnostic(message, loc, "type unification", severity="warning")
        if all(d.message != message for d in self.ctx.warnings if isinstance(d, Diagnostic)):
            self.ctx.warnings.append(diagnostic)

    def generic_params(self, function: n.Function) -> list:
        """Types of an entry without a signature, from how its body uses the parameters."""
        if function.name in self.params:
            return self.params[function.name]
        if self.uses is None:
            self.uses = self.ctx.analysis("param-uses", self.module, param_uses)
        uses = self.uses.get(function.name, {})
        types, notes, guessed = [], [], []
        for param in function.params:
            if param.type != UNKNOWN:
                types.append(param.type)
                continue
            if isinstance(param.default, n.GlobalConst) and param.default.name.startswith("np."):
                types.append(DTypeType(scalar(param.default.value)))  # dtype=np.float64: a dtype
                notes.append(f"{param.name}: {types[-1]} (no signature; the default's)")
                continue
            ty, note, settled = assumed_type(param.name, uses.get(param.name))
            types.append(ty)
            notes.append(note)
            if not settled:
                guessed.append(note)
        self.params[function.name] = types
        self.generic[function.name] = notes
        self.guessed[function.name] = guessed
        return types


def assumed_type(name: str, use) -> tuple:
    """``(type, note, settled)``: what infer-types assumes for a parameter without a signature
    from ``use`` (its ``param_uses`` entry), the note saying why, and whether the body settles
    it (an integer use, integer elements, a rank from indexing) or it is a guess (float64 for an
    unknown dtype, rank 1) that a call's real types may contradict."""
    if use is not None and use.array:
        rank = use.rank or 1
        why = use.reason if use.rank else "used as an array, rank 1 assumed"
        if use.integer_elements:
            ty, dtype_why = ArrayType(INT64, rank), f"dtype int64: {use.integer_elements}"
        else:
            ty, dtype_why = ArrayType(FLOAT64, rank), "dtype float64 assumed"
        return ty, f"{name}: {ty} (no signature; {dtype_why}; rank {rank}: {why})", bool(
            use.rank and use.integer_elements)
    if use is not None and use.integer:
        return INT64, f"{name}: {INT64} (no signature; used as {use.integer})", True
    return FLOAT64, f"{name}: {FLOAT64} (no signature; a scalar not used as an integer)", False


def guessed_types(module, name: str) -> list:
    """The notes of ``name``'s parameter types that infer-types would only guess (see
    ``assumed_type``); empty when a signature or the body settles every one. When the ranks
    guessed for a parameter conflict (``param_uses`` raises: a helper whose own body suggests
    1-D views is passed a matrix), every parameter without a type is a guess: the call decides."""
    function = module.functions[name]
    try:
        uses = param_uses(module).get(name, {})
    except KpcError as error:
        why = str(error.diagnostic.message if getattr(error, "diagnostic", None) else error).splitlines()[0]
        unknown = [param.name for param in function.params if param.type == UNKNOWN]
        if not any(f"'{name}'" in why for name in unknown):
            return []  # a local's ranks conflict (Xi = Xi[1]): no argument types change that
        return [f"{', '.join(unknown)}: types guessed, and the ranks guessed from their uses conflict ({why})"]
    guesses = []
    for param in function.params:
        if param.type == UNKNOWN:
            _, note, settled = assumed_type(param.name, uses.get(param.name))
            if not settled:
                guesses.append(note)
    return guesses


def integer_guess(module, name: str) -> list | None:
    """``name``'s parameter types with every guess made an integer (int64 scalars, int64 elements
    of arrays of the guessed rank), or None when nothing is guessed: the second guess
    ``--explain`` shows decisions under when the first one (float64) does not type."""
    function = module.functions[name]
    try:
        uses = param_uses(module).get(name, {})
    except KpcError:
        return None
    types, changed = [], False
    for param in function.params:
        if param.type != UNKNOWN:
            types.append(param.type)
            continue
        ty, _, settled = assumed_type(param.name, uses.get(param.name))
        if not settled:
            ty = ArrayType(INT64, ty.ndim) if isinstance(ty, ArrayType) else INT64
            changed = True
        types.append(ty)
    return types if changed else None


def _site_order(item):
    loc = item[1][0]
    return (loc.line, loc.col)


def replace_records(table: dict, caller: str, records: list) -> bool:
    """Replace ``caller``'s call records in ``table`` (site id -> (loc, caller, arg types));
    True if the table changed."""
    old = dict(table)
    for key in [k for k, v in table.items() if v[1] == caller]:
        del table[key]
    for call, types in records:
        table[id(call)] = (call.loc, caller, types)
    return table != old
