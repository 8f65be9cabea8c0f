"""What element lowering builds with: ``ArrayValue`` (an array read by element), fresh locals, typed IR builders.

``Builder`` makes typed nodes at one source location and folds constant extents:

>>> from kpc.ir.nodes import NOLOC, Name
>>> from kpc.ir.types import INT64
>>> b = Builder(NOLOC)
>>> str(b.add(b.add(Name("n", INT64), b.int(-1)), b.int(-1))), str(b.mul(b.int(1), Name("m", INT64)))
('n - 2', 'm')
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Callable

from ...ir import nodes as n
from ...ir.types import INT64, ArrayType, ScalarType, TupleType
from .numpy_names import MATH_UFUNCS, short_name


@dataclass(eq=False)
class ArrayValue:
    """An array-valued expression, read element by element.

    ``shape``: extents (scalar exprs); ``element(indices, body)`` returns the scalar
    expression at ``indices`` (one per dimension), appending to ``body`` any
    statement the element needs first (inner reduction loops); ``None`` for
    uninitialised allocations (``np.empty``). ``costly``: computing one element runs an
    inner loop (axis reductions, matrix products): such a value is computed into a
    temporary before being read more than once per element. ``contiguous``: the C-contiguous
    array this value reads at its own indices, unchanged (a reshape reads it at flat positions).
    ``blocks``: a faster way to write every element than one at a time (``np.kron`` without a
    division per element; a sum along a leading axis in memory order): ``(shape, element,
    position, update)``, an iteration space, the scalar at its indices and the value's indices
    it is stored at; ``update`` None stores it, else ``(init, finish)``: every element is first
    set to ``init``, the scalars are added to it in iteration order, then ``finish(element)``
    (None: nothing) is stored.
    """

    shape: list
    element: Callable | None
    dtype: ScalarType
    costly: bool = False
    temporary: n.Name | None = None
    contiguous: n.Name | None = None
    blocks: tuple | None = None

    @property
    def ndim(self) -> int:
        return len(self.shape)


class Namer:
    """Fresh, readable local names (``i0``, ``tmp1``, ``sum0``) unused in the function."""

    def __init__(self, function: n.Function):
        self.function = function
        self.used = {p.name for p in function.params} | set(function.locals)
        for node in n.walk(function):
            if isinstance(node, n.Name):
                self.used.add(node.id)
            elif isinstance(node, n.For):
                self.used.add(node.var.id)
        self.counters: dict = {}
        self.generated: set = set()
        # Broadcast extents and strides: locals computed from array shapes only.
        self.shape_locals: set = set()
        # Broadcast strides (``bs<k>``, 0 or 1): a subset of shape_locals.
        self.strides: set = set()

    def snapshot(self):
        return set(self.used), dict(self.counters), dict(self.function.locals)

    def restore(self, state) -> None:
        self.used, self.counters = set(state[0]), dict(state[1])
        self.function.locals.clear()
        self.function.locals.update(state[2])

    def fresh(self, prefix: str, type) -> str:
        k = self.counters.get(prefix, 0)
        while f"{prefix}{k}" in self.used:
            k += 1
        self.counters[prefix] = k + 1
        name = f"{prefix}{k}"
        self.used.add(name)
        self.function.locals[name] = type
        self.generated.add(name)
        return name


# --------------------------------------------------------------------------- small builders


def clone(node):
    """A copy of an expression tree (types and locations are shared, they are immutable)."""
    return copy.deepcopy(node)


def const_int(expr):
    """The integer value of a constant expression (``3``, ``-1``), else None."""
    if isinstance(expr, (n.Const, n.GlobalConst)) and isinstance(expr.value, int) \
            and not isinstance(expr.value, bool):
        return expr.value
    if isinstance(expr, n.UnaryOp) and expr.op in "-+":
        inner = const_int(expr.operand)
        if inner is not None:
            return -inner if expr.op == "-" else inner
    return None


def split_offset(expr):
    """``(e, c)`` with ``expr`` = ``e + c`` for an integer constant ``c`` (0 when there is none)."""
    if isinstance(expr, n.BinOp) and expr.op in "+-" and const_int(expr.right) is not None:
        return expr.left, const_int(expr.right) * (1 if expr.op == "+" else -1)
    return expr, 0


def is_bool_array(expr) -> bool:
    ty = getattr(expr, "type", None)
    return isinstance(ty, ArrayType) and ty.dtype.is_bool


def is_one(expr) -> bool:
    return const_int(expr) == 1


def has_ufunc(expr) -> bool:
    """True when ``expr`` applies a math ufunc (``np.exp``, ...) or a power."""
    return any(isinstance(x, n.Call) and short_name(x.func) in MATH_UFUNCS or isinstance(x, n.BinOp) and x.op == "**"
               for x in n.walk(expr))


def same_extent(a, b) -> bool:
    """True when two extent expressions are the same (as text: ``x.shape[0] - 2``)."""
    return str(a) == str(b)


def is_nonnegative(expr) -> bool:
    """Extents taken as >= 0: constants >= 0 and expressions without a subtraction or
    floor division (slice extents such as ``n - 2`` can be negative; a size the user
    wrote, ``n + 2 * pad``, is passed on as NumPy would)."""
    value = const_int(expr)
    if value is not None:
        return value >= 0
    return not any(isinstance(x, n.BinOp) and x.op in ("-", "//") or isinstance(x, n.UnaryOp)
                   for x in n.walk(expr))


class Builder:
    """Typed IR nodes at one source location."""

    def __init__(self, loc):
        self.loc = loc

    def int(self, value: int) -> n.Const:
        return n.Const(value, INT64, self.loc)

    def const(self, value, dtype: ScalarType) -> n.Const:
        if dtype.is_bool:
            value = bool(value)
        elif dtype.is_float:
            value = float(value)
        elif dtype.is_int:
            value = int(value)
        return n.Const(value, dtype, self.loc)

    def name(self, id: str, type) -> n.Name:
        return n.Name(id, type, self.loc)

    def binop(self, op, left, right, type) -> n.BinOp:
        return n.BinOp(op, left, right, type, self.loc)

    def add(self, left, right):
        """``left + right`` on i64 extents, folding constants (``n - 1 - 1`` -> ``n - 2``)."""
        a, b = const_int(left), const_int(right)
        if a is not None and b is not None:
            return self.int(a + b)
        if a is not None:
            left, right, b = right, left, a
        if b is None:
            return self.binop("+", left, right, INT64)
        if b == 0:
            return left
        if isinstance(left, n.BinOp) and left.op in "+-" and const_int(left.right) is not None:
            inner = const_int(left.right) * (1 if left.op == "+" else -1)
            return self.add(left.left, self.int(inner + b))
        return self.binop("-", left, self.int(-b), INT64) if b < 0 else self.binop("+", left, self.int(b), INT64)

    def sub(self, left, right):
        b = const_int(right)
        if b is not None:
            return self.add(left, self.int(-b))
        (base, offset), (other, other_offset) = split_offset(left), split_offset(right)
        if str(base) == str(other):
            return self.int(offset - other_offset)  # (i + 2) - (i - 1): a window's constant extent
        if isinstance(left, n.BinOp) and left.op == "+":
            if str(left.left) == str(right):
                return left.right
            if str(left.right) == str(right):
                return left.left
        return self.binop("-", left, right, INT64)

    def mul(self, left, right):
        a, b = const_int(left), const_int(right)
        if a is not None and b is not None:
            return self.int(a * b)
        if a == 1:
            return right
        if b == 1:
            return left
        return self.binop("*", left, right, INT64)

    def cast(self, expr, dtype: ScalarType):
        if getattr(expr, "type", None) == dtype:
            return expr
        if isinstance(expr, n.Const) and not isinstance(expr.value, complex) and expr.value is not None:
            return self.const(expr.value, dtype)
        return n.Cast(dtype, expr, dtype, self.loc)

    def shape_of(self, array: n.Expr, dim: int) -> n.Index:
        ndim = array.type.ndim
        attr = n.Attribute(clone(array), "shape", TupleType((INT64,) * ndim), self.loc)
        return n.Index(attr, [self.int(dim)], INT64, self.loc)

    def builtin(self, func, args, type) -> n.Call:
        return n.Call(func, args, "builtin", {}, type, self.loc)

    def math(self, func, args, type) -> n.Call:
        return n.Call(func, args, "math", {}, type, self.loc)

    def loop(self, var: str, stop, body) -> n.For:
        return n.For(self.name(var, INT64), self.int(0), stop, self.int(1), body, "range", loc=self.loc)
