"""Test helper: Numba source -> typed IR, for pass tests (the real frontend is kpc.frontend).

``load(source, signatures)`` is a small stand-in for ``kpc.api.load_module``
plus ``infer-types``: it handles the subset of Python the pass tests use, with
enough typing for the passes (Numba's rules, simplified), so that pass tests
do not depend on the frontend's progress.
"""

from __future__ import annotations

import ast
import math
import textwrap

from kpc.ir import nodes as n
from kpc.ir.module import Module
from kpc.ir.types import (BOOL, FLOAT32, FLOAT64, INT64, NONE, UNKNOWN, ArrayType, ScalarType, TupleType,
                          promote, scalar)

BUILTINS = {"abs", "min", "max", "len", "range", "print", "round"}
CASTS = {"int": INT64, "float": FLOAT64, "bool": BOOL}


def parse_type(text: str):
    text = text.strip()
    if "[" not in text:
        return scalar(text)
    dtype, rest = text.split("[", 1)
    dims, _, layout = rest.partition("]")
    layout = layout.strip() or "A"
    return ArrayType(scalar(dtype), dims.count(":"), layout)


def load(source: str, signatures: dict | None = None, path: str = "kernels.py") -> Module:
    """Build the IR of the jitted functions in ``source``; ``signatures``: {func: {param: type text}}."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    module = Module(path=path, source=source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
            module.add(_Lowering(module, path, (signatures or {}).get(node.name, {})).function(node))
    module.rebuild_callgraph()
    return module


def _options(node: ast.FunctionDef) -> dict:
    options = {}
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if isinstance(keyword.value, ast.Constant):
                    options[keyword.arg] = keyword.value.value
    return options


class _Lowering:
    def __init__(self, module: Module, path: str, signature: dict):
        self.module = module
        self.path = path
        self.signature = signature
        self.types: dict = {}
        self.locals: dict = {}
        self.return_type = None

    def loc(self, node) -> n.Loc:
        return n.Loc(self.path, getattr(node, "lineno", 0), getattr(node, "col_offset", 0))

    def function(self, node: ast.FunctionDef) -> n.Function:
        params = []
        for arg in node.args.args:
            ty = parse_type(self.signature[arg.arg]) if arg.arg in self.signature else UNKNOWN
            self.types[arg.arg] = ty
            params.append(n.Param(arg.arg, ty, self.loc(arg)))
        body = self.block(node.body)
        return n.Function(node.name, params, body, self.return_type or NONE, options=_options(node),
                          locals=dict(self.locals), loc=self.loc(node))

    # statements

    def block(self, stmts) -> list:
        out = []
        for stmt in stmts:
            lowered = self.stmt(stmt)
            if lowered is not None:
                out.append(lowered)
        return out

    def define(self, name: str, ty) -> None:
        old = self.types.get(name)
        if old is None or old is UNKNOWN:
            self.types[name] = ty
        elif isinstance(old, ScalarType) and isinstance(ty, ScalarType) and old != ty and not ty.is_bool:
            self.types[name] = promote(old, ty)
        if name not in self.signature:
            self.locals[name] = self.types[name]

    def target(self, node, ty):
        if isinstance(node, ast.Name):
            self.define(node.id, ty)
            return n.Name(node.id, self.types[node.id], self.loc(node))
        if isinstance(node, ast.Tuple):
            elements = ty.elements if isinstance(ty, TupleType) else [UNKNOWN] * len(node.elts)
            return n.TupleExpr([self.target(e, t) for e, t in zip(node.elts, elements)], ty, self.loc(node))
        return self.expr(node)

    def stmt(self, node):
        loc = self.loc(node)
        if isinstance(node, ast.Assign):
            value = self.expr(node.value)
            return n.Assign(self.target(node.targets[0], value.type), value, loc)
        if isinstance(node, ast.AugAssign):
            value = self.expr(node.value)
            target = self.expr(node.target)
            if isinstance(node.target, ast.Name):
                self.define(node.target.id, value.type)
                target.type = self.types[node.target.id]
            return n.AugAssign(target, _BINOPS[type(node.op)], value, loc=loc)
        if isinstance(node, ast.For):
            call = node.iter
            kind = "prange" if ast.unparse(call.func).endswith("prange") else "range"
            args = [self.expr(a) for a in call.args]
            start, stop, step = (n.Const(0, INT64), args[0], n.Const(1, INT64)) if len(args) == 1 else (
                args[0], args[1], args[2] if len(args) > 2 else n.Const(1, INT64))
            self.define(node.target.id, INT64)
            var = n.Name(node.target.id, INT64, self.loc(node.target))
            return n.For(var, start, stop, step, self.block(node.body), kind=kind, loc=loc)
        if isinstance(node, ast.While):
            return n.While(self.expr(node.test), self.block(node.body), loc)
        if isinstance(node, ast.If):
            return n.If(self.expr(node.test), self.block(node.body), self.block(node.orelse), loc)
        if isinstance(node, ast.Return):
            value = self.expr(node.value) if node.value is not None else None
            if value is not None and self.return_type is None:
                self.return_type = value.type
            return n.Return(value, loc)
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return None
            return n.ExprStmt(self.expr(node.value), loc)
        if isinstance(node, ast.Break):
            return n.Break(loc)
        if isinstance(node, ast.Continue):
            return n.Continue(loc)
        if isinstance(node, ast.Pass):
            return None
        raise NotImplementedError(ast.dump(node))

    # expressions

    def expr(self, node):
        loc = self.loc(node)
        if isinstance(node, ast.Constant):
            v = node.value
            ty = BOOL if isinstance(v, bool) else INT64 if isinstance(v, int) else FLOAT64
            return n.Const(v, ty, loc)
        if isinstance(node, ast.Name):
            return n.Name(node.id, self.types.get(node.id, UNKNOWN), loc)
        if isinstance(node, ast.BinOp):
            left, right = self.expr(node.left), self.expr(node.right)
            op = _BINOPS[type(node.op)]
            return n.BinOp(op, left, right, self.binop_type(op, left, right), loc)
        if isinstance(node, ast.UnaryOp):
            operand = self.expr(node.operand)
            op = {ast.USub: "-", ast.UAdd: "+", ast.Not: "not", ast.Invert: "~"}[type(node.op)]
            return n.UnaryOp(op, operand, BOOL if op == "not" else operand.type, loc)
        if isinstance(node, ast.Compare):
            parts = []
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                parts.append(n.Compare(_CMPOPS[type(op)], self.expr(left), self.expr(right), BOOL, loc))
                left = right
            return parts[0] if len(parts) == 1 else n.BoolOp("and", parts, BOOL, loc)
        if isinstance(node, ast.BoolOp):
            values = [self.expr(v) for v in node.values]
            return n.BoolOp("and" if isinstance(node.op, ast.And) else "or", values, BOOL, loc)
        if isinstance(node, ast.IfExp):
            body, orelse = self.expr(node.body), self.expr(node.orelse)
            return n.IfExp(self.expr(node.test), body, orelse, _join(body.type, orelse.type), loc)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Attribute):
            dotted = ast.unparse(node)
            if dotted.startswith(("math.", "np.", "numpy.")) and isinstance(node.value, ast.Name) \
                    and node.value.id not in self.types:
                value = {"inf": math.inf, "nan": math.nan}.get(node.attr, getattr(math, node.attr, None))
                return n.GlobalConst(dotted, value, FLOAT64, loc)
            value = self.expr(node.value)
            ty = UNKNOWN
            if isinstance(value.type, ArrayType) and node.attr == "shape":
                ty = TupleType((INT64,) * value.type.ndim)
            elif node.attr in ("size", "ndim"):
                ty = INT64
            return n.Attribute(value, node.attr, ty, loc)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Tuple):
            elements = [self.expr(e) for e in node.elts]
            return n.TupleExpr(elements, TupleType(tuple(e.type for e in elements)), loc)
        raise NotImplementedError(ast.dump(node))

    def subscript(self, node):
        loc = self.loc(node)
        base = self.expr(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        indices = [self.index(i) for i in items]
        if isinstance(base, n.Index) and not any(isinstance(i, n.Slice) for i in base.indices):
            base = n.Index(base.base, base.indices + indices, UNKNOWN, loc)
            indices = base.indices
            base = base.base
        ty = UNKNOWN
        if isinstance(base.type, ArrayType):
            ints = sum(1 for i in indices if not isinstance(i, n.Slice))
            rest = base.type.ndim - ints
            ty = base.type.dtype if rest == 0 else ArrayType(base.type.dtype, rest, "A")
        elif isinstance(base.type, TupleType) and isinstance(indices[0], n.Const):
            ty = base.type.elements[indices[0].value]
        return n.Index(base, indices, ty, loc)

    def index(self, node):
        if isinstance(node, ast.Slice):
            return n.Slice(*(self.expr(p) if p is not None else None for p in (node.lower, node.upper, node.step)))
        return self.expr(node)

    def call(self, node):
        loc = self.loc(node)
        args = [self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords}
        func = node.func
        if isinstance(func, ast.Name):
            name = func.id
            if name in self.module.functions:
                return n.Call(name, args, "kernel", kwargs, self.module.functions[name].return_type, loc)
            if name in CASTS:
                return n.Cast(CASTS[name], args[0], CASTS[name], loc)
            if name in BUILTINS:
                ty = INT64 if name == "len" else args[0].type if name in ("abs", "round") else _join(
                    *[a.type for a in args]) if name in ("min", "max") else UNKNOWN
                return n.Call(name, args, "builtin", kwargs, ty, loc)
            raise NotImplementedError(name)
        dotted = ast.unparse(func)
        if dotted.startswith("math."):
            ty = FLOAT32 if args and args[0].type == FLOAT32 else FLOAT64
            return n.Call(dotted[5:], args, "math", kwargs, ty, loc)
        if dotted.startswith(("np.", "numpy.")):
            return n.Call("np." + dotted.split(".", 1)[1], args, "numpy", kwargs, UNKNOWN, loc)
        obj = self.expr(func.value)
        return n.Call("." + func.attr, [obj] + args, "numpy", kwargs, UNKNOWN, loc)

    def binop_type(self, op, left, right):
        a, b = left.type, right.type
        if not (isinstance(a, ScalarType) and isinstance(b, ScalarType)):
            return UNKNOWN
        if op == "/":
            return FLOAT32 if a == b == FLOAT32 else FLOAT64
        if op == "**":
            if a.is_int and b.is_int:
                return promote(a, b) if isinstance(right, n.Const) and right.value >= 0 else FLOAT64
            return promote(a, b)
        return promote(a, b)


def _join(a, b):
    if isinstance(a, ScalarType) and isinstance(b, ScalarType):
        return promote(a, b)
    return a if a is not UNKNOWN else b


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.MatMult: "@"}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
