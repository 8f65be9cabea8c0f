"""Typed IR for the lower-numpy tests, built from Python source with NumPy typing rules.

A small stand-in for the frontend + ``infer-types`` on the constructs the tests
use, so that each test reads as the kernel it lowers. Parameters get their types
from the test (``typed_function(src, x="f64[:]", n="i64")``).
"""

from __future__ import annotations

import ast
import textwrap

import numpy as np

from kpc.ir import nodes as n
from kpc.ir.intrinsics import NUMPY_BOUND
from kpc.ir.types import (BOOL, FLOAT64, INT64, NONE, ArrayType, DTypeType, ScalarType, SLICE,
                          TupleType, promote, scalar)

REDUCE = {"sum", "prod", "min", "max", "amin", "amax", "mean", "any", "all", "argmax", "argmin",
          "count_nonzero", "std", "var"}
FLOAT_UFUNCS = {"sqrt", "exp", "log", "log1p", "sin", "cos", "tan", "arctan2", "tanh", "fabs",
                "floor", "ceil", "power", "hypot"}
SAME_UFUNCS = {"abs", "absolute", "maximum", "minimum", "sign", "square", "negative", "clip"}
BOOL_UFUNCS = {"isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_not"}


def parse_type(text: str):
    text = text.strip()
    if "[" in text:
        dtype, dims = text.split("[", 1)
        layout = text.rsplit("]", 1)[1].strip() or "C"
        return ArrayType(scalar(dtype), dims.count(":"), layout)
    return scalar(text)


def typed_function(source: str, **types) -> n.Function:
    tree = ast.parse(textwrap.dedent(source))
    fdef = next(s for s in tree.body if isinstance(s, ast.FunctionDef))
    builder = _Builder({k: parse_type(v) for k, v in types.items()})
    params = [n.Param(a.arg, builder.env[a.arg], builder.loc(a)) for a in fdef.args.args]
    function = n.Function(fdef.name, params, [], NONE, loc=builder.loc(fdef))
    builder.function = function
    function.body = builder.block(fdef.body)
    function.return_type = builder.return_type
    return function


class _Builder:
    def __init__(self, env):
        self.env = dict(env)
        self.function = None
        self.return_type = NONE

    def loc(self, node):
        return n.Loc("kernel.py", getattr(node, "lineno", 0), getattr(node, "col_offset", 0))

    # ----------------------------------------------------------------- statements

    def block(self, stmts):
        return [self.stmt(s) for s in stmts]

    def bind(self, target, ty):
        if isinstance(target, ast.Name):
            if target.id not in self.env:
                self.env[target.id] = ty
                self.function.locals[target.id] = ty
            return n.Name(target.id, self.env[target.id], self.loc(target))
        if isinstance(target, ast.Tuple):
            elements = ty.elements if isinstance(ty, TupleType) else [None] * len(target.elts)
            return n.TupleExpr([self.bind(t, e) for t, e in zip(target.elts, elements)],
                               ty, self.loc(target))
        return self.expr(target)

    def stmt(self, s):
        loc = self.loc(s)
        if isinstance(s, ast.Assign):
            value = self.expr(s.value)
            return n.Assign(self.bind(s.targets[0], value.type), value, loc)
        if isinstance(s, ast.AugAssign):
            return n.AugAssign(self.expr(s.target), _OPS[type(s.op)], self.expr(s.value), loc=loc)
        if isinstance(s, ast.For):
            args = [self.expr(a) for a in s.iter.args]
            start, stop, step = (n.Const(0, INT64), args[0], n.Const(1, INT64)) if len(args) == 1 else \
                (args[0], args[1], args[2] if len(args) > 2 else n.Const(1, INT64))
            var = self.bind(s.target, INT64)
            return n.For(var, start, stop, step, self.block(s.body), s.iter.func.id, loc=loc)
        if isinstance(s, ast.If):
            return n.If(self.expr(s.test), self.block(s.body), self.block(s.orelse), loc)
        if isinstance(s, ast.While):
            return n.While(self.expr(s.test), self.block(s.body), loc)
        if isinstance(s, ast.Return):
            value = self.expr(s.value) if s.value is not None else None
            self.return_type = value.type if value is not None else NONE
            return n.Return(value, loc)
        if isinstance(s, ast.Expr):
            return n.ExprStmt(self.expr(s.value), loc)
        if isinstance(s, ast.Break):
            return n.Break(loc)
        raise NotImplementedError(ast.dump(s))

    # ----------------------------------------------------------------- expressions

    def expr(self, e):
        loc = self.loc(e)
        if isinstance(e, ast.Constant):
            v = e.value
            ty = BOOL if isinstance(v, bool) else INT64 if isinstance(v, int) else \
                FLOAT64 if isinstance(v, float) else NONE
            return n.Const(v, ty, loc)
        if isinstance(e, ast.Name):
            return n.Name(e.id, self.env[e.id], loc)
        if isinstance(e, ast.Tuple):
            elements = [self.expr(x) for x in e.elts]
            return n.TupleExpr(elements, TupleType(tuple(x.type for x in elements)), loc)
        if isinstance(e, ast.BinOp):
            left, right = self.expr(e.left), self.expr(e.right)
            op = _OPS[type(e.op)]
            if op == "@":
                return n.BinOp(op, left, right, matmul_type(left.type, right.type), loc)
            return n.BinOp(op, left, right, arith_type(op, left.type, right.type), loc)
        if isinstance(e, ast.UnaryOp):
            operand = self.expr(e.operand)
            op = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}[type(e.op)]
            ty = BOOL if op == "not" else operand.type
            return n.UnaryOp(op, operand, ty, loc)
        if isinstance(e, ast.Compare):
            left, right = self.expr(e.left), self.expr(e.comparators[0])
            op = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}[
                type(e.ops[0])]
            rank = max(ndim(left.type), ndim(right.type))
            return n.Compare(op, left, right, ArrayType(BOOL, rank, "C") if rank else BOOL, loc)
        if isinstance(e, ast.Subscript):
            return self.subscript(e, loc)
        if isinstance(e, ast.Attribute):
            if isinstance(e.value, ast.Name) and e.value.id == "np":
                if e.attr in ("pi", "e", "inf", "nan"):
                    return n.GlobalConst(f"np.{e.attr}", float(getattr(np, e.attr)), FLOAT64, loc)
                if e.attr == "newaxis":
                    return n.Const(None, NONE, loc)
                return n.GlobalConst(f"np.{e.attr}", e.attr, DTypeType(scalar(e.attr)), loc)
            value = self.expr(e.value)
            if e.attr == "T":
                return n.Attribute(value, "T", value.type, loc)
            if e.attr == "shape":
                return n.Attribute(value, "shape", TupleType((INT64,) * value.type.ndim), loc)
            if e.attr == "dtype":
                return n.Attribute(value, "dtype", DTypeType(value.type.dtype), loc)
            return n.Attribute(value, e.attr, INT64, loc)
        if isinstance(e, ast.Call):
            return self.call(e, loc)
        if isinstance(e, ast.IfExp):
            body, orelse = self.expr(e.body), self.expr(e.orelse)
            return n.IfExp(self.expr(e.test), body, orelse, body.type, loc)
        raise NotImplementedError(ast.dump(e))

    def subscript(self, e, loc):
        base = self.expr(e.value)
        entries = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        indices = []
        rank = 0
        consumed = 0
        for entry in entries:
            if isinstance(entry, ast.Slice):
                parts = [self.expr(p) if p is not None else None for p in (entry.lower, entry.upper, entry.step)]
                indices.append(n.Slice(*parts, type=SLICE, loc=self.loc(entry)))
                rank += 1
                consumed += 1
            else:
                x = self.expr(entry)
                indices.append(x)
                if isinstance(x, n.Const) and x.value is None:
                    rank += 1
                elif isinstance(x.type, ArrayType):
                    rank += 1 if x.type.dtype == BOOL else x.type.ndim
                    consumed += x.type.ndim if x.type.dtype == BOOL else 1
                else:
                    consumed += 1
        if isinstance(base.type, TupleType):
            return n.Index(base, indices, INT64, loc)
        rank += base.type.ndim - consumed
        ty = ArrayType(base.type.dtype, rank, "A") if rank else base.type.dtype
        return n.Index(base, indices, ty, loc)

    def call(self, e, loc):
        if ast.unparse(e.func).removeprefix("np.") in NUMPY_BOUND:
            raise NotImplementedError(f"{ast.unparse(e.func)}: bound to NumPy's parameters by the frontend")
        if ast.unparse(e.func) in ("np.real", "np.imag"):
            raise NotImplementedError(f"{ast.unparse(e.func)}: the frontend makes it the attribute .{e.func.attr}")
        kwargs = {k.arg: self.expr(k.value) for k in e.keywords}
        if isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name) \
                and e.func.value.id in ("np", "math"):
            module, name = e.func.value.id, e.func.attr
            args = [self.expr(a) for a in e.args]
            if module == "math":
                return n.Call(name, args, "math", {}, FLOAT64, loc)
            return n.Call(f"np.{name}", args, "numpy", kwargs, numpy_type(name, args, kwargs), loc)
        if ast.unparse(e.func) == "np.linalg.norm":
            args = [self.expr(a) for a in e.args]
            return n.Call("np.linalg.norm", args, "numpy", kwargs, dtype_of(args[0].type), loc)
        if isinstance(e.func, ast.Attribute):
            obj = self.expr(e.func.value)
            args = [obj] + [self.expr(a) for a in e.args]
            return n.Call(f".{e.func.attr}", args, "numpy", kwargs,
                          numpy_type(e.func.attr, args, kwargs), loc)
        args = [self.expr(a) for a in e.args]
        name = e.func.id
        ty = {"len": INT64, "int": INT64, "float": FLOAT64, "bool": BOOL}.get(name)
        if ty is None:
            ty = args[0].type
            for a in args[1:]:
                ty = promote(ty, a.type)
        return n.Call(name, args, "builtin", {}, ty, loc)


_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
        ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}


def ndim(ty) -> int:
    return ty.ndim if isinstance(ty, ArrayType) else 0


def dtype_of(ty) -> ScalarType:
    return ty.dtype if isinstance(ty, (ArrayType, DTypeType)) else ty


def arith_type(op, a, b):
    da, db = dtype_of(a), dtype_of(b)
    if op in "&|^" and da == BOOL and db == BOOL:
        d = BOOL
    elif op == "/":
        d = promote(promote(da, db), FLOAT64) if not (da.is_float and da == db) else da
    else:
        d = promote(da, db)
    rank = max(ndim(a), ndim(b))
    return ArrayType(d, rank, "C") if rank else d


def matmul_type(a, b):
    d = promote(dtype_of(a), dtype_of(b))
    rank = {(1, 1): 0, (2, 1): 1, (1, 2): 1, (2, 2): 2}[(ndim(a), ndim(b))]
    return ArrayType(d, rank, "C") if rank else d


def numpy_type(name, args, kwargs):
    first = args[0].type if args else None
    if "dtype" in kwargs:
        dtype = kwargs["dtype"].type.dtype
    elif name == "astype":
        dtype = args[1].type.dtype
    else:
        dtype = None
    if name in REDUCE:
        d = dtype_of(first)
        if name == "mean" or name in ("std", "var"):
            d = FLOAT64 if not d.is_float else d
        elif name in ("argmax", "argmin", "count_nonzero"):
            d = INT64
        elif name in ("any", "all"):
            d = BOOL
        elif name in ("sum", "prod") and (d.is_int or d.is_bool):
            d = INT64
        axis = kwargs.get("axis") or (args[1] if len(args) > 1 else None)
        return ArrayType(d, first.ndim - 1, "C") if axis is not None and first.ndim > 1 else d
    if name in ("trace", "item"):
        return dtype_of(first)
    if name == "allclose":
        return BOOL
    if name == "isclose":
        return ArrayType(BOOL, max(ndim(a.type) for a in args), "C")
    if name in ("empty", "zeros", "ones", "full"):
        shape = args[0].type
        rank = len(shape.elements) if isinstance(shape, TupleType) else 1
        fill = dtype_of(args[1].type) if name == "full" and dtype is None else FLOAT64
        return ArrayType(dtype or fill, rank, "C")
    if name.endswith("_like") or name in ("copy",):
        return ArrayType(dtype or first.dtype, first.ndim, "C")
    if name == "arange":
        d = INT64 if all(dtype_of(a.type).is_int for a in args) else FLOAT64
        return ArrayType(dtype or d, 1, "C")
    if name in ("concatenate", "hstack", "vstack", "stack"):
        part = first.elements[0]
        rank = part.ndim + (1 if name == "stack" or (name == "vstack" and part.ndim == 1) else 0)
        return ArrayType(part.dtype, rank, "C")
    if name == "linspace":
        return ArrayType(dtype or FLOAT64, 1, "C")
    if name in ("eye", "identity"):
        return ArrayType(dtype or FLOAT64, 2, "C")
    if name == "astype":
        return ArrayType(dtype, first.ndim, "C")
    if name in ("dot", "matmul"):
        return matmul_type(first, args[1].type)
    if name == "outer":
        return ArrayType(promote(first.dtype, args[1].type.dtype), 2, "C")
    if name in ("transpose", "triu", "tril"):
        return ArrayType(first.dtype, first.ndim, "C")
    if name == "reshape":
        shape = args[1].type
        return ArrayType(first.dtype, len(shape.elements) if isinstance(shape, TupleType) else len(args) - 1, "C")
    if name == "where":
        d = promote(dtype_of(args[1].type), dtype_of(args[2].type))
        rank = max(ndim(a.type) for a in args)
        return ArrayType(d, rank, "C") if rank else d
    rank = max(ndim(a.type) for a in args)
    if name in BOOL_UFUNCS:
        d = BOOL
    elif name in FLOAT_UFUNCS:
        d = dtype_of(first)
        for a in args[1:]:
            d = promote(d, dtype_of(a.type))
        d = d if d.is_float else FLOAT64
    elif name in SAME_UFUNCS:
        d = dtype_of(first)
        for a in args[1:]:
            d = promote(d, dtype_of(a.type)) if name != "clip" else d
    else:
        d = dtype or FLOAT64
    if name in ("float32", "float64", "int64", "int32"):
        d = scalar(name)
    return ArrayType(d, rank, "C") if rank else d
