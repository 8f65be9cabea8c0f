"""IR statements -> PyKokkos device code (the body of a ``@pk.workunit`` or ``@pk.function``).

Upstream PyKokkos translates a restricted Python to C++; this lowering writes only
that subset and keeps Numba's semantics on top of it (PYKOKKOS_CONTRACT.md):

- every local is declared once with an annotation, inline where it is first
  assigned in the function's outermost block, hoisted to the top otherwise (C++
  block scoping);
- conditional expressions, ``min``/``max``, integer ``abs``, casts to 64-bit ints
  and short-circuit operands that need statements become if/else statements on
  fresh temporaries;
- ``//`` and ``%`` are written as C operators only where both operands are
  provably non-negative, otherwise through the ``kpc_*`` helpers that implement
  Python's floor semantics; indices that may be negative get Python's wraparound;
- sizes are ``pk.int64`` locals read once from ``v.extent(d)`` in workunits and
  extra parameters of ``@pk.function``s (``extent`` is rejected there, and a raw
  ``size_t`` would turn ``n - 1`` into a huge unsigned number for ``n == 0``);
- views are indexed ``v[i][j]``; subviews are standalone assignments to fresh
  names with bare-name integer positions.

Anything else raises ``Unsupported`` and the kernel stays Numba.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass, field

from kpc.ir import nodes as n
from kpc.ir.queries import expr_names
from kpc.ir.types import INT64, UNKNOWN, ArrayType, ScalarType, TupleType

from . import spelling
from .bounds import Bounds
from .effects import names_bound, names_loaded
from .unsupported import Unsupported, loc_of

_PREC = {
    "or": 1, "and": 2, "not": 3, "cmp": 4, "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8,
    "+": 9, "-": 9, "*": 10, "/": 10, "//": 10, "%": 10, "unary": 11, "**": 12, "atom": 13,
}
_ATOM = _PREC["atom"]

# Python-semantics helpers, emitted as @pk.function only when used (see helpers.py).
FLOORDIV_INT, MOD_INT = "kpc_floordiv_int", "kpc_mod_int"
FLOORDIV_FLOAT, MOD_FLOAT = "kpc_floordiv_float", "kpc_mod_float"

_ATOMIC_OPS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "&": "and", "|": "or", "^": "xor"}


@dataclass
class DeviceSignature:
    """What a caller needs to call an emitted ``@pk.function``: its name and size parameters."""

    name: str
    function: n.Function
    extents: list = field(default_factory=list)  # [(view param name, dim)], appended after the params


@dataclass
class ViewInfo:
    """A view visible in device code: its type, where its sizes come from, whether it is LayoutRight."""

    type: ArrayType
    origin: str  # "param" | "subview"
    contiguous: bool = True
    dims: list = field(default_factory=list)  # subviews: per dim ("parent", name, d) or ("text", text)


class NameAllocator:
    """Fresh, readable names that collide with nothing the function or the module uses."""

    def __init__(self, taken):
        self.taken = set(taken) | spelling.CPP_KEYWORDS | {"pk", "math", "np"}
        self.counters: dict = {}

    def claim(self, name: str) -> str:
        """``name`` itself if free (then taken), else ``name_2``, ``name_3``..."""
        candidate, k = name, 1
        while candidate in self.taken:
            k += 1
            candidate = f"{name}_{k}"
        self.taken.add(candidate)
        return candidate

    def fresh(self, prefix: str) -> str:
        k = self.counters.get(prefix, 0)
        while True:
            k += 1
            candidate = f"{prefix}{k}"
            if candidate not in self.taken:
                self.counters[prefix] = k
                self.taken.add(candidate)
                return candidate


def all_names(node) -> set:
    names = set()
    for item in n.walk(node):
        if isinstance(item, n.Name):
            names.add(item.id)
        elif isinstance(item, n.For):
            names.add(item.var.id)
    if isinstance(node, n.Function):
        names |= {p.name for p in node.params} | set(node.locals)
    return names


def _is_simple(expr) -> bool:
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


class DeviceCode:
    """Lowers one device body. ``kind`` is ``workunit`` or ``function``.

    ``views`` maps visible view names (IR names) to ``ViewInfo``; ``names`` maps IR
    names to the names printed; ``acc`` is the reduction/scan variable replaced by the
    accumulator (``None`` for parallel_for and functions); ``scan`` wraps stores in
    ``if final:``; ``signatures`` are the emitted ``@pk.function``s callable from here.
    """

    def __init__(self, function: n.Function, kind: str, signatures: dict, allocator: NameAllocator,
                 bounds: Bounds | None = None):
        self.function = function
        self.kind = kind
        self.signatures = signatures
        self.alloc = allocator
        self.bounds = bounds or Bounds(function)
        self.names: dict = {}
        self.views: dict = {}
        self.scalars: dict = {}  # scalar params and captures: IR name -> type
        self.acc: str | None = None
        self.acc_offset: str | None = None
        self.scan = False
        self.region_loop = False  # the body runs inside a serial chunk loop (partial reductions)
        self.lines: list = []
        self.depth = 0
        self.capturing = 0
        self.hoisted: dict = {}  # pk name -> (annotation, initial literal)
        self.declared: set = set()
        self.referenced: set = set()
        self.extent_locals: dict = {}  # (view, d) -> pk name, for workunits
        self.extent_params: list = []  # [(view, d, pk name)], for functions
        self.helpers: set = set()
        self.signatures_used: set = set()
        self.return_element: int | None = None  # lowering element k of a tuple-returning function
        self.int32: list = []  # names that are C++ int (loop variables, the work index)
        self.loops: list = []  # serial loops of the body being lowered (for return/continue)
        self.loop_vars = {s.var.id for s in n.walk(function) if isinstance(s, n.For)}
        self.counts = self.bounds.counts
        self.loaded = names_loaded(function)

    # ------------------------------------------------------------------ output helpers
    def emit(self, text: str) -> None:
        self.lines.append((self.depth, text))

    @contextmanager
    def block(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    @contextmanager
    def captured(self):
        """Collect the lines emitted inside at relative depth 0 (for short-circuit operands)."""
        saved_lines, saved_depth = self.lines, self.depth
        self.lines, self.depth = [], 0
        self.capturing += 1
        buffer = self.lines
        try:
            yield buffer
        finally:
            self.lines, self.depth = saved_lines, saved_depth
            self.capturing -= 1

    def insert(self, buffer: list) -> None:
        for depth, text in buffer:
            self.lines.append((self.depth + depth, text))

    def name(self, ir_name: str) -> str:
        return self.names.get(ir_name, ir_name)

    def local_type(self, ir_name: str, node=None):
        ty = self.function.locals.get(ir_name)
        if ty is None and node is not None:
            ty = getattr(node, "type", UNKNOWN)
        if not isinstance(ty, ScalarType):
            raise Unsupported(f"local '{ir_name}' of type {ty}", loc_of(node),
                              "only scalar locals and subviews can live in device code")
        return ty

    def declare(self, pk_name: str, ty: ScalarType, value: str | None) -> None:
        """Declare ``pk_name`` here if at the outermost block, else hoist it; then assign ``value``."""
        ann = spelling.scalar_annotation(ty)
        if pk_name in self.declared:
            if value is not None:
                self.emit(f"{pk_name} = {value}")
            return
        self.declared.add(pk_name)
        if self.depth == 0 and not self.capturing and pk_name not in self.referenced:
            self.emit(f"{pk_name}: {ann} = {spelling.zero(ty) if value is None else value}")
            return
        self.hoisted[pk_name] = (ann, spelling.zero(ty))
        if value is not None:
            self.emit(f"{pk_name} = {value}")

    def temp(self, prefix: str, ty: ScalarType, value: str | None = None) -> str:
        name = self.alloc.fresh(prefix)
        self.declare(name, ty, value)
        return name

    # ------------------------------------------------------------------ sizes
    def add_view_param(self, ir_name: str, ty: ArrayType, pk_name: str | None = None) -> None:
        self.views[ir_name] = ViewInfo(ty, "param")
        if pk_name is not None:
            self.names[ir_name] = pk_name

    def extent(self, view: str, dim: int, node=None) -> str:
        info = self.views.get(view)
        if info is None:
            raise Unsupported(f"size of '{view}', which is not a view here", loc_of(node))
        if not 0 <= dim < info.type.ndim:
            raise Unsupported(f"shape[{dim}] of a {info.type.ndim}-d array", loc_of(node))
        if info.origin == "subview":
            how = info.dims[dim]
            return self.extent(how[1], how[2], node) if how[0] == "parent" else how[1]
        key = (view, dim)
        if self.kind == "workunit":
            if key not in self.extent_locals:
                self.extent_locals[key] = self.alloc.claim(f"{self.name(view)}_shape{dim}")
            return self.extent_locals[key]
        for v, d, pk_name in self.extent_params:
            if (v, d) == key:
                return pk_name
        pk_name = self.alloc.claim(f"{self.name(view)}_shape{dim}")
        self.extent_params.append((view, dim, pk_name))
        return pk_name

    def extent_declarations(self) -> list:
        return [f"{name}: pk.int64 = {self.name(v)}.extent({d})" for (v, d), name in self.extent_locals.items()]

    def hoisted_declarations(self) -> list:
        return [f"{name}: {ann} = {init}" for name, (ann, init) in self.hoisted.items()]

    # ------------------------------------------------------------------ expressions
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
            text = self.expr(arg) if _is_simple(arg) else self.temp("candidate", scalar_type(arg, ty), self.expr(arg))
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

    # ------------------------------------------------------------------ statements
    def body(self, stmts: list) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, s) -> None:
        method = getattr(self, f"_s_{type(s).__name__}", None)
        if method is None:
            raise Unsupported(f"{type(s).__name__} statement in device code", loc_of(s))
        method(s)

    def _s_Assign(self, s):
        target, value = s.target, s.value
        if isinstance(target, n.TupleExpr):
            return self._tuple_assign(s)
        if isinstance(target, n.Index):
            return self._store(target, value, s)
        if not isinstance(target, n.Name):
            raise Unsupported(f"assignment to '{target}'", loc_of(s))
        if isinstance(getattr(value, "type", None), ArrayType) or (
            isinstance(value, n.Index) and isinstance(value.base, n.Name) and value.base.id in self.views
            and (len(value.indices) < self.views[value.base.id].type.ndim
                 or any(isinstance(i, n.Slice) for i in value.indices))
        ):
            return self._subview(target, value, s)
        if target.id == self.acc:
            return self._acc_update(s)
        if target.id in self.scalars:
            raise Unsupported(f"assignment to parameter '{target.id}'", loc_of(s))
        if target.id in self.loop_vars:
            raise Unsupported(f"assignment to loop variable '{target.id}'", loc_of(s),
                              "C++ would change the iteration, Python does not")
        ty = self.local_type(target.id, target)
        pk_name = self.name(target.id)
        if self._min_max_update(target, value, pk_name):
            return
        if isinstance(value, n.IfExp):
            self.declare(pk_name, ty, None)
            self.referenced.add(pk_name)
            self._select(value, lambda text: f"{pk_name} = {text}")
            return
        if isinstance(value, n.Cast) and value.to == ty and ty.is_int:
            # The annotated local converts on assignment (truncation toward zero, like int()).
            value = value.value
        text = self.expr(value)
        self.declare(pk_name, ty, text)
        self.referenced.add(pk_name)

    def _select(self, value, write) -> None:
        """``target = a if c else b`` as an if/else that writes the target in each branch."""
        self.emit(f"if {self.expr(value.test)}:")
        for branch in (value.body, value.orelse):
            with self.block():
                if isinstance(branch, n.IfExp):
                    self._select(branch, write)
                else:
                    self.emit(write(self.expr(branch)))
            if branch is value.body:
                self.emit("else:")

    def _min_max_update(self, target, value, pk_name) -> bool:
        """``x = min(x, e)`` -> ``if e < x: x = e`` (Python's min keeps x on ties)."""
        if not (isinstance(value, n.Call) and value.kind == "builtin" and value.func in ("min", "max")
                and len(value.args) == 2 and isinstance(value.args[0], n.Name)
                and value.args[0].id == target.id and pk_name in self.declared):
            return False
        other = value.args[1]
        text = self.expr(other) if _is_simple(other) else self.temp("candidate", scalar_type(other), self.expr(other))
        self.emit(f"if {text} {'<' if value.func == 'min' else '>'} {pk_name}:")
        with self.block():
            self.emit(f"{pk_name} = {text}")
        return True

    def _acc_update(self, s):
        value = s.value
        if isinstance(value, n.BinOp) and value.op in ("+", "-") and isinstance(value.left, n.Name) \
                and value.left.id == self.acc:
            self.emit(f"{self.name(self.acc)} {value.op}= {self.expr(value.right)}")
            return
        if isinstance(value, n.BinOp) and value.op == "+" and isinstance(value.right, n.Name) \
                and value.right.id == self.acc:
            self.emit(f"{self.name(self.acc)} += {self.expr(value.left)}")
            return
        raise Unsupported(f"update of reduction variable '{self.acc}' that is not a sum", loc_of(s),
                          "PyKokkos joins accumulators with + from 0")

    def _tuple_assign(self, s):
        targets, value = s.target.elements, s.value
        if isinstance(value, n.Attribute) and value.attr == "shape" and isinstance(value.value, n.Name):
            values = [n.Index(value, [n.Const(d)], type=INT64) for d in range(len(targets))]
        elif isinstance(value, n.TupleExpr) and len(value.elements) == len(targets):
            values = value.elements
        elif isinstance(value, n.Call) and value.kind == "kernel":
            return self._unpack_call(targets, value, s)
        else:
            raise Unsupported("tuple unpacking of a call result", loc_of(s), "PyKokkos has no tuples")
        pairs = [(t, v) for t, v in zip(targets, values)
                 if not (isinstance(t, n.Name) and t.id not in self.loaded)]
        written = {t.id for t, _ in pairs if isinstance(t, n.Name)}
        # an element store writes its array: `v[i], v[j] = v[j], v[i]` reads v after it
        written |= {t.base.id for t, _ in pairs if isinstance(t, n.Index) and isinstance(t.base, n.Name)}
        read = expr_names([v for _, v in pairs])
        if not written & read:
            for t, v in pairs:
                self._s_Assign(n.Assign(t, v, s.loc))
            return
        # `a, b = b, a`: evaluate every value before assigning any target.
        staged = [(t, self.temp("swap", scalar_type(v), self.expr(v))) for t, v in pairs]
        for t, text in staged:
            if isinstance(t, n.Name):
                self.declare(self.name(t.id), self.local_type(t.id, t), text)
            else:
                self._guarded(f"{self.expr(t)} = {text}")

    def _unpack_call(self, targets, call, s):
        """``a, b = f(x)`` -> ``a = f_0(x)``, ``b = f_1(x)``: one scalar @pk.function per element."""
        returns = getattr(call, "type", UNKNOWN)
        if not isinstance(returns, TupleType) or len(returns.elements) != len(targets):
            raise Unsupported(f"unpacking the result of '{call.func}'", loc_of(s), "arity or type unknown")
        pairs = [(t, k) for k, t in enumerate(targets) if not (isinstance(t, n.Name) and t.id not in self.loaded)]
        written = {t.id for t, _ in pairs if isinstance(t, n.Name)}
        read = expr_names(call.args)
        texts = []
        for t, k in pairs:
            text = self._call_kernel(call, element=k)
            if written & read:
                # `a, b = f(a, b)`: every call sees the old values.
                text = self.temp("part", returns.elements[k], text)
            texts.append((t, text))
        for t, text in texts:
            if isinstance(t, n.Name):
                self.declare(self.name(t.id), self.local_type(t.id, t), text)
            else:
                self._guarded(f"{self.expr(t)} = {text}")

    def _store(self, target, value, s):
        info = self._view(target.base)
        if len(target.indices) != info.type.ndim or any(isinstance(i, n.Slice) for i in target.indices):
            raise Unsupported(f"slice assignment '{target} = ...'", loc_of(s), "array-level code needs lower-numpy")
        if isinstance(value, n.IfExp) and not self.scan:
            lhs = self.expr(target)
            self._select(value, lambda text: f"{lhs} = {text}")
            return
        text = self.expr(value)
        lhs = self.expr(target)
        self._guarded(f"{lhs} = {text}")

    def _guarded(self, line: str) -> None:
        """A store: in a scan, only the final pass writes."""
        if self.scan:
            self.emit("if final:")
            with self.block():
                self.emit(line)
        else:
            self.emit(line)

    def _s_AugAssign(self, s):
        target, op = s.target, s.op
        if isinstance(target, n.Name):
            if target.id == self.acc:
                if op not in ("+", "-"):
                    raise Unsupported(f"'{op}=' on reduction variable '{target.id}'", loc_of(s),
                                      "PyKokkos reductions are sums")
                self.emit(f"{self.name(self.acc)} {op}= {self.expr(s.value)}")
                return
            if target.id in self.scalars:
                raise Unsupported(f"assignment to parameter '{target.id}'", loc_of(s))
            if target.id in self.loop_vars:
                raise Unsupported(f"assignment to loop variable '{target.id}'", loc_of(s))
            if op in ("//", "%", "**", "@"):
                ty = self.local_type(target.id, target)
                return self._s_Assign(n.Assign(target, n.BinOp(op, target, s.value, type=ty, loc=s.loc), s.loc))
            if target.id not in self.names and self.name(target.id) not in self.declared:
                raise Unsupported(f"'{op}=' on '{target.id}' before it is assigned", loc_of(s))
            self.emit(f"{self.name(target.id)} {op}= {self.expr(s.value)}")
            return
        if not isinstance(target, n.Index):
            raise Unsupported(f"augmented assignment to '{target}'", loc_of(s))
        info = self._view(target.base)
        if len(target.indices) != info.type.ndim or any(isinstance(i, n.Slice) for i in target.indices):
            raise Unsupported(f"slice update '{target} {op}= ...'", loc_of(s), "array-level code needs lower-numpy")
        if s.atomic:
            return self._atomic(target, op, s)
        if op in ("//", "%", "**"):
            element_type = info.type.dtype
            value = n.BinOp(op, target, s.value, type=scalar_type(target, element_type), loc=s.loc)
            return self._store(target, value, s)
        value = self.expr(s.value)
        self._guarded(f"{self.expr(target)} {op}= {value}")

    def _atomic(self, target, op, s):
        if op not in _ATOMIC_OPS:
            raise Unsupported(f"atomic '{op}='", loc_of(s))
        value = self.expr(s.value)
        indices = [self._index(target.base.id, d, i) for d, i in enumerate(target.indices)]
        view = self.name(target.base.id)
        self.referenced.add(view)
        if op == "+" and self.kind == "workunit":
            call = f"pk.atomic_add({view}, [{', '.join(indices)}], {value})"
        else:
            # atomic_add is not accepted inside @pk.function (contract §6).
            call = f"pk.atomic_fetch_{_ATOMIC_OPS[op]}({view}, [{', '.join(indices)}], {value})"
        self._guarded(call)

    def _subview(self, target, value, s):
        if isinstance(value, n.Name) and value.id in self.views:
            if self.counts.get(target.id, 0) != 1:
                raise Unsupported(f"array name '{target.id}' rebound", loc_of(s))
            self.views[target.id] = self.views[value.id]
            self.names[target.id] = self.name(value.id)
            return
        if not isinstance(value, n.Index) or not isinstance(value.base, n.Name) or value.base.id not in self.views:
            raise Unsupported(f"array-valued expression '{value}' in device code", loc_of(s),
                              "array-level NumPy needs the lower-numpy pass")
        if self.counts.get(target.id, 0) != 1:
            raise Unsupported(f"subview name '{target.id}' assigned more than once", loc_of(s),
                              "PyKokkos: 'Redeclaration of existing subview'")
        parent = self.views[value.base.id]
        if parent.type.ndim < 2:
            raise Unsupported(f"slice of the 1-d array '{value.base.id}'", loc_of(s), "PyKokkos rejects 1-D slices")
        indices = list(value.indices) + [n.Slice()] * (parent.type.ndim - len(value.indices))
        parts, dims, seen_slice, contiguous = [], [], False, parent.contiguous
        for d, idx in enumerate(indices):
            if isinstance(idx, n.Slice):
                if idx.step is not None:
                    raise Unsupported("subview with a step", loc_of(s))
                if idx.lower is None and idx.upper is None:
                    parts.append(":")
                    dims.append(("parent", value.base.id, d))
                else:
                    lo = self._slice_bound(value.base.id, d, idx.lower, "0")
                    hi = self._slice_bound(value.base.id, d, idx.upper, None)
                    parts.append(f"{lo}:{hi}")
                    dims.append(("text", f"({hi} - {lo})"))
                    contiguous = contiguous and not seen_slice
                seen_slice = True
            else:
                if seen_slice:
                    contiguous = False
                position = self._index(value.base.id, d, idx)
                if not _is_bare_name(position):
                    position = self.temp("row", INT64, position)
                parts.append(position)
        pk_name = self.name(target.id)
        info = ViewInfo(ArrayType(parent.type.dtype, len(dims), "C" if contiguous else "A"), "subview",
                        contiguous, dims)
        self.views[target.id] = info
        self.referenced.add(self.name(value.base.id))
        self.emit(f"{pk_name} = {self.name(value.base.id)}[{', '.join(parts)}]")

    def _slice_bound(self, view: str, dim: int, bound, default: str | None) -> str:
        if bound is None:
            return default if default is not None else self.extent(view, dim)
        if isinstance(bound, n.Const) and isinstance(bound.value, int):
            return str(bound.value) if bound.value >= 0 else f"{self.extent(view, dim)} - {-bound.value}"
        if isinstance(bound, n.Name) and self.counts.get(bound.id, 0) <= 1 and self.bounds.interval(bound).nonneg:
            return self.expr(bound)
        raise Unsupported(f"slice bound '{bound}'", loc_of(bound), "kpc needs a constant or a fixed non-negative name")

    def _s_For(self, s):
        if s.parallel is not None:
            raise Unsupported("parallel loop nested in a parallel region", loc_of(s),
                              "PyKokkos standalone workunits have no nested parallelism")
        step = s.step
        if isinstance(step, n.Const) and isinstance(step.value, int) and step.value != 0:
            step_text = spelling.literal(step.value)
        elif self.bounds.interval(step).positive:
            step_text = self.expr(step)
        else:
            raise Unsupported(f"range step '{step}' of unknown sign", loc_of(s),
                              "PyKokkos runs a variable negative step zero times")
        body_bound = names_bound(s.body)
        start = self.expr(s.start)
        stop = self.expr(s.stop)
        if any(isinstance(x, n.Name) and x.id in body_bound for x in n.walk(s.stop)):
            # Python evaluates the bound once, C++ on every iteration.
            stop = self.temp("stop", scalar_type(s.stop, INT64), stop)
        if isinstance(step, n.Const) and step.value == 1:
            args = stop if start == "0" else f"{start}, {stop}"
        else:
            args = f"{start}, {stop}, {step_text}"
        var = s.var.id
        self.emit(f"for {self.name(var)} in range({args}):")
        self.bounds.enter(s)
        self.int32.append(var)
        self.loops.append(s)
        with self.block():
            self.body(s.body)
            if not s.body:
                self.emit("pass")
        self.loops.pop()
        self.int32.pop()
        self.bounds.leave()

    def _s_While(self, s):
        with self.captured() as buffer:
            test = self.expr(s.test)
        self.loops.append(s)
        if not buffer:
            self.emit(f"while {test}:")
            with self.block():
                self.body(s.body)
        else:
            # The test needs statements: evaluate them on every iteration.
            self.emit("while True:")
            with self.block():
                self.insert(buffer)
                self.emit(f"if not ({test}):" if " " in test else f"if not {test}:")
                with self.block():
                    self.emit("break")
                self.body(s.body)
        self.loops.pop()

    def _s_If(self, s, keyword: str = "if", test: str | None = None):
        if test is None:
            test = self.expr(s.test)
        self.emit(f"{keyword} {test}:")
        with self.block():
            self.body(s.body)
            if not s.body:
                self.emit("pass")
        orelse = s.orelse
        if not orelse:
            return
        if len(orelse) == 1 and isinstance(orelse[0], n.If):
            with self.captured() as buffer:
                inner_test = self.expr(orelse[0].test)
            if not buffer:
                return self._s_If(orelse[0], "elif", inner_test)
            # The elif test needs statements: they go first in the else branch.
            self.emit("else:")
            with self.block():
                self.insert(buffer)
                self._s_If(orelse[0], "if", inner_test)
            return
        self.emit("else:")
        with self.block():
            self.body(orelse)

    def _s_Return(self, s):
        if self.kind == "function":
            if self.return_element is not None:
                if not isinstance(s.value, n.TupleExpr):
                    raise Unsupported("a tuple-returning function that returns a tuple variable", loc_of(s),
                                      "kpc splits `return a, b` into one @pk.function per element")
                self.emit(f"return {self.expr(s.value.elements[self.return_element])}")
                return
            if isinstance(s.value, n.IfExp):
                self._select(s.value, lambda text: f"return {text}")
                return
            self.emit("return" if s.value is None else f"return {self.expr(s.value)}")
            return
        if s.value is not None:
            raise Unsupported("return with a value inside a parallel loop", loc_of(s))
        self._end_iteration(s, "return")

    def _s_Continue(self, s):
        if self.kind == "workunit" and not self.loops:
            return self._end_iteration(s, "continue")
        self.emit("continue")

    def _end_iteration(self, s, what: str):
        """End this iteration of the parallel loop: ``return`` in a workunit, ``continue`` in a chunk loop."""
        if self.region_loop:
            if self.loops:
                raise Unsupported(f"{what} from inside an inner loop of a parallel reduction", loc_of(s))
            self.emit("continue")
        else:
            self.emit("return")

    def _s_Break(self, s):
        if self.kind == "workunit" and not self.loops:
            raise Unsupported("break out of a parallel loop", loc_of(s))
        self.emit("break")

    def _s_ExprStmt(self, s):
        value = s.value
        if isinstance(value, n.Const):
            return
        if isinstance(value, n.Call) and value.kind == "kernel":
            self._guarded(self._call_kernel(value))
            return
        raise Unsupported(f"expression statement '{value}' in device code", loc_of(s))


def _literal_with_precedence(value):
    text = spelling.literal(value)
    if " - " in text:
        return text, _PREC["-"]
    return text, _PREC["unary"] if text.startswith("-") else _ATOM


def _is_bare_name(text: str) -> bool:
    return text.isidentifier()
