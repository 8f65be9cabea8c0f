"""IR verifier: checks the invariants every pass must keep, and names the node and place that breaks one.

- structure: assignment targets are names, indices or tuples of those; loop variables
  are names; ``break``/``continue`` sit inside loops; kernel calls name functions of
  the module with the right number of arguments;
- every name is assigned (or is a parameter) before it is used, on some path (a use
  at the top of a loop may see an assignment later in the body; ``x.dtype`` is not a use);
- after ``infer-types`` (``typed=True``): every parameter, return type, local and
  expression has a type, and array arguments have the rank and dtype of the
  parameter they bind to on every call edge.

Run after every pass when ``PassContext.verify`` is set (``run_pipeline(..., verifier=verify)``).

>>> from kpc.ir.module import Module
>>> from kpc.ir.nodes import Function, Return, Name, Loc
>>> m = Module("m.py", "def f():\\n    return y\\n")
>>> m.add(Function("f", [], [Return(Name("y", loc=Loc("m.py", 2, 11)), loc=Loc("m.py", 2, 4))]))
>>> verify(m, typed=False)
Traceback (most recent call last):
  ...
kpc.ir.verifier.VerificationError: m.py:2:12: error: IR verification failed in 'f': name 'y' is used before it is assigned
    return y
           ^
"""

from __future__ import annotations

from . import nodes as n
from .diagnostics import KpcError
from .types import UNKNOWN, ArrayType
from .queries import elementwise_call


class VerificationError(KpcError):
    """An IR invariant does not hold (a bug in a pass, or IR built by hand)."""


def _error(module, function, node, message: str) -> VerificationError:
    loc = getattr(node, "loc", None) or function.loc
    return VerificationError.at(loc, f"IR verification failed in '{function.name}': {message}",
                                "IR verification", source=module.source)


def verify(module, typed: bool | None = None) -> None:
    """Raise ``VerificationError`` at the first broken invariant. ``typed``: check types too
    (default: when every function's return type is known)."""
    if typed is None:
        typed = all(f.return_type != UNKNOWN for f in module.functions.values())
    for function in module.functions.values():
        _FunctionVerifier(module, function, typed).run()
    if typed:
        _verify_call_edges(module)


class _FunctionVerifier:
    def __init__(self, module, function: n.Function, typed: bool):
        self.module = module
        self.function = function
        self.typed = typed

    def error(self, node, message: str) -> VerificationError:
        return _error(self.module, self.function, node, message)

    def run(self) -> None:
        function = self.function
        if self.typed:
            for param in function.params:
                if param.type == UNKNOWN:
                    raise self.error(param, f"parameter '{param.name}' has no type")
            if function.return_type == UNKNOWN:
                raise self.error(function, "the return type is unknown")
        defined = {p.name for p in function.params}
        self.block(function.body, defined, loop_depth=0)

    # -- names, structure
    def block(self, body: list, defined: set, loop_depth: int) -> set:
        defined = set(defined)
        for stmt in body:
            defined = self.stmt(stmt, defined, loop_depth)
        return defined

    def stmt(self, s, defined: set, depth: int) -> set:
        if isinstance(s, n.Assign):
            self.uses(s.value, defined)
            return defined | self.store(s.target, defined)
        if isinstance(s, n.AugAssign):
            self.uses(s.value, defined)
            if not isinstance(s.target, (n.Name, n.Index)):
                raise self.error(s, f"cannot update {type(s.target).__name__} in place")
            self.uses(s.target, defined)
            return defined
        if isinstance(s, n.For):
            for bound in (s.start, s.stop, s.step):
                self.uses(bound, defined)
            if not isinstance(s.var, n.Name):
                raise self.error(s, "the loop variable is not a name")
            inner = defined | {s.var.id}
            inner |= _assigned(s.body)
            if self.typed:
                self.typed_name(s.var)
            return defined | self.block(s.body, inner, depth + 1)
        if isinstance(s, n.While):
            inner = defined | _assigned(s.body)
            self.uses(s.test, inner)
            return defined | self.block(s.body, inner, depth + 1)
        if isinstance(s, n.If):
            self.uses(s.test, defined)
            return self.block(s.body, defined, depth) | self.block(s.orelse, defined, depth)
        if isinstance(s, n.Return):
            if s.value is not None:
                self.uses(s.value, defined)
            return defined
        if isinstance(s, n.ExprStmt):
            self.uses(s.value, defined)
            return defined
        if isinstance(s, n.Raise):
            return defined
        if isinstance(s, (n.Break, n.Continue)):
            if depth == 0:
                raise self.error(s, f"'{type(s).__name__.lower()}' outside a loop")
            return defined
        raise self.error(s, f"unknown statement {type(s).__name__}")

    def store(self, target, defined: set) -> set:
        if isinstance(target, n.Name):
            if self.typed:
                self.typed_name(target)
            return {target.id}
        if isinstance(target, n.Index):
            self.uses(target, defined)
            return set()
        if isinstance(target, n.TupleExpr):
            names = set()
            for element in target.elements:
                names |= self.store(element, defined)
            return names
        raise self.error(target, f"cannot assign to {type(target).__name__}")

    def typed_name(self, name: n.Name) -> None:
        if name.id not in self.function.locals and name.id not in {p.name for p in self.function.params}:
            raise self.error(name, f"local '{name.id}' has no entry in Function.locals")

    def uses(self, expr, defined: set) -> None:
        # ``x.dtype`` reads the type of ``x``, not a value: a list's buffer takes the dtype of
        # the item local its appends assign later (``frontend.lists``).
        typeof = {id(node.value) for node in n.walk(expr)
                  if isinstance(node, n.Attribute) and node.attr == "dtype" and isinstance(node.value, n.Name)}
        for node in n.walk(expr):
            if isinstance(node, n.Name) and node.id not in defined and id(node) not in typeof:
                raise self.error(node, f"name '{node.id}' is used before it is assigned")
            if isinstance(node, n.Expr) and self.typed and getattr(node, "type", None) == UNKNOWN:
                raise self.error(node, f"expression {node} has no type")
            if isinstance(node, n.Call) and node.kind == "kernel":
                callee = self.module.functions.get(node.func)
                if callee is None:
                    raise self.error(node, f"call of '{node.func}', which is not a function of the module")
                if len(node.args) != len(callee.params):
                    raise self.error(node, f"'{node.func}' takes {len(callee.params)} arguments, "
                                           f"the call passes {len(node.args)}")


def _assigned(body: list) -> set:
    """Names assigned anywhere in ``body`` (a loop body: visible at its top through the back edge)."""
    names = set()
    for node in n.walk(body):
        if isinstance(node, n.Assign):
            targets = [node.target]
            while targets:
                t = targets.pop()
                if isinstance(t, n.Name):
                    names.add(t.id)
                elif isinstance(t, n.TupleExpr):
                    targets.extend(t.elements)
        elif isinstance(node, n.For):
            names.add(node.var.id)
    return names


def _verify_call_edges(module) -> None:
    for caller, callee in module.callgraph.edges:
        target = module.functions[callee]
        for site in module.sites(caller, callee):
            if elementwise_call(target, site.call):
                continue
            for param, arg in zip(target.params, site.call.args):
                ptype, atype = param.type, arg.type
                if isinstance(ptype, ArrayType) != isinstance(atype, ArrayType) or (
                        isinstance(ptype, ArrayType) and (ptype.ndim != atype.ndim or ptype.dtype != atype.dtype)):
                    raise _error(module, module.functions[caller], site.call,
                                 f"argument {arg} ({atype}) does not match parameter '{param.name}: {ptype}' "
                                 f"of '{callee}'")
