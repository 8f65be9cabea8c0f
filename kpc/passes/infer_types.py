"""infer-types: type every expression, local, parameter and return value with Numba's rules, across calls.

Parameter types come from the signature (eager, or given to ``load_module`` / ``kpc ir
--signature``), from the call sites for functions called by other kernels (callers
are typed first; a device function called with types that do not unify is an error
naming both sites), or, for an entry without a signature (generic mode, the PyKokkos
target), from its uses: arrays get their rank from ``infer_view_dims.param_uses`` and
dtype float64, integer-used scalars int64, other scalars float64; each such choice is
recorded in ``Function.assumptions``. Locals unify all their assignments (int then
float gives float64, as in Numba; an int then an array is an error naming both
assignments). The rules themselves are in ``numba_rules``. Scalar calls of NumPy
ufuncs (``np.sqrt(x)``) become ``Call(kind="math")``.

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

import heapq

import networkx as nx

from kpc.ir import intrinsics as lib
from kpc.ir import nodes as n
from kpc.ir.diagnostics import Diagnostic, KpcError, Note, source_line_at
from kpc.ir.module import Rejected
from kpc.ir.printer import format_expr, format_function  # noqa: F401  (format_function: doctest)
from kpc.ir.types import (
    BOOL, FLOAT64, INT32, INT64, NONE, SLICE, UNKNOWN, ArrayType, DTypeType, ScalarType, TupleType, Type, scalar,
)

from . import numba_rules as rules
from .infer_view_dims import param_uses
from .manager import Pass, register
from .numba_rules import TypingFailure

_MAX_SWEEPS = 64


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
                if culprit is None or not _generic_chain(module, culprit, declared):
                    raise
                _reject_generic(module, culprit, error)
                ctx.analyses.pop("param-uses", None)


def _generic_chain(module, name: str, declared: set) -> bool:
    """Whether ``name`` and every kernel calling it, directly or not, were typed without a signature."""
    chain = {name} | nx.ancestors(module.callgraph, name)
    return not chain & declared


def _reject_generic(module, name: str, error: KpcError) -> None:
    """Keep ``name`` and its callers as Numba: their types were only assumed and do not work out.

    With signatures the same error is raised instead (the types were given, so the code is wrong).
    """
    callers = nx.ancestors(module.callgraph, name)
    module.rejected[name] = Rejected(name, error.diagnostic, error.loc)
    for caller in sorted(callers):
        site = next((s for callee in module.callees(caller) if callee == name or callee in callers
                     for s in module.sites(caller, callee)), None)
        loc = site.loc if site is not None else module.functions[caller].loc
        diagnostic = Diagnostic(f"kernel '{caller}' calls '{name}', which kpc cannot type without a signature "
                                f"(it stays a Numba function)", loc, "call to a rejected kernel",
                                f"fix the diagnostic of '{name}' first", source_line_at(loc, module.source))
        module.rejected[caller] = Rejected(caller, diagnostic, loc)
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
        self.uses = None
        self.current = None

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
            if visits > _MAX_SWEEPS * max(1, len(order)):
                raise self.error(module.functions[self.current].loc,
                                 f"the types of kernel '{self.current}' and its callers do not settle "
                                 f"after {_MAX_SWEEPS} rounds over the call graph", "type inference",
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
                    raise self.error(
                        loc, f"kernel '{function.name}' is called with {param.name}: {ty} here but "
                             f"{param.name}: {first[i][1]} at {first[i][0]}", "type conflict",
                        "kpc gives each device function one signature: make every call pass the same "
                        "types (float(x), a.astype(...), a[i, :] for rows)",
                        notes=[Note(f"called with {param.name}: {first[i][1]} here", first[i][0])])
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
        types, notes = [], []
        for param in function.params:
            if param.type != UNKNOWN:
                types.append(param.type)
                continue
            ty, note, _ = assumed_type(param.name, uses.get(param.name))
            types.append(ty)
            notes.append(note)
        self.params[function.name] = types
        self.generic[function.name] = notes
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


class FunctionTyping:
    """Types one function's body given its parameter types; iterates until locals are stable."""

    def __init__(self, mt: ModuleTyping, function: n.Function, params: list):
        self.mt = mt
        self.function = function
        self.params = list(params)
        self.param_names = {p.name: i for i, p in enumerate(function.params)}
        self.declared = dict(function.options.get("locals") or {})
        self.first_def: dict = {}
        self.returns: list = []
        self.calls: dict = {}
        self.final = False
        self.unstable = False
        self.missed: set = set()

    def error(self, node, message: str, construct: str = "type error", hint: str = "", notes=None) -> KpcError:
        return self.mt.error(node.loc, message, construct, hint, notes)

    def fail(self, node, failure: TypingFailure) -> KpcError:
        return self.error(node, f"type error in kernel '{self.function.name}': {failure} "
                                f"(in {format_expr(node)})", hint=self.generic_hint())

    def generic_hint(self) -> str:
        """For functions typed without a signature: say that types were assumed, and how to give them."""
        if not self.mt.generic.get(self.function.name):
            return ""
        return (f"'{self.function.name}' has no signature, so kpc assumed its parameter types "
                f"({'; '.join(self.mt.generic[self.function.name])}); give the real ones with "
                f"--signature '{self.function.name}(...)' or an eager @njit signature")

    # -- driver
    def converge(self) -> None:
        """Type the body until no local changes type (one pass for straight-line code)."""
        for _ in range(_MAX_SWEEPS):
            self.unstable = False
            self.missed = set()
            self.returns = []
            self.calls = {}
            self.block(self.function.body)
            if not self.unstable:
                return
        raise self.error(self.function, f"the types of the locals of kernel '{self.function.name}' do not "
                                        f"settle after {_MAX_SWEEPS} passes over its body", "type inference",
                         "give the locals that change type a single type (float(x), x.astype(...))")

    def finish(self) -> None:
        """The last pass: every name must be known now; check the return statements."""
        self.final = True
        self.returns = []
        self.calls = {}
        self.block(self.function.body)
        self.check_returns()

    def local_types(self) -> dict:
        return {name: self.env_type(name) for name in self.first_def if name not in self.param_names}

    def env_type(self, name: str) -> Type:
        return self.declared.get(name) or self.first_def[name][1]

    @property
    def return_type(self) -> Type:
        declared = self.function.return_type
        if declared != UNKNOWN:
            return declared
        result = UNKNOWN
        values = [t for _, t in self.returns]
        if not values:
            return NONE
        for ty in values:
            unified = rules.unify(result, ty)
            result = unified if unified is not None else result
        return result

    # -- definitions
    def define(self, name: str, ty: Type, node) -> None:
        if ty == UNKNOWN:
            return
        if name in self.declared:
            if not rules.can_convert(ty, self.declared[name]):
                raise self.error(node, f"'{name}' is declared {self.declared[name]} (locals=) but assigned "
                                       f"a {ty} in kernel '{self.function.name}'", "type conflict")
            self.first_def.setdefault(name, (node.loc, self.declared[name]))
            return
        if name in self.param_names:
            current = self.params[self.param_names[name]]
            if current != UNKNOWN and rules.unify(current, ty) != current:
                raise self.error(node, f"parameter '{name}' of kernel '{self.function.name}' has type "
                                       f"{current} but is assigned a {ty}", "type conflict",
                                 self.generic_hint() or "assign the new value to a new variable")
            return
        if name not in self.first_def:
            self.first_def[name] = (node.loc, ty)
            if name in self.missed:
                self.unstable = True
            return
        first_loc, current = self.first_def[name]
        unified = rules.unify(current, ty)
        if unified is None:
            raise self.error(node, f"variable '{name}' in kernel '{self.function.name}' is assigned a {ty} "
                                   f"here but a {current} at {first_loc}", "type conflict",
                             "use a separate variable for each type",
                             notes=[Note(f"'{name}' is first assigned a {current} here", first_loc)])
        if unified != current:
            self.unstable = True
            self.first_def[name] = (first_loc, unified)

    def lookup(self, node: n.Name) -> Type:
        name = node.id
        if name in self.declared:
            return self.declared[name]
        if name in self.param_names:
            return self.params[self.param_names[name]]
        if name in self.first_def:
            return self.first_def[name][1]
        if self.final:
            raise self.error(node, f"name '{name}' is used in kernel '{self.function.name}' but never assigned",
                             "undefined name")
        self.missed.add(name)
        return UNKNOWN

    # -- statements
    def block(self, body: list) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, s) -> None:
        if isinstance(s, n.Assign):
            value = self.expr(s.value)
            self.store(s.target, value, s)
        elif isinstance(s, n.AugAssign):
            self.aug_assign(s)
        elif isinstance(s, n.For):
            self.for_loop(s)
        elif isinstance(s, n.While):
            self.truth(s.test)
            self.block(s.body)
        elif isinstance(s, n.If):
            self.truth(s.test)
            self.block(s.body)
            self.block(s.orelse)
        elif isinstance(s, n.Return):
            ty = NONE if s.value is None else self.expr(s.value)
            self.returns.append((s, ty))
        elif isinstance(s, n.ExprStmt):
            self.expr(s.value)

    def store(self, target, value: Type, stmt) -> None:
        if isinstance(target, n.Name):
            self.define(target.id, value, stmt)
            target.type = self.lookup(target) if self.final else value
        elif isinstance(target, n.Index):
            slot = self.expr(target)
            self.check_store(target, slot, value, stmt)
        elif isinstance(target, n.TupleExpr):
            if value == UNKNOWN:
                for element in target.elements:
                    self.store(element, UNKNOWN, stmt)
                return
            if not isinstance(value, TupleType) or len(value.elements) != len(target.elements):
                raise self.error(stmt, f"cannot unpack a {value} into {len(target.elements)} names "
                                       f"in kernel '{self.function.name}'")
            for element, ty in zip(target.elements, value.elements):
                self.store(element, ty, stmt)
            target.type = TupleType(tuple(e.type for e in target.elements))

    def check_store(self, target, slot: Type, value: Type, stmt) -> None:
        if slot == UNKNOWN or value == UNKNOWN:
            return
        if isinstance(slot, ScalarType) and not isinstance(value, ScalarType):
            raise self.error(stmt, f"cannot store a {value} into the element {format_expr(target)} ({slot}) "
                                   f"in kernel '{self.function.name}'")
        if isinstance(slot, ArrayType) and isinstance(value, ArrayType) and value.ndim > slot.ndim:
            raise self.error(stmt, f"cannot store a {value} into {format_expr(target)} ({slot}) "
                                   f"in kernel '{self.function.name}'")

    def aug_assign(self, s: n.AugAssign) -> None:
        value = self.expr(s.value)
        current = self.expr(s.target)
        if current == UNKNOWN or value == UNKNOWN:
            if isinstance(s.target, n.Name) and current == UNKNOWN and self.final:
                self.lookup(s.target)
            return
        try:
            result = rules.binop(s.op, current, value)
        except TypingFailure as failure:
            raise self.fail(s.target, failure) from None
        if isinstance(current, ArrayType):
            if isinstance(result, ArrayType) and result.ndim > current.ndim:
                raise self.error(s, f"in-place {s.op}= would change the rank of {format_expr(s.target)}")
            return
        if isinstance(s.target, n.Name):
            self.define(s.target.id, result, s)
            s.target.type = self.lookup(s.target)
        else:
            self.check_store(s.target, current, result, s)

    def for_loop(self, s: n.For) -> None:
        bounds = [self.expr(e) for e in (s.start, s.stop, s.step)]
        synthetic = (isinstance(s.start, n.Const) and s.start.value == 0 and isinstance(s.step, n.Const)
                     and s.step.value == 1 and s.start.loc == s.stop.loc == s.step.loc)
        explicit = [bounds[1]] if synthetic else bounds
        if UNKNOWN not in explicit:
            try:
                var_type = rules.range_type(explicit)
            except TypingFailure as failure:
                raise self.fail(s.stop, failure) from None
            self.define(s.var.id, var_type, s.var)
        s.var.type = self.lookup(s.var) if self.final else s.var.type
        self.block(s.body)

    def truth(self, expr) -> Type:
        ty = self.expr(expr)
        if isinstance(ty, ArrayType):
            raise self.error(expr, f"the truth value of an array ({format_expr(expr)}: {ty}) is ambiguous "
                                   f"in kernel '{self.function.name}'", hint="use np.any(...) or np.all(...)")
        if ty != UNKNOWN and not isinstance(ty, ScalarType):
            raise self.error(expr, f"a condition must be a number or a bool, got {ty}")
        return ty

    # -- expressions
    def expr(self, node) -> Type:
        ty = self.compute(node)
        node.type = ty
        return ty

    def compute(self, node) -> Type:
        if isinstance(node, n.Const):
            return rules.literal_type(node.value)
        if isinstance(node, n.GlobalConst):
            return rules.literal_type(node.value)
        if isinstance(node, n.Name):
            return self.lookup(node)
        try:
            return self.compound(node)
        except TypingFailure as failure:
            raise self.fail(node, failure) from None

    def compound(self, node) -> Type:
        if isinstance(node, n.BinOp):
            left, right = self.expr(node.left), self.expr(node.right)
            return UNKNOWN if UNKNOWN in (left, right) else rules.binop(node.op, left, right)
        if isinstance(node, n.UnaryOp):
            operand = self.truth(node.operand) if node.op == "not" else self.expr(node.operand)
            return UNKNOWN if operand == UNKNOWN else rules.unary(node.op, operand)
        if isinstance(node, n.Compare):
            left, right = self.expr(node.left), self.expr(node.right)
            return UNKNOWN if UNKNOWN in (left, right) else rules.compare(node.op, left, right)
        if isinstance(node, n.BoolOp):
            types = [self.truth(v) for v in node.values]
            return self.unify_all(node, types, "the operands of " + node.op)
        if isinstance(node, n.IfExp):
            self.truth(node.test)
            types = [self.expr(node.body), self.expr(node.orelse)]
            return self.unify_all(node, types, "the two branches of the conditional expression")
        if isinstance(node, n.Call):
            return self.call(node)
        if isinstance(node, n.Cast):
            value = self.expr(node.value)
            if isinstance(value, ArrayType):
                raise TypingFailure(f"{node.to}() of an array: use a.astype(np.{node.to.name})")
            if value != UNKNOWN and not isinstance(value, ScalarType):
                raise TypingFailure(f"cannot convert a {value} to {node.to}")
            if node.builtin:
                if value == UNKNOWN:
                    return UNKNOWN
                node.to = rules.builtin_cast(node.builtin, value, scalar(lib.CAST_BUILTINS[node.builtin]))
            return node.to
        if isinstance(node, n.Slice):
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    ty = self.expr(part)
                    if ty != UNKNOWN and not (isinstance(ty, ScalarType) and (ty.is_int or ty.is_bool)) \
                            and ty != NONE:
                        raise TypingFailure(f"slice bounds must be integers, got {ty}")
            return SLICE
        if isinstance(node, n.Index):
            base = self.expr(node.base)
            types = [self.expr(i) for i in node.indices]
            if base == UNKNOWN or UNKNOWN in types:
                return UNKNOWN
            consts = [i.value if isinstance(i, n.Const) else
                      ("strided" if isinstance(i, n.Slice) and i.step is not None else None)
                      for i in node.indices]
            return rules.index_type(base, types, consts)
        if isinstance(node, n.Attribute):
            base = self.expr(node.value)
            return UNKNOWN if base == UNKNOWN else rules.attribute_type(base, node.attr)
        if isinstance(node, n.TupleExpr):
            types = [self.expr(e) for e in node.elements]
            return UNKNOWN if UNKNOWN in types else TupleType(tuple(types))
        raise TypingFailure(f"cannot type {type(node).__name__}")

    def unify_all(self, node, types: list, what: str) -> Type:
        if UNKNOWN in types:
            return UNKNOWN
        result = types[0]
        for ty in types[1:]:
            unified = rules.unify(result, ty)
            if unified is None:
                raise TypingFailure(f"{what} have incompatible types {result} and {ty}")
            result = unified
        return result

    def call(self, node: n.Call) -> Type:
        args = [self.expr(a) for a in node.args]
        kwargs = {k: self.expr(v) for k, v in node.kwargs.items()}
        if node.kind == "kernel":
            return self.kernel_call(node, args)
        if UNKNOWN in args or UNKNOWN in kwargs.values():
            return UNKNOWN
        if node.kind == "math":
            name = node.func.split(".", 1)[1]
            if node.func.startswith("np."):
                return rules.ufunc_result(lib.NUMPY_UFUNCS[name], args)
            return rules.math_call(name, args)
        if node.kind == "builtin":
            return rules.builtin_call(node.func, args)
        if node.kind == "random":
            return random_call(node, args)
        result = numpy_call(node, args, kwargs)
        if node.func.startswith("np.") and node.func[3:] in lib.NUMPY_UFUNCS \
                and all(isinstance(a, ScalarType) for a in args):
            node.kind = "math"
        return result

    def kernel_call(self, node: n.Call, args: list) -> Type:
        callee = self.mt.module.functions.get(node.func)
        if callee is None:
            raise self.error(node, f"kernel '{node.func}' is not part of this module", "call")
        self.calls.setdefault(node.func, []).append((node, args))
        for param, ty in zip(callee.params, args):
            if param.type != UNKNOWN and ty != UNKNOWN and not rules.can_convert(ty, param.type):
                raise self.error(node, f"argument {param.name} of '{node.func}' is declared {param.type} "
                                       f"but this call passes a {ty}", "type conflict")
        if callee.return_type != UNKNOWN:
            return callee.return_type
        return self.mt.returns.get(node.func, UNKNOWN)

    def check_returns(self) -> None:
        values = [(s, t) for s, t in self.returns]
        if not values:
            return
        declared = self.function.return_type
        has_value = [s for s, t in values if t != NONE]
        bare = [s for s, t in values if t == NONE]
        if has_value and bare and declared == UNKNOWN:
            raise self.error(bare[0], f"kernel '{self.function.name}' returns a value at {has_value[0].loc} "
                                      "but nothing here", "type conflict",
                             "return a value on every path (kpc does not translate optional results)",
                             notes=[Note("returns a value here", has_value[0].loc)])
        if has_value and not _always_returns(self.function.body):
            raise self.error(self.function, f"kernel '{self.function.name}' returns a value on some paths "
                                            "but can reach its end without a return", "type conflict",
                             "add a return statement at the end of the function")
        result = UNKNOWN
        for stmt, ty in values:
            if declared != UNKNOWN:
                if not rules.can_convert(ty, declared) and not (declared == NONE and ty == NONE):
                    raise self.error(stmt, f"kernel '{self.function.name}' is declared to return {declared} "
                                           f"but returns a {ty} here", "type conflict")
                continue
            unified = rules.unify(result, ty)
            if unified is None:
                first = next(s for s, t in values if t == result or rules.unify(t, result) == result)
                raise self.error(stmt, f"kernel '{self.function.name}' returns a {ty} here but a {result} "
                                       f"at {first.loc}", "type conflict",
                                 notes=[Note(f"returns a {result} here", first.loc)])
            result = unified


def _always_returns(body: list) -> bool:
    """Whether every path through ``body`` ends in a return (or loops forever)."""
    for stmt in body:
        if isinstance(stmt, n.Return):
            return True
        if isinstance(stmt, n.If) and _always_returns(stmt.body) and _always_returns(stmt.orelse):
            return True
        if isinstance(stmt, n.While) and isinstance(stmt.test, n.Const) and stmt.test.value is True \
                and not any(isinstance(x, n.Break) for x in _loop_level(stmt.body)):
            return True
    return False


def _loop_level(body: list):
    """Statements of a loop body, not descending into nested loops (where break means the inner loop)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, n.If):
            yield from _loop_level(stmt.body)
            yield from _loop_level(stmt.orelse)


# --------------------------------------------------------------------------- NumPy


def numpy_call(node: n.Call, args: list, kwargs: dict) -> Type:
    """The result type of a NumPy function or array method (before ``lower-numpy``)."""
    method = node.func.startswith(".")
    name = node.func[1:] if method else node.func[3:]
    if not method and name in lib.NUMPY_UFUNCS:
        if kwargs:
            raise TypingFailure(f"np.{name}() keyword arguments ({', '.join(kwargs)}) are not supported")
        return rules.ufunc_result(lib.NUMPY_UFUNCS[name], args)
    if name in lib.NUMPY_REDUCTIONS:
        return _reduction(node, name, args, kwargs, method)
    if name in lib.NUMPY_ALLOCATIONS:
        return _allocation(name, args, kwargs)
    if name in lib.NUMPY_LIKE:
        base = _array(args, 0, node.func)
        fill = 2 if name == "full_like" else 1
        dtype = kwargs.get("dtype") or (args[fill] if len(args) > fill else None)
        dtype = rules.dtype_arg(dtype) if dtype is not None else base.dtype
        return ArrayType(dtype, base.ndim, "C")
    handler = _OTHER.get((method, name)) or _OTHER.get((None, name))
    if handler is None:
        raise TypingFailure(f"{node.func}() is not supported with these arguments")
    return handler(node, args, kwargs)


def random_call(node: n.Call, args: list) -> Type:
    """The result type of ``np.random.<f>(...)`` (arguments bound by the frontend), as Numba
    types it: float64 draws, ``randint`` in the integer type of its bounds, an int64 array for
    ``randint(..., size)``; ``seed`` returns nothing.

    >>> print(random_call(n.Call("np.random.randint", [n.Const(0), n.Const(9)]), [INT32, INT32]))
    i32
    >>> print(random_call(n.Call("np.random.normal", [n.Const(0.0), n.Const(1.0), n.Const(3)]), [FLOAT64] * 2 + [INT64]))
    f64[:] C
    """
    name = node.func[len("np.random."):]
    if name in ("rand", "randn"):
        if not all(isinstance(a, ScalarType) and a.is_int for a in args):
            raise TypingFailure(f"{node.func}() takes integer extents, got {', '.join(map(str, args))}")
        return ArrayType(FLOAT64, len(args), "C") if args else FLOAT64
    if name == "seed":
        if len(args) != 1 or not (isinstance(args[0], ScalarType) and args[0].is_int):
            raise TypingFailure(f"np.random.seed() takes one integer, got {', '.join(map(str, args)) or 'nothing'}")
        return NONE
    arity = len(lib.NUMPY_RANDOM[name])
    size = args[arity - 1] if len(args) == arity and args[-1] != NONE else None
    bounds = args[:arity - 1]
    if name == "randint":
        if not bounds:
            raise TypingFailure("np.random.randint() needs an upper bound")
        ints = [a for a in bounds if a != NONE]
        if not all(isinstance(a, ScalarType) and a.is_int for a in ints):
            raise TypingFailure(f"np.random.randint() bounds must be integers, got {', '.join(map(str, ints))}")
        element = INT64 if size is not None else ints[0] if len(ints) == 1 else rules.unify(ints[0], ints[1])
    else:
        if not all(isinstance(a, ScalarType) and not a.is_complex for a in bounds):
            raise TypingFailure(f"{node.func}() parameters must be real numbers, got {', '.join(map(str, bounds))}")
        element = FLOAT64
    return element if size is None else ArrayType(element, rules.shape_rank(size), "C")


def _array(args: list, i: int, what: str) -> ArrayType:
    if len(args) <= i or not isinstance(args[i], ArrayType):
        got = args[i] if len(args) > i else "nothing"
        raise TypingFailure(f"{what}() needs an array argument, got {got}")
    return args[i]


def _reduction(node: n.Call, name: str, args: list, kwargs: dict, method: bool) -> Type:
    if not args:
        raise TypingFailure(f"{node.func}() needs an array")
    base = args[0]
    if isinstance(base, ScalarType):
        return rules.reduction_dtype(name, base)
    base = _array(args, 0, node.func)
    dtype = rules.reduction_dtype(name, base.dtype)
    axis_node = node.kwargs.get("axis")
    if axis_node is None and len(node.args) > 1:
        axis_node = node.args[1]
    if axis_node is None:
        return dtype
    if not (isinstance(axis_node, n.Const) and isinstance(axis_node.value, int)):
        raise TypingFailure(f"{node.func}(axis=...) needs a constant axis")
    axis = axis_node.value
    if not -base.ndim <= axis < base.ndim:
        raise TypingFailure(f"axis {axis} is out of range for {base}")
    if name in ("any", "all", "median", "count_nonzero"):
        raise TypingFailure(f"{node.func}() with an axis is not supported")
    ndim = base.ndim - 1
    return dtype if ndim == 0 else ArrayType(dtype, ndim, "C")


def _allocation(name: str, args: list, kwargs: dict) -> Type:
    if not args:
        raise TypingFailure(f"np.{name}() needs a shape")
    rank = rules.shape_rank(args[0])
    position = 2 if name == "full" else 1
    dtype = kwargs.get("dtype") or (args[position] if len(args) > position else None)
    if dtype is not None:
        element = rules.dtype_arg(dtype)
    elif name == "full":
        if len(args) < 2:
            raise TypingFailure("np.full() needs a fill value")
        fill = args[1]
        if not isinstance(fill, ScalarType):
            raise TypingFailure(f"np.full() fill value must be a number, got {fill}")
        element = fill
    else:
        element = FLOAT64
    return ArrayType(element, rank, "C")


def _arange(node, args, kwargs):
    if not 1 <= len(args) <= 3:
        raise TypingFailure("np.arange() takes 1 to 3 arguments")
    if "dtype" in kwargs:
        return ArrayType(rules.dtype_arg(kwargs["dtype"]), 1, "C")
    for t in args:
        if not isinstance(t, ScalarType):
            raise TypingFailure(f"np.arange() bounds must be numbers, got {t}")
    dtype = INT64 if all(t.is_int or t.is_bool for t in args) else FLOAT64
    return ArrayType(dtype, 1, "C")


def _linspace(node, args, kwargs):
    return ArrayType(FLOAT64, 1, "C")


def _eye(node, args, kwargs):
    dtype = rules.dtype_arg(kwargs["dtype"]) if "dtype" in kwargs else FLOAT64
    return ArrayType(dtype, 2, "C")


def _dot(node, args, kwargs):
    if len(args) != 2:
        raise TypingFailure(f"{node.func}() takes two arrays")
    return rules.matmul(args[0], args[1])


def _vdot(node, args, kwargs):
    result = _dot(node, args, kwargs)
    return result if isinstance(result, ScalarType) else result.dtype


def _outer(node, args, kwargs):
    a, b = _array(args, 0, node.func), _array(args, 1, node.func)
    return ArrayType(rules.unify(a.dtype, b.dtype), 2, "C")


def _where(node, args, kwargs):
    if len(args) != 3:
        raise TypingFailure("np.where() needs three arguments (condition, x, y)")
    dtypes = [rules.dtype_of(t) for t in args[1:]]
    dtype = dtypes[0] if dtypes[0] == dtypes[1] else rules.unify(dtypes[0], dtypes[1])
    ndim = max((t.ndim for t in args if isinstance(t, ArrayType)), default=0)
    return dtype if ndim == 0 else ArrayType(dtype, ndim, "C")


def _same_c(node, args, kwargs):
    base = _array(args, 0, node.func)
    return ArrayType(base.dtype, base.ndim, "C")


def _same(node, args, kwargs):
    return _array(args, 0, node.func)


def _transpose(node, args, kwargs):
    if len(args) > 1:
        raise TypingFailure(f"{node.func}() with axes is not supported")
    return rules.attribute_type(_array(args, 0, node.func), "T")


def _flat(node, args, kwargs):
    base = _array(args, 0, node.func)
    return ArrayType(base.dtype, 1, "C")


def _reshape(node, args, kwargs):
    base = _array(args, 0, node.func)
    shape = args[1:]
    if len(shape) == 1:
        rank = rules.shape_rank(shape[0])
    elif shape and all(isinstance(t, ScalarType) and t.is_int for t in shape):
        rank = len(shape)
    else:
        raise TypingFailure("reshape() needs a shape")
    return ArrayType(base.dtype, rank, "C")


def _cumulative(node, args, kwargs):
    base = _array(args, 0, node.func)
    name = node.func.lstrip(".").replace("np.", "")
    return ArrayType(rules.reduction_dtype(name, base.dtype), 1, "C")


def _astype(node, args, kwargs):
    base = _array(args, 0, node.func)
    dtype = kwargs.get("dtype") or (args[1] if len(args) > 1 else None)
    if dtype is None:
        raise TypingFailure(".astype() needs a dtype")
    return ArrayType(rules.dtype_arg(dtype), base.ndim, "C")


def _fill(node, args, kwargs):
    _array(args, 0, node.func)
    if len(args) != 2 or not isinstance(args[1], ScalarType):
        raise TypingFailure(".fill() needs one number")
    return NONE


def _item(node, args, kwargs):
    return _array(args, 0, node.func).dtype


def _clip(node, args, kwargs):
    base = args[0]
    if isinstance(base, ScalarType):
        return base
    base = _array(args, 0, node.func)
    return ArrayType(base.dtype, base.ndim, "C")


def _norm(node, args, kwargs):
    base = _array(args, 0, node.func)
    return base.dtype if base.dtype.is_float else FLOAT64


def _sort_method(node, args, kwargs):
    _array(args, 0, node.func)
    return NONE


def _argsort(node, args, kwargs):
    base = _array(args, 0, node.func)
    return ArrayType(INT64, base.ndim, "C")


def _diff(node, args, kwargs):
    base = _array(args, 0, node.func)
    return ArrayType(base.dtype, base.ndim, "C")


def _triangle(node, args, kwargs):
    base = _array(args, 0, node.func)
    if base.ndim != 2:
        raise TypingFailure(f"{node.func}() of a {base.ndim}-D array (kpc: 2-D only)")
    return ArrayType(base.dtype, 2, "C")


def _flip(node, args, kwargs):
    """``np.flip(a[, axis])``, ``np.fliplr``, ``np.flipud``: a reversed view of ``a`` (the
    lowering reads through it; written through, it is rejected as other strided views)."""
    base = _array(args, 0, node.func)
    least = {"np.fliplr": 2, "np.flipud": 1}.get(node.func, 1)
    if base.ndim < least:
        raise TypingFailure(f"{node.func}() of a {base.ndim}-D array")
    return ArrayType(base.dtype, base.ndim, "A")


def _trace(node, args, kwargs):
    return _array(args, 0, node.func).dtype


def _isclose(node, args, kwargs):
    ndim = max((t.ndim for t in args[:2] if isinstance(t, ArrayType)), default=0)
    return BOOL if ndim == 0 else ArrayType(BOOL, ndim, "C")


def _allclose(node, args, kwargs):
    return BOOL


def _round(node, args, kwargs):
    base = args[0] if args else None
    if isinstance(base, ArrayType):
        return ArrayType(base.dtype, base.ndim, "C")
    if isinstance(base, ScalarType) and not base.is_bool:
        # Numba: float64 for any float (float32 too), int64 for any integer.
        return FLOAT64 if base.is_float else INT64 if base.is_int else base
    raise TypingFailure("np.round() needs a number or an array")


def _join(node, args, kwargs):
    name = node.func[3:]
    if len(args) != 1 or not isinstance(args[0], TupleType) or not args[0].elements or \
            not all(isinstance(e, ArrayType) for e in args[0].elements):
        raise TypingFailure(f"np.{name}() needs a tuple of arrays")
    arrays = args[0].elements
    dtype = arrays[0].dtype
    for a in arrays[1:]:
        dtype = rules.unify(dtype, a.dtype)
    ndim = max(a.ndim for a in arrays)
    if name == "stack":
        ndim += 1
    elif name == "vstack":
        ndim = max(ndim, 2)
    return ArrayType(dtype, ndim, "C")


def _linalg(node, args, kwargs):
    """``np.linalg.solve/inv/cholesky`` as Numba types them: a float (or complex) 2-D ``a``, a
    1-D or 2-D ``b`` of the same dtype; the result has ``a``'s dtype and ``b``'s rank."""
    name = node.func
    arrays = args[:2] if name == "np.linalg.solve" else args[:1]
    for k, t in enumerate(arrays):
        if not isinstance(t, ArrayType):
            raise TypingFailure(f"{name}() only supported for array types, got {t}")
        if not (k == 0 and t.ndim == 2 or k == 1 and t.ndim in (1, 2)):
            raise TypingFailure(f"{name}() only supported on {'2-D' if k == 0 else '1 and 2-D'} arrays, got {t}")
        if t.dtype.is_complex:
            raise TypingFailure(f"{name}() of complex arrays (kpc: float32 and float64 only)")
        if not t.dtype.is_float:
            raise TypingFailure(f"{name}() only supported on float and complex arrays, got {t}")
    if len(arrays) == 2 and arrays[0].dtype != arrays[1].dtype:
        raise TypingFailure(f"{name}() only supports inputs that have homogeneous dtypes, got {arrays[0]} "
                            f"and {arrays[1]}")
    return ArrayType(arrays[0].dtype, arrays[-1].ndim, "C")


def _real_array(t, what: str) -> ArrayType:
    if not isinstance(t, ArrayType) or t.dtype.is_complex:
        raise TypingFailure(f"{what} needs an array of real numbers, got {t}")
    return t


def _histogram(node, args, kwargs):
    """``np.histogram(a, bins: int, range=None | (lo, hi))`` -> ``(counts i64[:], edges f64[:])``;
    ``np.histogram(a, edges)`` of a 1-D array of edges -> ``(counts i64[:], edges)``, the edges as
    given (Numba returns the same array and ignores ``range``)."""
    a, bins, bounds = args
    if _real_array(a, "np.histogram()").ndim != 1:
        raise TypingFailure(f"np.histogram() of a {a.ndim}-D array (kpc: 1-D only)")
    if isinstance(bins, ArrayType):
        if _real_array(bins, "np.histogram(bins=...)").ndim != 1 or bins.dtype.is_bool:
            raise TypingFailure(f"np.histogram(bins=...) takes a number of bins or a 1-D array of numbers "
                                f"(the bin edges), got {bins}")
        return TupleType((ArrayType(INT64, 1, "C"), bins))
    if not (isinstance(bins, ScalarType) and bins.is_int):
        raise TypingFailure(f"np.histogram(bins=...) takes an integer number of bins or a 1-D array of bin edges "
                            f"in kpc, got {bins}")
    if bounds != NONE and not (isinstance(bounds, TupleType) and len(bounds.elements) == 2 and all(
            isinstance(e, ScalarType) and not e.is_complex for e in bounds.elements)):
        raise TypingFailure(f"np.histogram(range=...) takes a pair of numbers, got {bounds}")
    return TupleType((ArrayType(INT64, 1, "C"), ArrayType(FLOAT64, 1, "C")))


def _cov(node, args, kwargs):
    """``np.cov(m, y=None, rowvar=True, bias=False, ddof=None)`` of a 2-D ``m``, or of a 1-D or
    2-D ``m`` and ``y`` (their rows stacked): float64, as Numba."""
    m, y, rowvar, bias, ddof = args
    _real_array(m, "np.cov()")
    if y != NONE:
        _real_array(y, "np.cov(m, y)")
        for what, t in (("m", m), ("y", y)):
            if t.ndim > 2:
                raise TypingFailure(f"np.cov(): {what} has more than 2 dimensions")
    elif m.ndim == 1:
        raise TypingFailure("np.cov() of a 1-D array returns a 0-d array in Numba, which kpc does not represent "
                            "(kpc: a 2-D m, or m and y)")
    elif m.ndim != 2:
        raise TypingFailure("np.cov(): m has more than 2 dimensions")
    for what, t in (("rowvar", rowvar), ("bias", bias)):
        if not (isinstance(t, ScalarType) and (t.is_bool or t.is_int)):
            raise TypingFailure(f"np.cov({what}=...) takes a boolean, got {t}")
    if ddof != NONE and not (isinstance(ddof, ScalarType) and (ddof.is_int or ddof.is_bool)):
        raise TypingFailure(f"np.cov(ddof=...) takes an integer in kpc, got {ddof}")
    return ArrayType(FLOAT64, 2, "C")


_OTHER = {
    (None, "arange"): _arange, (None, "linspace"): _linspace, (None, "eye"): _eye,
    (None, "identity"): _eye, (None, "dot"): _dot, (None, "matmul"): _dot, (None, "vdot"): _vdot,
    (None, "outer"): _outer, (None, "where"): _where, (None, "copy"): _same_c,
    (None, "asarray"): _same, (None, "ascontiguousarray"): _same_c, (None, "transpose"): _transpose,
    (None, "ravel"): _flat, (True, "flatten"): _flat, (None, "reshape"): _reshape,
    (None, "cumsum"): _cumulative, (None, "cumprod"): _cumulative, (True, "astype"): _astype,
    (True, "fill"): _fill, (True, "item"): _item, (None, "clip"): _clip, (False, "linalg.norm"): _norm,
    (False, "sort"): _same_c, (True, "sort"): _sort_method, (None, "argsort"): _argsort,
    (None, "diff"): _diff, (None, "trace"): _trace, (None, "isclose"): _isclose,
    (None, "allclose"): _allclose, (False, "round"): _round, (False, "around"): _round,
    (False, "concatenate"): _join, (False, "stack"): _join, (False, "hstack"): _join,
    (False, "vstack"): _join, (True, "dot"): _dot, (False, "triu"): _triangle, (False, "tril"): _triangle,
    (False, "flip"): _flip, (False, "fliplr"): _flip, (False, "flipud"): _flip,
    (False, "linalg.solve"): _linalg, (False, "linalg.inv"): _linalg, (False, "linalg.cholesky"): _linalg,
    (False, "histogram"): _histogram, (False, "cov"): _cov,
}
