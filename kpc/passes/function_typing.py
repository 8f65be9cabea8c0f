"""The types of one function's body: locals unified over all their assignments, every expression, the return type.

``FunctionTyping`` types a body given its parameter types, passing over it again until
no local changes type; ``infer-types`` (``ModuleTyping``) runs one per function, callers
first, and gives it the return types and call sites of the others.

>>> from kpc.frontend import parse_module
>>> from kpc.ir.types import FLOAT64, INT64
>>> from kpc.passes.infer_types import ModuleTyping
>>> from kpc.passes.manager import PassContext
>>> m = parse_module('''
... from numba import njit
... @njit
... def f(x, n):
...     s = 0
...     for i in range(n):
...         s = s + x
...     return s
... ''', "m.py")
>>> typing = FunctionTyping(ModuleTyping(m, PassContext()), m.functions["f"], [FLOAT64, INT64])
>>> typing.converge()
>>> {name: str(ty) for name, ty in typing.local_types().items()}, str(typing.return_type)
({'s': 'f64', 'i': 'i64'}, 'f64')
"""

from __future__ import annotations

from kpc.ir import intrinsics as lib
from kpc.ir import nodes as n
from kpc.ir.diagnostics import KpcError, Note
from kpc.ir.nodes import format_expr
from kpc.ir.types import NONE, SLICE, UNKNOWN, ArrayType, ScalarType, TupleType, Type, scalar

from . import numba_rules as rules
from .numba_rules import TypingFailure
from .numpy_typing import is_vector_cov, numpy_call, random_call, vector_cov

MAX_SWEEPS = 64


class FunctionTyping:
    """Types one function's body given its parameter types; iterates until locals are stable.

    ``mt``: the module's ``ModuleTyping`` (``infer_types``), which knows the other functions'
    return types and call sites.
    """

    def __init__(self, mt, function: n.Function, params: list):
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
        # np.cov(x) calls of a 1-D x read as a scalar (``numpy_typing.vector_cov``), by id.
        self.scalar_covs: set = set()

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
        for _ in range(MAX_SWEEPS):
            self.unstable = False
            self.missed = set()
            self.returns = []
            self.calls = {}
            self.block(self.function.body)
            if not self.unstable:
                return
        raise self.error(self.function, f"the types of the locals of kernel '{self.function.name}' do not "
                                        f"settle after {MAX_SWEEPS} passes over its body", "type inference",
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
                raise self.rebinding(name, node, self.error(
                    node, f"parameter '{name}' of kernel '{self.function.name}' has type "
                          f"{current} but is assigned a {ty}", "type conflict",
                    self.generic_hint() or "assign the new value to a new variable"))
            return
        if name not in self.first_def:
            self.first_def[name] = (node.loc, ty)
            if name in self.missed:
                self.unstable = True
            return
        first_loc, current = self.first_def[name]
        unified = rules.unify(current, ty)
        if unified is None:
            raise self.rebinding(name, node, self.error(
                node, f"variable '{name}' in kernel '{self.function.name}' is assigned a {ty} "
                      f"here but a {current} at {first_loc}", "type conflict",
                "use a separate variable for each type",
                notes=[Note(f"'{name}' is first assigned a {current} here", first_loc)]))
        if unified != current:
            self.unstable = True
            self.first_def[name] = (first_loc, unified)

    @staticmethod
    def rebinding(name: str, stmt, error: KpcError) -> KpcError:
        """``error``, marked as a conflict ``split_rebinding`` may resolve by renaming ``name``
        from ``stmt`` on (``infer-types`` tries that before reporting it)."""
        error.rebinding = (name, stmt)
        return error

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
            if isinstance(value, ArrayType):
                # Numba unpacks an array along its first axis (a ValueError at run time when
                # its length differs): elements of a 1-D array, rows of a 2-D one.
                item = rules.index_type(value, [scalar("int64")], [None])
                value = TupleType((item,) * len(target.elements))
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
        if isinstance(node, n.BinOp) and node.op not in ("@", "<<", ">>", "&", "|", "^"):
            # np.cov(x) of a 1-D x (Numba's 0-d array) with a scalar: Numba's result is a scalar.
            for operand, other in ((node.left, node.right), (node.right, node.left)):
                if is_vector_cov(operand) and isinstance(self.expr(other), ScalarType):
                    self.scalar_covs.add(id(operand))
        if isinstance(node, n.Call) and node.kind in ("numpy", "math") and node.func[3:] in lib.NUMPY_UFUNCS \
                and len(node.args) == 1 and is_vector_cov(node.args[0]):
            self.scalar_covs.add(id(node.args[0]))  # np.sqrt(np.cov(x)): a scalar in Numba
        if isinstance(node, n.Index) and not node.indices and is_vector_cov(node.base):
            self.scalar_covs.add(id(node.base))  # np.cov(x)[()]
            return self.expr(node.base)
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
                node.to = rules.builtin_cast(node.builtin, value, scalar(lib.CAST_BUILTINS.get(node.builtin, "complex128")))
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
        if id(node) in self.scalar_covs:
            return vector_cov(args)
        result = numpy_call(node, args, kwargs)
        if node.func.startswith("np.") and node.func[3:] in lib.NUMPY_UFUNCS \
                and all(isinstance(a, ScalarType) for a in args):
            node.kind = "math"
        return result

    def kernel_call(self, node: n.Call, args: list) -> Type:
        callee = self.mt.module.functions.get(node.func)
        if callee is None:
            raise self.error(node, f"kernel '{node.func}' is not part of this module", "call")
        if callee.options.get("vectorize") and any(isinstance(a, ArrayType) for a in args):
            return self.ufunc_call(node, callee, args)
        self.calls.setdefault(node.func, []).append((node, args))
        for param, ty in zip(callee.params, args):
            if param.type != UNKNOWN and ty != UNKNOWN and not rules.can_convert(ty, param.type):
                error = self.error(node, f"argument {param.name} of '{node.func}' is declared {param.type} "
                                         f"but this call passes a {ty}", "type conflict")
                error.call_site = (node.func, node, tuple(args))  # infer-types tries a copy per types first
                raise error
        if callee.return_type != UNKNOWN:
            return callee.return_type
        return self.mt.returns.get(node.func, UNKNOWN)

    def ufunc_call(self, node: n.Call, callee: n.Function, args: list) -> Type:
        """A ``@vectorize`` kernel called with arrays: element by element over the broadcast
        operands, the callee typed for the elements (as Numba's ufunc inside a kernel)."""
        elements = [a.dtype if isinstance(a, ArrayType) else a for a in args]
        if any(not isinstance(e, ScalarType) for e in elements):
            raise self.error(node, f"ufunc '{node.func}' takes arrays and scalars, not "
                                   f"{', '.join(str(a) for a in args)}", "type error")
        self.calls.setdefault(node.func, []).append((node, elements))
        returned = callee.return_type if callee.return_type != UNKNOWN else self.mt.returns.get(node.func, UNKNOWN)
        if returned == UNKNOWN:
            return UNKNOWN
        if not isinstance(returned, ScalarType):
            raise self.error(node, f"ufunc '{node.func}' returns a {returned}, not a scalar", "type error")
        return ArrayType(returned, max(a.ndim for a in args if isinstance(a, ArrayType)), "C")

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
