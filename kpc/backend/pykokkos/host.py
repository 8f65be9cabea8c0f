"""IR statements -> the caller's plain Python: the serial host code of a Numba kernel.

The caller keeps the kernel's name, signature and docstring. It checks and converts
the arguments (C-contiguous arrays of the built dtype: upstream ignores strides and
copies bool arrays), runs the serial statements as Python/NumPy, dispatches every
parallel loop to its workunit (regions.py), copies converted arrays the kernel
writes back into the user's arrays, and returns what Numba returns (Python
``float``/``int``/``bool`` for scalars).

Host arithmetic is Python's, which is what Numba implements for ``//``, ``%``,
negative indices and ``range``; scalar math goes through NumPy so that domain errors
give ``nan``/``inf`` as in Numba instead of raising.

In the Cuda space (``on_device``) the caller's arrays are CuPy arrays: allocations use
``cp.``, an element the host reads comes back as a NumPy scalar (``_read``), array
results go back to NumPy unless the caller passed CuPy arrays (``_returned``), and
the Numba originals (which cannot read CuPy arrays) are never handed an array.
"""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.intrinsics import VALUE_ERRORS
from kpc.ir.types import INT64, SCALARS, UNKNOWN, ArrayType, DTypeType, NoneType, ScalarType, TupleType

from . import spelling
from .bounds import is_extent
from .helpers import BROADCAST, PASSED_CUPY, READ, RETURNED, VALUE_CHECK, WITH_ADDRESS
from .unsupported import Unsupported, loc_of

_PREC = {
    "or": 1, "and": 2, "not": 3, "cmp": 4, "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8,
    "+": 9, "-": 9, "*": 10, "/": 10, "//": 10, "%": 10, "unary": 11, "**": 12, "atom": 13, "ifexp": 0,
}
_ATOM = _PREC["atom"]

# NumPy calls the host may run as they are (allocations); anything else array-level needs lower-numpy.
HOST_NUMPY = frozenset("zeros empty ones full zeros_like empty_like ones_like full_like".split())

# Scalar math on the host: NumPy's ufuncs return nan/inf where Python's math raises, like Numba.
_HOST_MATH = {
    "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan",
    "atan2": "arctan2", "atanh": "arctanh", "pow": "power",
}
_PYTHON_MATH = frozenset("erf erfc gamma lgamma factorial".split())


class HostCode:
    """The body of one caller. ``names``: IR name -> host name (converted array arguments)."""

    def __init__(self, function: n.Function, callables: dict, taken: set, on_device: bool = False):
        self.function = function
        self.on_device = on_device
        self.arrays = "cp" if on_device else "np"  # the module that allocates the caller's arrays
        self.passed_cupy = None  # Cuda space: the name of the caller's "were CuPy arrays passed" flag
        self.helpers: set = set()  # host helpers the body uses
        self.callables = callables  # kernel name -> module-level Python name, None for device-only
        self.names: dict = {}
        self.taken = set(taken)
        self.lines: list = []
        self.depth = 0
        self.regions = None  # RegionLowering, set by the emitter
        self.numba_calls: set = set()  # device-only functions called here, through the Numba module
        # converted array arguments the body rebinds (u, v = v, u): IR name -> the view made at
        # entry, which the caller's array is written back from and a returned name is matched to
        self.entry_views: dict = {}

    def emit(self, text: str) -> None:
        self.lines.append((self.depth, text))

    def name(self, ir_name: str) -> str:
        return self.names.get(ir_name, ir_name)

    def fresh(self, prefix: str) -> str:
        candidate, k = prefix, 1
        while candidate in self.taken:
            k += 1
            candidate = f"{prefix}_{k}"
        self.taken.add(candidate)
        return candidate

    # ------------------------------------------------------------------ helpers for regions.py
    def view_argument(self, ir_name: str, ty: ArrayType) -> str:
        """A workunit keyword value for an array: bool arrays travel as their uint8 bytes (zero copy)."""
        if ty.dtype.is_bool:
            return f"{self.name(ir_name)}.view(np.uint8)"
        return self.name(ir_name)

    def int_expr(self, e) -> str:
        """A policy bound: must be a Python ``int`` (``np.int64`` is refused upstream)."""
        text = self.expr(e)
        return text if self._is_python_int(e) else f"int({text})"

    def _is_python_int(self, e) -> bool:
        if isinstance(e, n.Const):
            return isinstance(e.value, int) and not isinstance(e.value, bool)
        if is_extent(e):
            return True
        if isinstance(e, n.BinOp) and e.op in ("+", "-", "*", "//", "%"):
            return self._is_python_int(e.left) and self._is_python_int(e.right)
        if isinstance(e, n.UnaryOp) and e.op == "-":
            return self._is_python_int(e.operand)
        if isinstance(e, n.Name):
            return any(p.name == e.id and isinstance(p.type, ScalarType) and p.type.is_int
                       for p in self.function.params)
        return False

    def starts_at_zero(self, var: str, loop: n.For) -> bool:
        """Is ``var`` assigned the literal 0 right before ``loop`` in the same block?"""
        for block in _blocks(self.function.body):
            if loop in block:
                for stmt in reversed(block[: block.index(loop)]):
                    if isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name) and stmt.target.id == var:
                        return isinstance(stmt.value, n.Const) and stmt.value.value == 0
                    if var in {x.id for x in n.walk(stmt) if isinstance(x, n.Name)}:
                        return False
        return False

    # ------------------------------------------------------------------ expressions
    def expr(self, e) -> str:
        return self._expr(e)[0]

    def _wrap(self, e, minimum: int) -> str:
        text, prec = self._expr(e)
        return f"({text})" if prec < minimum else text

    def _expr(self, e):
        if isinstance(getattr(e, "type", None), DTypeType) and not isinstance(e, n.Attribute):
            return f"np.{e.type.dtype.name}", _ATOM
        method = getattr(self, f"_x_{type(e).__name__}", None)
        if method is None:
            raise Unsupported(f"{type(e).__name__.lower()} expression", loc_of(e))
        return method(e)

    def _constant(self, value):
        if value is None:
            return "None", _ATOM
        if isinstance(value, complex):
            raise Unsupported(f"complex constant {value!r}")
        if isinstance(value, int) and not isinstance(value, bool):
            return (str(value), _PREC["unary"] if value < 0 else _ATOM)  # Python ints need no C++ care
        text = spelling.literal(value)
        return text, _PREC["unary"] if text.startswith("-") else _ATOM

    def _x_Const(self, e):
        return self._constant(e.value)

    def _x_GlobalConst(self, e):
        if isinstance(e.value, (bool, int, float)):
            return self._constant(e.value)
        if isinstance(e.value, str) and e.value in SCALARS:
            # A dtype reference (``np.float64``, ``dtype=float``).
            return f"np.{e.value if e.value != 'bool' else 'bool_'}", _ATOM
        raise Unsupported(f"module-level constant '{e.name}' of type {type(e.value).__name__}", loc_of(e))

    def _x_Name(self, e):
        return self.name(e.id), _ATOM

    def _x_BinOp(self, e):
        if e.op == "@":
            raise Unsupported("matrix product '@'", loc_of(e), "array-level code needs lower-numpy")
        p = _PREC[e.op]
        if e.op == "**":
            return f"{self._wrap(e.left, p + 1)} ** {self._wrap(e.right, p)}", p
        left, right = self._wrap(e.left, p), self._wrap(e.right, p + 1)
        if getattr(e, "type", None) == INT64:  # host ints are Python ints (NEP 50: no narrower NumPy operand)
            left = f"int({left})" if _narrow_int(getattr(e.left, "type", None)) else left
            right = f"int({right})" if _narrow_int(getattr(e.right, "type", None)) else right
        return f"{left} {e.op} {right}", p

    def _x_UnaryOp(self, e):
        if e.op == "not":
            return f"not {self._wrap(e.operand, _PREC['not'])}", _PREC["not"]
        return f"{e.op}{self._wrap(e.operand, _PREC['unary'])}", _PREC["unary"]

    def _x_Compare(self, e):
        p = _PREC["cmp"]
        return f"{self._wrap(e.left, p + 1)} {e.op} {self._wrap(e.right, p + 1)}", p

    def _x_BoolOp(self, e):
        p = _PREC[e.op]
        return f" {e.op} ".join(self._wrap(v, p + 1) for v in e.values), p

    def _x_IfExp(self, e):
        return f"{self._wrap(e.body, 1)} if {self._wrap(e.test, 1)} else {self._wrap(e.orelse, 0)}", 0

    def _x_Call(self, e):
        args = [self.expr(a) for a in e.args] + [f"{k}={self.expr(v)}" for k, v in e.kwargs.items()]
        if e.kind == "kernel":
            target = self.callables.get(e.func)
            if target is None:
                raise Unsupported(f"call to '{e.func}'", loc_of(e), "not a kernel of this module")
            if target.startswith("_numba."):
                self.numba_calls.add(e.func)
                if self.on_device and any(isinstance(getattr(a, "type", None), ArrayType) for a in e.args):
                    raise Unsupported(f"serial host code passes an array to the Numba original of '{e.func}'",
                                      loc_of(e), "in the Cuda space the arrays are CuPy arrays, which Numba "
                                      "cannot read")
            return f"{target}({', '.join(args)})", _ATOM
        if e.kind == "math":
            name = e.func.split(".")[-1]
            name = spelling.NUMPY_TO_MATH.get(name, name)
            if name in _PYTHON_MATH:
                text = f"math.{name}({', '.join(args)})"
            elif name == "log" and len(args) == 2:
                text = f"np.log({args[0]}) / np.log({args[1]})"
            else:
                text = f"np.{_HOST_MATH.get(name, name)}({', '.join(args)})"
            ty = getattr(e, "type", UNKNOWN)
            if isinstance(ty, ScalarType) and ty.is_int and name not in ("isnan", "isinf", "isfinite"):
                return f"int({text})", _ATOM
            return text, _ATOM
        if e.kind == "builtin":
            if e.func in ("min", "max", "abs", "len", "int", "float", "bool", "round"):
                return f"{e.func}({', '.join(args)})", _ATOM
            # lower-numpy's broadcast checks: NumPy raises the ValueError.
            if e.func in ("broadcast_operands", "broadcast_into"):
                self.helpers.add(BROADCAST)
                target = args[0] if e.func == "broadcast_into" else "None"
                shapes = args[1:] if e.func == "broadcast_into" else args
                return f"{BROADCAST}({', '.join([target] + shapes)})", _ATOM
            if e.func == "value_check":
                self.helpers.add(VALUE_CHECK)
                return f"{VALUE_CHECK}({args[0]}, {VALUE_ERRORS[e.args[1].value]!r})", _ATOM
            raise Unsupported(f"builtin '{e.func}'", loc_of(e))
        name = e.func.split(".")[-1]
        if e.kind == "numpy" and not e.func.startswith(".") and name in HOST_NUMPY:
            return self.allocate(name, args), _ATOM
        raise Unsupported(f"NumPy call '{e.func}'", loc_of(e), "array-level NumPy needs the lower-numpy pass")

    def allocate(self, name: str, args: list[str]) -> str:
        """A host-code array allocation (np.empty, cp.zeros, ...) of the arrays module in use."""
        if self.on_device:  # an empty CuPy array has no address, which upstream refuses
            self.helpers.add(WITH_ADDRESS)
            return f"{WITH_ADDRESS}(cp.{name}({', '.join(args)}))"
        return f"{self.arrays}.{name}({', '.join(args)})"

    def _x_Cast(self, e):
        to = e.to
        if not isinstance(to, ScalarType):
            raise Unsupported(f"conversion to {to}", loc_of(e))
        text = self.expr(e.value)
        if to.is_bool:
            return f"bool({text})", _ATOM
        if to.name == "float64":
            return f"float({text})", _ATOM
        if to.name == "int64":
            return f"int({text})", _ATOM
        return f"np.{to.name}({text})", _ATOM

    def _x_Index(self, e):
        if any(isinstance(i, n.Slice) for i in e.indices):
            raise Unsupported(f"array slice '{e}'", loc_of(e), "array-level code needs the lower-numpy pass")
        inner = ", ".join(self.expr(i) for i in e.indices)
        text = f"{self._wrap(e.base, _ATOM)}[{inner}]"
        if self.on_device and _is_element(e):
            self.helpers.add(READ)
            return f"{READ}({text})", _ATOM
        return text, _ATOM

    def target(self, e) -> str:
        """A store target: elements of device arrays are written in place (no ``_read``)."""
        if isinstance(e, n.Index):
            inner = ", ".join(self.expr(i) for i in e.indices)
            return f"{self._wrap(e.base, _ATOM)}[{inner}]"
        if isinstance(e, n.TupleExpr):
            return ", ".join(self.target(t) for t in e.elements)
        return self.expr(e)

    def _x_Attribute(self, e):
        if e.attr not in ("shape", "size", "ndim", "dtype"):
            raise Unsupported(f"attribute '.{e.attr}'", loc_of(e), "array-level code needs the lower-numpy pass")
        return f"{self._wrap(e.value, _ATOM)}.{e.attr}", _ATOM

    def _x_TupleExpr(self, e):
        inner = ", ".join(self.expr(x) for x in e.elements)
        return (f"({inner},)" if len(e.elements) == 1 else f"({inner})"), _ATOM

    # ------------------------------------------------------------------ statements
    def body(self, stmts: list) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    def block(self, stmts: list) -> None:
        self.depth += 1
        self.body(stmts)
        if not stmts:
            self.emit("pass")
        self.depth -= 1

    def stmt(self, s) -> None:
        if isinstance(s, n.Assign):
            self.emit(f"{self.target(s.target)} = {self.expr(s.value)}")
        elif isinstance(s, n.AugAssign):
            value = self.expr(s.value)
            if _narrow_int(getattr(s.value, "type", None)) and getattr(s.target, "type", None) == INT64:
                value = f"int({value})"  # NEP 50: a Python int and a narrower NumPy integer would overflow
            self.emit(f"{self.target(s.target)} {s.op}= {value}")
        elif isinstance(s, n.For):
            if s.parallel is not None:
                self.regions.lower(s)
                return
            args = [self.expr(s.start), self.expr(s.stop)]
            if not (isinstance(s.step, n.Const) and s.step.value == 1):
                args.append(self.expr(s.step))
            elif args[0] == "0":
                args = args[1:]
            self.emit(f"for {self.name(s.var.id)} in range({', '.join(args)}):")
            self.block(s.body)
        elif isinstance(s, n.While):
            self.emit(f"while {self.expr(s.test)}:")
            self.block(s.body)
        elif isinstance(s, n.If):
            self._if(s, "if")
        elif isinstance(s, n.Return):
            self.emit(self.return_line(s.value))
        elif isinstance(s, n.ExprStmt):
            if isinstance(s.value, n.Const):
                return
            self.emit(self.expr(s.value))
        elif isinstance(s, n.Break):
            self.emit("break")
        elif isinstance(s, n.Continue):
            self.emit("continue")
        elif isinstance(s, n.Raise):
            self.emit(f"raise {s.exception}" + (f"({s.message!r})" if s.has_message else ""))
        else:
            raise Unsupported(f"{type(s).__name__} statement", loc_of(s))

    def _if(self, s, keyword: str) -> None:
        self.emit(f"{keyword} {self.expr(s.test)}:")
        self.block(s.body)
        if len(s.orelse) == 1 and isinstance(s.orelse[0], n.If):
            self._if(s.orelse[0], "elif")
        elif s.orelse:
            self.emit("else:")
            self.block(s.orelse)

    def return_line(self, value) -> str:
        ty = self.function.return_type
        if value is None or isinstance(ty, NoneType):
            return "return" if value is None else f"return {self.expr(value)}"
        if isinstance(ty, TupleType) and isinstance(value, n.TupleExpr):
            parts = [self._boxed(v, t) for v, t in zip(value.elements, ty.elements)]
            return f"return {', '.join(parts)}"
        return f"return {self._boxed(value, ty)}"

    def _boxed(self, value, ty) -> str:
        """What Numba hands back to Python: ``float``/``int``/``bool`` for scalars, arrays as they are."""
        if isinstance(value, n.Name) and value.id in self.entry_views:
            # A rebound argument: the caller's array whose entry view the name holds now.
            pairs = ", ".join(f"({name}, {view})" for name, view in self.entry_views.items())
            pairs += "," if len(self.entry_views) == 1 else ""
            current = self.name(value.id)
            return f"next((array for array, view in ({pairs}) if view is {current}), {current})"
        if isinstance(value, n.Name) and self.name(value.id) != value.id:
            # A converted argument: hand back the caller's own array (written back on the way out).
            return value.id
        text = self.expr(value)
        if isinstance(value, n.Const) and isinstance(ty, ScalarType) and type(value.value) is \
                (bool if ty.is_bool else int if ty.is_int else float):
            return text
        if isinstance(ty, ScalarType):
            if ty.is_bool:
                return f"bool({text})"
            if ty.is_int:
                return f"int({text})"
            if ty.is_float:
                return f"float({text})"
        if isinstance(ty, TupleType):
            raise Unsupported("returning a tuple held in a variable", loc_of(value))
        if self.on_device and isinstance(ty, ArrayType):
            self.helpers.add(RETURNED)
            if self.passed_cupy:
                self.helpers.add(PASSED_CUPY)
            return f"{RETURNED}({text}, {self.passed_cupy or 'False'})"
        return text


def _is_element(e: n.Index) -> bool:
    """Does ``e`` read one element (a scalar), not a subarray?"""
    ty, base = getattr(e, "type", None), getattr(e.base, "type", None)
    if not isinstance(base, ArrayType):
        return False  # a shape entry, a tuple element: host values already
    return isinstance(ty, ScalarType) or (not isinstance(ty, ArrayType) and base.ndim == len(e.indices))


def _blocks(body: list):
    yield body
    for stmt in body:
        for field_name in ("body", "orelse"):
            inner = getattr(stmt, field_name, None)
            if isinstance(inner, list):
                yield from _blocks(inner)


def _narrow_int(t) -> bool:
    """An integer type other than int64: a NumPy scalar in host code, where int64 values are
    Python ints (mixing the two raises OverflowError under NumPy 2's promotion rules)."""
    return isinstance(t, ScalarType) and t.is_int and t != INT64 and not t.is_bool
