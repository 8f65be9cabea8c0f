"""IR expressions -> PyKokkos expression text, with the statements some of them need emitted first.

``DeviceExpressions.expr(e)`` returns the text of ``e``. Conditional expressions,
``min``/``max``, integer ``abs``, casts to 64-bit ints and short-circuit operands that need
statements emit if/else statements on fresh temporaries before it; ``//`` and ``%`` are C
operators only where both operands are provably non-negative, otherwise calls of the
``kpc_*`` helpers with Python's floor semantics; an index that may be negative gets Python's
wraparound.

>>> from kpc.ir import nodes as n
>>> from kpc.ir.types import INT64, ArrayType, ScalarType
>>> from kpc.backend.pykokkos.device import DeviceCode, NameAllocator
>>> x, k = n.Name("x", ArrayType(ScalarType("float64"), 1, "C")), n.Name("k", INT64)
>>> f = n.Function("f", [n.Param("x", x.type), n.Param("k", INT64)], [], role="device")
>>> code = DeviceCode(f, "function", {}, NameAllocator({"x", "k"}))
>>> code.add_view_param("x", x.type)
>>> code.expr(n.Index(x, [n.BinOp("//", k, n.Const(3), type=INT64)]))
'x[index1]'
>>> for depth, line in code.lines:
...     print("    " * depth + line)
index1: pk.int64 = kpc_floordiv_int(k, 3)
if index1 < 0:
    index1 += x_shape0
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from kpc.ir import nodes as n
from kpc.ir.types import INT64, UNKNOWN, ArrayType, ScalarType, TupleType

from . import spelling
from .unsupported import Unsupported, loc_of

_PREC = {
    "or": 1, "and": 2, "not": 3, "cmp": 4, "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8,
    "+": 9, "-": 9, "*": 10, "/": 10, "//": 10, "%": 10, "unary": 11, "**": 12, "atom": 13,
}
_ATOM = _PREC["atom"]

# Python-semantics helpers, emitted as @pk.function only when used (see helpers.py).
FLOORDIV_INT, MOD_INT = "kpc_floordiv_int", "kpc_mod_int"
FLOORDIV_FLOAT, MOD_FLOAT = "kpc_floordiv_float", "kpc_mod_float"


@dataclass
class ViewInfo:
    """A view visible in device code: its type, where its sizes come from, whether it is LayoutRight."""

    type: ArrayType
    origin: str  # "param" | "subview"
    contiguous: bool = True
    dims: list = field(default_factory=list)  # subviews: per dim ("parent", name, d) or ("text", text)


def is_simple(expr) -> bool:
    """Cheap and pure enough to evaluate twice (``if e < x: x = e``)."""
    if isinstance(expr, (n.Name, n.Const, n.GlobalConst)):
        return True
    if isinstance(expr, n.Index):
        return isinstance(expr.base, n.Name) and all(isinstance(i, (n.Name, n.Const)) for i in expr.indices)
    return False


def scalar_type(expr, fallback=None) -> ScalarType:
    ty = getattr(expr, "type", UNKNOWN)
    if isinstance(ty, ScalarType):
        return ty
    if fallback is not None:
        return fallback
    raise Unsupported("expression without a scalar type", loc_of(expr), "infer-types did not type it")


class DeviceExpressions:
    """Lowers expressions, as one half of ``DeviceCode`` (device.py): uses its state (``views``,
    ``names``, ``acc``, ``bounds``, ``signatures``) and its output helpers (``emit``, ``temp``,
    ``captured``, ``extent``)."""

    def expr(self, e) -> str:
        return self._expr(e)[0]

    def _wrap(self, e, minimum: int) -> str:
        text, prec = self._expr(e)
        return f"({text})" if prec < minimum else text

    def _expr(self, e):
        method = getattr(self, f"_x_{type(e).__name__}", None)
        if method is None:
            raise Unsupported(f"{type(e).__name__.lower()} expression in device code", loc_of(e))
        return method(e)

    def _x_Const(self, e):
        if e.value is None or isinstance(e.value, (complex, str)):
            raise Unsupported(f"constant {e.value!r} in device code", loc_of(e))
        return _literal_with_precedence(e.value)

    def _x_GlobalConst(self, e):
        value = e.value
        if isinstance(value, bool) or isinstance(value, (int, float)):
            for known in ("pi", "e", "tau"):
                if isinstance(value, float) and value == getattr(math, known):
                    return f"math.{known}", _ATOM
            return _literal_with_precedence(value)
        raise Unsupported(f"module-level constant '{e.name}' of type {type(value).__name__}", loc_of(e),
                          "only numbers can be inlined into device code")

    def _x_Name(self, e):
        if e.id == self.acc:
            if not self.scan:
                raise Unsupported(f"reduction variable '{e.id}' read inside its parallel loop", loc_of(e),
                                  "PyKokkos reductions only accumulate")
            if self.acc_offset is not None:
                return f"{self.acc_offset} + {self.name(e.id)}", _PREC["+"]
            return self.name(e.id), _ATOM
        if e.id in self.loop_vars and e.id not in self.int32 and e.id not in self.scalars \
                and self.name(e.id) not in self.declared:
            raise Unsupported(f"loop variable '{e.id}' used after its loop", loc_of(e),
                              "C++ loop variables end with the loop")
        self.referenced.add(self.name(e.id))
        return self.name(e.id), _ATOM

    def _x_UnaryOp(self, e):
        if e.op == "not":
            return f"not {self._wrap(e.operand, _PREC['not'])}", _PREC["not"]
        if e.op in ("-", "+", "~"):
            return f"{e.op}{self._wrap(e.operand, _PREC['unary'])}", _PREC["unary"]
        raise Unsupported(f"unary operator {e.op!r}", loc_of(e))

    def _x_Compare(self, e):
        if e.op not in ("<", "<=", ">", ">=", "==", "!="):
            raise Unsupported(f"comparison {e.op!r} in device code", loc_of(e))
        p = _PREC["cmp"]
        return f"{self._bool_operand(e.left, p + 1)} {e.op} {self._bool_operand(e.right, p + 1)}", p

    def _bool_operand(self, value, minimum: int) -> str:
        """Upstream prints ``and``/``or`` without parentheses: inside a comparison they go
        through a bool temporary."""
        if isinstance(value, n.BoolOp):
            return self.temp("cond", ScalarType("bool"), self.expr(value))
        return self._wrap(value, minimum)

    def _x_BoolOp(self, e):
        ty = getattr(e, "type", UNKNOWN)
        if isinstance(ty, ScalarType) and not ty.is_bool:
            raise Unsupported(f"'{e.op}' of non-bool values", loc_of(e), "C++ && and || give bool")
        p = _PREC[e.op]

        def mixed(value):
            return isinstance(value, n.BoolOp) and value.op != e.op

        with self.captured() as head:
            first = self.expr(e.values[0]) if mixed(e.values[0]) else self._wrap(e.values[0], p + 1)
        self.insert(head)
        rest = []
        for value in e.values[1:]:
            with self.captured() as buffer:
                text = self.expr(value) if mixed(value) else self._wrap(value, p + 1)
            rest.append((buffer, text))
        if not any(buffer for buffer, _ in rest) and not any(mixed(v) for v in e.values):
            return f" {e.op} ".join([first] + [text for _, text in rest]), p
        # An operand needs statements, or is the other operator (upstream prints `a && b || c`
        # without parentheses): evaluate into a bool, keeping short-circuit order with nested ifs.
        result = self.temp("cond", ScalarType("bool"), first)
        opened = 0
        for buffer, text in rest:
            self.emit(f"if {result}:" if e.op == "and" else f"if not {result}:")
            self.depth += 1
            opened += 1
            self.insert(buffer)
            self.emit(f"{result} = {text}")
        self.depth -= opened
        return result, _ATOM

    def _x_IfExp(self, e):
        ty = scalar_type(e)
        result = self.alloc.fresh("sel")
        self.hoisted[result] = (spelling.scalar_annotation(ty), spelling.zero(ty))
        self.declared.add(result)
        self.emit(f"if {self.expr(e.test)}:")
        with self.block():
            self.emit(f"{result} = {self.expr(e.body)}")
        self.emit("else:")
        with self.block():
            self.emit(f"{result} = {self.expr(e.orelse)}")
        return result, _ATOM

    # -- arithmetic
    def _cpp_int32(self, e) -> bool:
        """Is ``e`` a C++ ``int`` in the generated code (loop variables, small literals)?"""
        if isinstance(e, n.Name):
            return e.id in self.int32
        if isinstance(e, n.Const):
            return isinstance(e.value, int) and not isinstance(e.value, bool) and -(2**31) <= e.value < 2**31
        if isinstance(e, n.UnaryOp) and e.op == "-":
            return self._cpp_int32(e.operand)
        if isinstance(e, n.BinOp) and e.op in ("+", "-", "*", "&", "|", "^"):
            return self._cpp_int32(e.left) and self._cpp_int32(e.right)
        return False

    def _x_BinOp(self, e):
        op = e.op
        if op == "@":
            raise Unsupported("matrix product '@'", loc_of(e), "needs lower-numpy")
        ty = scalar_type(e)
        if op in ("//", "%"):
            return self._floordiv_mod(e, ty)
        p = _PREC[op]
        left_node = e.left
        if ty.is_int and ty.bits == 64 and op in ("*", "<<") and self._cpp_int32(e.left) \
                and (op == "<<" or (self._cpp_int32(e.right) and not isinstance(e.right, n.Const)
                                    and not isinstance(e.left, n.Const))) \
                and not self.bounds.interval(e).fits_int32():
            # int * int of two C++ ints overflows at 2^31 where Numba computes in int64.
            left_node = n.Name(self.temp("wide", INT64, self.expr(e.left)), type=INT64)
        if op == "**":
            text = f"{self._wrap(left_node, p + 1)} ** {self._wrap(e.right, p)}"
            if ty.is_int:
                return self.temp("power", ty, text), _ATOM
            return text, p
        return f"{self._wrap(left_node, p)} {op} {self._wrap(e.right, p + 1)}", p

    def _floordiv_mod(self, e, ty: ScalarType):
        left, right = self.bounds.interval(e.left), self.bounds.interval(e.right)
        p = _PREC[e.op]
        if ty.is_int:
            divisor = e.right.value if isinstance(e.right, n.Const) and isinstance(e.right.value, int) else None
            if divisor is not None and divisor > 0 and divisor & (divisor - 1) == 0:
                # A power of two: shift and mask are exact for both signs (two's complement).
                k = divisor.bit_length() - 1
                # Parenthesised beyond need: `(lo + hi) >> 1` reads as the division it replaces.
                if e.op == "//":
                    return f"{self._wrap(e.left, _ATOM)} >> {k}", _PREC[">>"]
                return f"{self._wrap(e.left, _ATOM)} & {divisor - 1}", _PREC["&"]
            if left.nonneg and right.nonneg:
                # C truncation equals Python flooring here (a zero divisor is an error either way);
                # upstream casts `//` to a 32-bit int, so the quotient must fit.
                if e.op == "%" or left.fits_int32() or self._cpp_int32(e.left):
                    return f"{self._wrap(e.left, p)} {e.op} {self._wrap(e.right, p + 1)}", p
            helper = FLOORDIV_INT if e.op == "//" else MOD_INT
        elif ty.is_float:
            helper = FLOORDIV_FLOAT if e.op == "//" else MOD_FLOAT
        else:
            raise Unsupported(f"'{e.op}' on {ty}", loc_of(e))
        self.helpers.add(helper)
        return f"{helper}({self.expr(e.left)}, {self.expr(e.right)})", _ATOM

    # -- calls
    def _x_Call(self, e):
        if e.kind == "kernel":
            return self._call_kernel(e), _ATOM
        if e.kind == "math":
            return self._call_math(e)
        if e.kind == "builtin":
            return self._call_builtin(e)
        raise Unsupported(f"NumPy call '{e.func}' in a parallel loop or device function", loc_of(e),
                          "array-level NumPy needs the lower-numpy pass")

    def _call_kernel(self, e, element: int | None = None) -> str:
        """A call of a ``@pk.function``; ``element``: the k-th scalar of a tuple-returning callee."""
        try:
            if element is None:
                signature = self.signatures.get(e.func)
            else:
                signature = self.signatures.element(e.func, element)
        except Unsupported as exc:
            # Reported at the call: that is the line of the kernel being kept as Numba.
            raise Unsupported(exc.construct, loc_of(e), exc.reason) from None
        if signature is None:
            raise Unsupported(f"call to '{e.func}'", loc_of(e), "the callee is not translated to a @pk.function")
        if e.kwargs:
            raise Unsupported(f"keyword arguments in the call to '{e.func}'", loc_of(e))
        callee = signature.function
        self.signatures_used.add(e.func if element is None else (e.func, element))
        if element is None and isinstance(callee.return_type, (TupleType, ArrayType)):
            raise Unsupported(f"call to '{e.func}', which returns {callee.return_type}", loc_of(e),
                              "@pk.function returns a scalar or None")
        if len(e.args) != len(callee.params):
            raise Unsupported(f"call to '{e.func}' with default arguments", loc_of(e))
        args, bound = [], {}
        for param, arg in zip(callee.params, e.args):
            if isinstance(param.type, ArrayType):
                if not isinstance(arg, n.Name) or arg.id not in self.views:
                    raise Unsupported(f"array argument '{arg}' of '{e.func}' is not a named view", loc_of(e),
                                      "PyKokkos rejects inline subviews: materialize-subviews names them")
                if not self.views[arg.id].contiguous:
                    raise Unsupported(f"strided subview '{arg.id}' passed to '{e.func}'", loc_of(e),
                                      "upstream aborts at run time on LayoutStride arguments")
                bound[param.name] = arg.id
                self.referenced.add(self.name(arg.id))
                args.append(self.name(arg.id))
            else:
                args.append(self.expr(arg))
        for view_param, dim in signature.extents:
            args.append(self.extent(bound[view_param], dim, e))
        return f"{signature.name}({', '.join(args)})"

    def _call_math(self, e):
        name = e.func.split(".")[-1]
        name = spelling.NUMPY_TO_MATH.get(name, name)
        if name in ("abs", "absolute"):
            return self._abs(e)
        if name == "rint":
            raise Unsupported(f"rounding half to even ('{e.func}', np.round)", loc_of(e),
                              "PyKokkos has only C round, which rounds half away from zero")
        if name not in spelling.MATH_FUNCTIONS:
            raise Unsupported(f"math function '{e.func}'", loc_of(e), "not among the functions PyKokkos translates")
        if name == "log" and len(e.args) != 1:
            raise Unsupported("math.log with a base", loc_of(e))
        args = []
        for a in e.args:
            text = self.expr(a)
            # Numba computes math.* of a float32 in float64; C++ would pick the float overload.
            is_f32 = isinstance(getattr(a, "type", None), ScalarType) and a.type.name == "float32"
            args.append(f"pk.double({text})" if is_f32 else text)
        text = f"math.{name}({', '.join(args)})"
        ty = getattr(e, "type", UNKNOWN)
        if isinstance(ty, ScalarType) and ty.is_int and name not in ("isnan", "isinf", "isfinite"):
            # math.floor/ceil/trunc give ints in Numba, doubles in C++.
            return self.temp("rounded", ty, text), _ATOM
        return text, _ATOM

    def _abs(self, e):
        (arg,) = e.args
        ty = scalar_type(arg)
        if ty.is_float:
            return f"math.fabs({self.expr(arg)})", _ATOM
        result = self.temp("magnitude", scalar_type(e, ty), self.expr(arg))
        self.emit(f"if {result} < 0:")
        with self.block():
            self.emit(f"{result} = -{result}")
        return result, _ATOM

    def _call_builtin(self, e):
        if e.func in ("min", "max"):
            return self._min_max(e)
        if e.func == "abs":
            return self._abs(e)
        if e.func == "len":
            (arg,) = e.args
            if not isinstance(arg, n.Name):
                raise Unsupported("len() of an expression", loc_of(e))
            return self.extent(arg.id, 0, e), _ATOM
        if e.func in ("int", "float", "bool"):
            (arg,) = e.args
            to = {"int": INT64, "float": ScalarType("float64"), "bool": ScalarType("bool")}[e.func]
            return self._cast(to, arg, e)
        raise Unsupported(f"builtin '{e.func}' in device code", loc_of(e),
                          "PyKokkos has no min/max/len/print/round: kpc rewrites min, max, abs, len")

    def _min_max(self, e):
        if len(e.args) < 2 or any(isinstance(getattr(a, "type", None), ArrayType) for a in e.args):
            raise Unsupported(f"{e.func}() of an array or of one value", loc_of(e), "needs lower-numpy")
        ty = scalar_type(e)
        result = self.temp(e.func + "_", ty, self.expr(e.args[0]))
        compare = "<" if e.func == "min" else ">"
        for arg in e.args[1:]:
            text = self.expr(arg) if is_simple(arg) else self.temp("candidate", scalar_type(arg, ty), self.expr(arg))
            # Python keeps the first of equal values: replace only when strictly better.
            self.emit(f"if {text} {compare} {result}:")
            with self.block():
                self.emit(f"{result} = {text}")
        return result, _ATOM

    def _x_Cast(self, e):
        return self._cast(e.to, e.value, e)

    def _cast(self, to, value, node):
        if not isinstance(to, ScalarType):
            raise Unsupported(f"conversion to {to}", loc_of(node))
        text, prec = self._expr(value)
        if to.is_bool:
            return f"{text if prec > _PREC['cmp'] else f'({text})'} != 0", _PREC["cmp"]
        if to.name == "float64":
            return f"pk.double({text})", _ATOM
        if to.name == "int32":
            return f"int({text})", _ATOM
        # C++ converts on assignment to the annotated local: truncation toward zero, like int().
        return self.temp("converted", to, text), _ATOM

    # -- arrays
    def _x_Index(self, e):
        base = e.base
        if isinstance(base, n.Attribute) and base.attr == "shape" and isinstance(base.value, n.Name):
            (dim,) = e.indices
            if not isinstance(dim, n.Const):
                raise Unsupported("shape indexed by a variable", loc_of(e))
            ndim = self._view(base.value).type.ndim
            return self.extent(base.value.id, dim.value % ndim if dim.value < 0 else dim.value, e), _ATOM
        info = self._view(base)
        if len(e.indices) != info.type.ndim or any(isinstance(i, n.Slice) for i in e.indices):
            raise Unsupported(f"subview '{e}' inside an expression", loc_of(e),
                              "PyKokkos accepts subviews only as standalone assignments (materialize-subviews)")
        self.referenced.add(self.name(base.id))
        parts = [self._index(base.id, d, idx) for d, idx in enumerate(e.indices)]
        return self.name(base.id) + "".join(f"[{p}]" for p in parts), _ATOM

    def _view(self, base) -> ViewInfo:
        if not isinstance(base, n.Name) or base.id not in self.views:
            raise Unsupported(f"indexing '{base}', which is not a view here", loc_of(base))
        return self.views[base.id]

    def _index(self, view: str, dim: int, idx) -> str:
        """One index, with Python's wraparound where it may be negative (Numba wraps, C++ does not)."""
        if isinstance(idx, n.Const) and isinstance(idx.value, int) and idx.value < 0:
            return f"{self.extent(view, dim, idx)} - {-idx.value}"
        ty = scalar_type(idx, INT64)
        if not (ty.is_int or ty.is_bool):
            raise Unsupported(f"index of type {ty}", loc_of(idx))
        if self.bounds.interval(idx).nonneg:
            return self.expr(idx)
        wrapped = self.temp("index", INT64, self.expr(idx))
        self.emit(f"if {wrapped} < 0:")
        with self.block():
            self.emit(f"{wrapped} += {self.extent(view, dim, idx)}")
        return wrapped

    def _x_Attribute(self, e):
        if isinstance(e.value, n.Name) and e.value.id in self.views:
            info = self.views[e.value.id]
            if e.attr == "ndim":
                return str(info.type.ndim), _ATOM
            if e.attr == "size":
                return " * ".join(self.extent(e.value.id, d, e) for d in range(info.type.ndim)), _PREC["*"]
        raise Unsupported(f"attribute '.{e.attr}' in device code", loc_of(e))


def _literal_with_precedence(value):
    text = spelling.literal(value)
    if " - " in text:
        return text, _PREC["-"]
    return text, _PREC["unary"] if text.startswith("-") else _ATOM
