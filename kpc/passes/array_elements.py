"""Array-level expressions seen element by element: an iteration space and the scalar at an index.

``ElementLowering.array(expr)`` turns an array-typed expression into an
``ArrayValue``: its extents (scalar ``i64`` expressions; ``Const(1)`` marks a
broadcast dimension) and a function that builds the scalar expression of the
element at given indices. Element-wise chains compose into one scalar
expression (that is the fusion); whole-array reductions are hoisted into scalar
locals computed by loops placed before the consumer (``pre``); axis reductions
and matrix products compute their element with a short inner loop placed in the
consumer's loop body (``body``).

>>> from kpc.ir.nodes import BinOp, Function, Name, Param
>>> from kpc.ir.types import ArrayType, FLOAT64
>>> vec = ArrayType(FLOAT64, 1, "C")
>>> f = Function("f", [Param("a", vec), Param("b", vec)], [])
>>> low = ElementLowering(f, Namer(f), NOLOC)
>>> value = low.array(BinOp("+", Name("a", vec), Name("a", vec), type=vec), [])
>>> [str(e) for e in value.shape], str(value.element([Name("i0")], []))
(['a.shape[0]'], 'a[i0] + a[i0]')

Operands whose extents are different expressions broadcast by their run-time extents
(``pre`` gets the shape check, the result extent ``ext0`` and the broadcast strides):

>>> value = low.array(BinOp("+", Name("a", vec), Name("b", vec), type=vec), [])
>>> [str(e) for e in value.shape], str(value.element([Name("i0")], []))
(['ext0'], 'a[i0 * bs0] + b[i0 * bs1]')
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Callable

from ..ir import nodes as n
from ..ir.nodes import NOLOC
from ..ir.types import BOOL, FLOAT64, INT64, NONE, ArrayType, DTypeType, ScalarType, TupleType, promote
from .aliasing import is_subview_expr
from .host_routines import ROUTINES, host_routine
from .lowering_errors import NumpyLoweringError

# NumPy ufuncs applied per element as a scalar math intrinsic: ``Call(kind="math",
# func="np.<ufunc>")``, the frontend's spelling of a NumPy ufunc on scalars.
MATH_UFUNCS = {
    "sqrt", "cbrt", "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sin", "cos", "tan",
    "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "arctan2",
    "hypot", "fabs", "floor", "ceil", "trunc", "copysign", "isnan", "isinf", "isfinite", "fmod", "rint",
}
# np.round/np.around: rint of x scaled by 10**decimals (``rounding``).
ROUNDING = {"round", "around"}
# Element-wise ufuncs that are operators on scalars.
BINARY_UFUNCS = {
    "add": "+", "subtract": "-", "multiply": "*", "divide": "/", "true_divide": "/",
    "floor_divide": "//", "mod": "%", "remainder": "%", "power": "**", "pow": "**",
    "float_power": "**", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
    "left_shift": "<<", "right_shift": ">>",
}
COMPARE_UFUNCS = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=",
                  "equal": "==", "not_equal": "!="}
REDUCTIONS = {"sum": "sum", "prod": "prod", "product": "prod", "min": "min", "amin": "min",
              "max": "max", "amax": "max", "mean": "mean", "any": "any", "all": "all",
              "count_nonzero": "count", "var": "var", "std": "std", "argmin": "argmin",
              "argmax": "argmax"}
ALLOCATIONS = {"empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
               "full_like", "arange", "linspace", "eye", "identity"}


def short_name(func: str) -> str:
    """``np.sqrt`` / ``numpy.sqrt`` / ``math.sqrt`` / ``.sum`` -> ``sqrt`` / ``sum``."""
    for prefix in ("numpy.", "np.", "math.", "."):
        if func.startswith(prefix):
            return func[len(prefix):]
    return func


@dataclass(eq=False)
class ArrayValue:
    """An array-valued expression, read element by element.

    ``shape``: extents (scalar exprs); ``element(indices, body)`` returns the scalar
    expression at ``indices`` (one per dimension), appending to ``body`` any
    statement the element needs first (inner reduction loops); ``None`` for
    uninitialised allocations (``np.empty``). ``costly``: computing one element runs an
    inner loop (axis reductions, matrix products): such a value is computed into a
    temporary before being read more than once per element.
    """

    shape: list
    element: Callable | None
    dtype: ScalarType
    costly: bool = False
    temporary: n.Name | None = None

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
        if str(left) == str(right):
            return self.int(0)
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


# --------------------------------------------------------------------------- element lowering


class ElementLowering:
    """Builds ``ArrayValue``s and scalar expressions for the statements of one function.

    ``read_through`` maps local names to the definition their uses read instead of the
    name: views Kokkos has no subview for (``b = a.T``, ``b = a[::2]``) and local arrays
    inlined at their uses (``e = np.exp(x)`` read once).
    """

    def __init__(self, function: n.Function, namer: Namer, loc, read_through=None):
        self.function = function
        self.namer = namer
        self.b = Builder(loc)
        self.read_through = read_through if read_through is not None else {}
        # The extents the next ``array`` call's value is stored into (``out[:] = x - m``), so
        # that its element-wise operands broadcast to them directly; consumed by that call.
        self.shape_hint: list | None = None
        # Broadcast checks and strides already made for this statement, by text: the operands
        # of a stencil share them.
        self.broadcasts: dict = {}
        # Whole-array reductions already hoisted for this statement, by (op, array text):
        # ``np.exp(x - x.max()) / np.exp(x - x.max()).sum()`` computes ``x.max()`` once.
        self.hoisted: dict = {}
        # Matrix products may call the ``matmul`` routine (BLAS on the host): set for
        # statements at a kernel's host level (not in a ``prange``, not in a function called
        # from one) of the Kokkos target; else each element is a dot-product loop.
        self.products = False

    @property
    def loc(self):
        return self.b.loc

    def fail(self, construct: str, node=None, hint: str = ""):
        loc = getattr(node, "loc", None) or self.loc
        if loc == NOLOC:
            loc = self.loc
        raise NumpyLoweringError(construct, loc, hint)

    # ----------------------------------------------------------------- loops

    def loop_nest(self, shape: list, make_body) -> list:
        """``for i0 in range(shape[0]): for i1 ...: make_body([i0, i1, ...])``."""
        names = [None if is_one(e) else self.namer.fresh("i", INT64) for e in shape]
        body = make_body([self.b.int(0) if v is None else self.b.name(v, INT64) for v in names])
        for var, extent in reversed(list(zip(names, shape))):
            if var is not None:
                body = [self.b.loop(var, clone(extent), body)]
        return body

    def broadcast_indices(self, value: ArrayValue, indices: list) -> list:
        """Indices of ``value`` inside an iteration space of rank ``len(indices)`` (right-aligned)."""
        offset = len(indices) - value.ndim
        return [self.b.int(0) if is_one(ext) else clone(indices[offset + d])
                for d, ext in enumerate(value.shape)]

    def alloc_shape(self, shape: list) -> list:
        """Extents safe to allocate with: a possibly negative slice extent is clamped at 0."""
        return [clone(e) if is_nonnegative(e) else self.b.builtin("max", [clone(e), self.b.int(0)], INT64)
                for e in shape]

    def allocation(self, shape: list, dtype: ScalarType) -> n.Call:
        """The one allocation form left after lowering: ``np.empty((e0, e1), dtype=np.<dtype>)``."""
        extents = self.alloc_shape(shape)
        dims = n.TupleExpr(extents, TupleType((INT64,) * len(extents)), self.loc)
        dtype_expr = n.GlobalConst(f"np.{dtype.numpy_name}", dtype.numpy_name, DTypeType(dtype), self.loc)
        return n.Call("np.empty", [dims], "numpy", {"dtype": dtype_expr},
                      ArrayType(dtype, len(shape), "C"), self.loc)

    def materialize(self, value: ArrayValue, pre: list, prefix: str = "tmp") -> n.Name:
        """Allocate a fresh local, fill it with ``value``; statements go to ``pre``. A value
        already computed into a temporary is that temporary."""
        if value.temporary is not None:
            return clone(value.temporary)
        type = ArrayType(value.dtype, value.ndim, "C")
        tmp = self.namer.fresh(prefix, type)
        pre.append(n.Assign(self.b.name(tmp, type), self.allocation(value.shape, value.dtype), self.loc))
        pre.extend(self.fill(self.b.name(tmp, type), value))
        return self.b.name(tmp, type)

    def fill(self, target: n.Name, value: ArrayValue) -> list:
        """Loops writing every element of ``value`` into the fresh array ``target``."""
        if value.element is None:
            return []

        def body(idx):
            stmts = []
            element = value.element(idx, stmts)
            store = n.Index(clone(target), [clone(i) for i in idx], value.dtype, self.loc)
            stmts.append(n.Assign(store, self.b.cast(element, value.dtype), self.loc))
            return stmts

        return self.loop_nest(value.shape, body)

    # ----------------------------------------------------------------- scalars

    def scalar(self, expr, pre: list):
        """Lower a scalar-typed expression: hoist reductions into ``pre``, read array
        expressions through their elements. Returns the new expression."""
        if expr is None:
            return None
        if isinstance(expr, n.Call) and expr.kind in ("numpy", "math", "builtin") \
                and not isinstance(expr.type, ArrayType):
            lowered = self.scalar_call(expr, pre)
            if lowered is not None:
                return lowered
        if isinstance(expr, n.BinOp) and expr.op == "@" and not isinstance(expr.type, ArrayType):
            return self.reduce_matmul_scalar(expr, pre)
        if isinstance(expr, n.Index) and not isinstance(expr.type, ArrayType):
            base = expr.base
            if isinstance(base, n.Attribute) and base.attr == "shape" and self.needs_value(base.value):
                k = const_int(expr.indices[0]) if len(expr.indices) == 1 else None
                if k is None:
                    self.fail("a non-constant index into .shape of an array expression", expr)
                shape = self.array(base.value, pre).shape
                return clone(shape[k])
            if isinstance(base.type, ArrayType) and self.needs_value(base):
                value = self.index_value(self.array(base, pre), expr.indices, pre, expr)
                body = []
                element = value.element([], body)
                pre.extend(body)
                return element
        if isinstance(expr, n.Attribute) and isinstance(expr.value.type, ArrayType) \
                and self.needs_value(expr.value):
            if expr.attr == "size":
                return self.size(self.array(expr.value, pre).shape)
            if expr.attr == "ndim":
                return self.b.int(expr.value.type.ndim)
        if isinstance(expr, n.Call) and expr.kind == "builtin" and expr.func == "len" \
                and expr.args and self.needs_value(expr.args[0]):
            return clone(self.array(expr.args[0], pre).shape[0])
        if isinstance(expr.type, ArrayType):
            return self.array_operand(expr, pre)
        self.lower_children(expr, pre)
        return expr

    def lower_children(self, expr, pre: list) -> None:
        for field in expr.__dataclass_fields__:
            if field in ("type", "loc", "to"):
                continue
            value = getattr(expr, field)
            if isinstance(value, n.Expr):
                setattr(expr, field, self.scalar(value, pre))
            elif isinstance(value, list):
                setattr(expr, field, [self.scalar(v, pre) if isinstance(v, n.Expr) else v for v in value])
            elif isinstance(value, dict):
                setattr(expr, field, {k: self.scalar(v, pre) if isinstance(v, n.Expr) else v
                                      for k, v in value.items()})

    def needs_value(self, expr) -> bool:
        """True when ``expr`` is not a plain array name the emitters can read directly."""
        if isinstance(expr, n.Name):
            return expr.id in self.read_through
        return True

    def array_operand(self, expr, pre: list):
        """An array passed where a whole array is expected (a kernel argument, a returned
        value): views stay as they are, anything else is computed into a temporary."""
        if is_subview_expr(expr) and not self.reads_through(expr):
            self.lower_children(expr, pre)
            return expr
        return self.materialize(self.array(expr, pre), pre)

    def reads_through(self, expr) -> bool:
        return any(isinstance(node, n.Name) and node.id in self.read_through for node in n.walk(expr))

    def size(self, shape: list):
        total = self.b.int(1)
        for extent in shape:
            total = self.b.mul(total, clone(extent))
        return total

    # ----------------------------------------------------------------- array values

    def array(self, expr, pre: list) -> ArrayValue:
        """The ``ArrayValue`` of an array-typed expression."""
        ty = expr.type
        hint, self.shape_hint = self.shape_hint, None
        if not isinstance(ty, ArrayType):
            self.fail(f"an array expression of unknown type ({expr})", expr)
        if isinstance(expr, n.Name):
            if expr.id in self.read_through:
                return self.array(clone(self.read_through[expr.id]), pre)
            return self.name_value(expr)
        if isinstance(expr, n.Index):
            return self.index_value(self.array(expr.base, pre), expr.indices, pre, expr)
        if isinstance(expr, n.Attribute) and expr.attr == "T":
            return self.transpose(self.array(expr.value, pre), None)
        if isinstance(expr, n.Attribute) and expr.attr in ("real", "imag"):
            # Each element's part (``a.imag`` of real numbers: zeros, as the scalar's).
            return self.elementwise([expr.value], ty.dtype, pre,
                                    lambda a: n.Attribute(a, expr.attr, ty.dtype, self.loc), hint)
        if isinstance(expr, n.BinOp):
            if expr.op == "@":
                return self.matmul(expr.left, expr.right, ty.dtype, pre, expr)
            return self.elementwise([expr.left, expr.right], ty.dtype, pre,
                                    lambda a, c: self.b.binop(expr.op, a, c, ty.dtype), hint)
        if isinstance(expr, n.UnaryOp):
            op = "not" if expr.op == "~" and ty.dtype.is_bool else expr.op
            return self.elementwise([expr.operand], ty.dtype, pre,
                                    lambda a: n.UnaryOp(op, a, ty.dtype, self.loc), hint)
        if isinstance(expr, n.Compare):
            return self.elementwise([expr.left, expr.right], BOOL, pre,
                                    lambda a, c: n.Compare(expr.op, a, c, BOOL, self.loc), hint)
        if isinstance(expr, n.BoolOp):
            return self.elementwise(list(expr.values), ty.dtype, pre,
                                    lambda *vs: n.BoolOp(expr.op, list(vs), ty.dtype, self.loc), hint)
        if isinstance(expr, n.IfExp):
            return self.elementwise([expr.test, expr.body, expr.orelse], ty.dtype, pre,
                                    lambda t, a, c: n.IfExp(t, self.b.cast(a, ty.dtype),
                                                            self.b.cast(c, ty.dtype), ty.dtype, self.loc), hint)
        if isinstance(expr, n.Cast):
            return self.elementwise([expr.value], ty.dtype, pre, lambda a: self.b.cast(a, ty.dtype), hint)
        if isinstance(expr, n.Call) and expr.kind in ("numpy", "math", "builtin"):
            return self.call_value(expr, pre, hint)
        if isinstance(expr, n.Call) and expr.kind == "random":
            drawn = self.draws(expr, pre)
            return self.read_back(self.materialize(drawn, pre, "draws"), drawn.shape)
        self.fail(f"array expression {type(expr).__name__} `{expr}`", expr)

    def draws(self, call: n.Call, pre: list) -> ArrayValue:
        """``np.random.<f>(..., size)`` (``rand``/``randn``: extents as arguments): one scalar
        draw per element, its parameters evaluated once before, as NumPy does. Reading an
        element draws it, so this value is only ever filled into an array (``array`` reads
        it back from a temporary, an assignment draws into its target)."""
        name = short_name(call.func)[len("random."):]
        dtype = call.type.dtype
        if name in ("rand", "randn"):
            shape = [self.scalar(a, pre) for a in call.args]
            func, params = "np.random.random" if name == "rand" else "np.random.standard_normal", []
        else:
            shape = self.shape_arg(call.args[-1], pre)
            func, params = call.func, [self.drawn_once(self.scalar(a, pre), pre) for a in call.args[:-1]]

        def draw(idx, body):
            return n.Call(func, [clone(p) for p in params], "random", {}, dtype, self.loc)

        return ArrayValue(shape, draw, dtype)

    def drawn_once(self, expr, pre: list):
        """A scalar operand that draws random numbers, computed once into a local before the
        statement (NumPy draws it once, not once per element); any other expression as is."""
        if not any(isinstance(x, n.Call) and x.kind == "random" for x in n.walk(expr)):
            return expr
        name = self.namer.fresh("draw", expr.type)
        pre.append(n.Assign(self.b.name(name, expr.type), expr, self.loc))
        return self.b.name(name, expr.type)

    def name_value(self, name: n.Name) -> ArrayValue:
        ty = name.type

        def element(idx, body):
            return n.Index(clone(name), [clone(i) for i in idx], ty.dtype, self.loc)

        return ArrayValue([self.b.shape_of(name, d) for d in range(ty.ndim)], element, ty.dtype)

    def transpose(self, value: ArrayValue, axes) -> ArrayValue:
        axes = list(reversed(range(value.ndim))) if axes is None else axes
        inverse = [axes.index(d) for d in range(value.ndim)]

        def element(idx, body):
            return value.element([idx[inverse[d]] for d in range(value.ndim)], body)

        return ArrayValue([value.shape[a] for a in axes], element, value.dtype, value.costly)

    def index_value(self, base: ArrayValue, entries: list, pre: list, node) -> ArrayValue:
        """``base[entries]`` with integers, slices, ``None`` and one integer index array."""
        shape: list = []
        picks: list = []  # per base dimension: how to compute its index from the result indices
        d = 0
        for entry in entries:
            if isinstance(entry, n.Const) and entry.value is None:
                shape.append(self.b.int(1))
                continue
            if d >= base.ndim:
                self.fail(f"too many indices in `{node}`", node)
            if isinstance(entry, n.Slice):
                extent, lower, step = self.slice_dim(entry, base.shape[d], pre)
                picks.append(("slice", len(shape), lower, step))
                shape.append(extent)
            elif isinstance(getattr(entry, "type", None), ArrayType):
                if entry.type.dtype.is_bool:
                    self.fail(f"boolean mask read `{node}` (only masked assignment `a[mask] = v` "
                              "is lowered)", node)
                indexer = self.array(entry, pre)
                picks.append(("gather", len(shape), indexer))
                shape.extend(indexer.shape)
            else:
                value = self.scalar(entry, pre)
                c = const_int(value)
                if c is not None and c < 0:
                    value = self.b.add(clone(base.shape[d]), self.b.int(c))
                picks.append(("fixed", value))
            d += 1
        while d < base.ndim:
            picks.append(("slice", len(shape), self.b.int(0), 1))
            shape.append(base.shape[d])
            d += 1

        def element(idx, body):
            base_idx = []
            for pick in picks:
                if pick[0] == "fixed":
                    base_idx.append(clone(pick[1]))
                elif pick[0] == "slice":
                    _, pos, lower, step = pick
                    scaled = clone(idx[pos]) if abs(step) == 1 else self.b.mul(self.b.int(abs(step)), clone(idx[pos]))
                    base_idx.append(self.b.add(clone(lower), scaled) if step > 0 else self.b.sub(clone(lower), scaled))
                else:
                    _, pos, indexer = pick
                    sub = idx[pos:pos + indexer.ndim]
                    base_idx.append(self.b.cast(indexer.element(sub, body), INT64))
            return base.element(base_idx, body)

        return ArrayValue(shape, element, base.dtype, base.costly)

    def slice_dim(self, sl: n.Slice, extent, pre: list):
        """(extent, first index, step) of ``lower:upper:step`` over a dimension of ``extent``."""
        step = 1 if sl.step is None else const_int(sl.step)
        if step is None or step == 0:
            self.fail(f"slice step `{sl.step}` (only constant non-zero steps are lowered)", sl)

        def bound(e):
            if e is None:
                return None
            value = self.scalar(e, pre)
            c = const_int(value)
            if c is not None and c < 0:
                return self.b.add(clone(extent), self.b.int(c))
            if isinstance(value, n.UnaryOp) and value.op == "-":
                return self.b.sub(clone(extent), value.operand)
            return value

        lower, upper = bound(sl.lower), bound(sl.upper)
        if step > 0:
            lower = lower if lower is not None else self.b.int(0)
            upper = upper if upper is not None else clone(extent)
            span = self.b.sub(upper, clone(lower))
            if step != 1:
                span = self.b.binop("//", self.b.add(span, self.b.int(step - 1)), self.b.int(step), INT64)
            return span, lower, step
        lower = lower if lower is not None else self.b.add(clone(extent), self.b.int(-1))
        upper = upper if upper is not None else self.b.int(-1)
        span = self.b.sub(clone(lower), upper)
        if step != -1:
            span = self.b.binop("//", self.b.add(span, self.b.int(-step - 1)), self.b.int(-step), INT64)
        return span, lower, step

    def elementwise(self, operands: list, dtype: ScalarType, pre: list, combine, hint=None) -> ArrayValue:
        """Broadcast ``operands`` (arrays or scalars) and combine their elements. ``hint``: the
        extents the result is stored into, which its operands then broadcast to directly."""
        values = []
        for op in operands:
            ty = getattr(op, "type", None)
            if isinstance(ty, ArrayType):
                if hint is not None and ty.ndim <= len(hint):
                    self.shape_hint = hint[len(hint) - ty.ndim:]
                values.append(self.array(op, pre))
            else:
                values.append(self.drawn_once(self.scalar(op, pre), pre))
        arrays = [v for v in values if isinstance(v, ArrayValue)]
        rank = max(v.ndim for v in arrays)
        extents: list = []
        if hint is not None and len(hint) == rank:
            shape = [clone(e) for e in hint]
        else:
            shape, hint = self.broadcast_shape(arrays, rank, extents), None
        for k, v in enumerate(values):
            if isinstance(v, ArrayValue) and v.costly and self.is_broadcast(v, shape):
                values[k] = self.read_back(self.materialize(v, pre), v.shape)
        values = self.stretch(values, shape, pre, into=hint is not None, extents=extents)

        def element(idx, body):
            parts = []
            for v in values:
                if isinstance(v, ArrayValue):
                    parts.append(v.element(self.broadcast_indices(v, idx), body))
                else:
                    parts.append(clone(v))
            return combine(*parts)

        return ArrayValue(shape, element, dtype, any(isinstance(v, ArrayValue) and v.costly for v in values))

    # NumPy broadcasts by run-time extents: an extent of 1 stretches unless it is known at
    # compile time to be something else. Where two operands' extents are not the same
    # expression, the statement gets, before its loops, one check of all the shapes (a
    # ``broadcast_operands``/``broadcast_into`` call: ValueError, as NumPy raises), the
    # result extent as a local, and per operand axis a broadcast stride
    # ``bs<k> = 0 if extent == 1 else 1``; the element is read at ``i * bs<k>``. The strides
    # are loop-invariant: nothing is compared per element, and the compiler versions the
    # loop for strides of 1 (GCC's -O3 does), so the inner loop still vectorizes. A
    # select per index (``0 if flag else i``) would need one loop version per flag, which
    # compilers stop unswitching after a few operands (a stencil reads ten).

    def broadcast_shape(self, arrays: list, rank: int, extents: list) -> list:
        """The extents of ``arrays`` broadcast together (right-aligned). An axis where the
        operands' extents are different expressions gets a local ``ext<k>``, the one that is
        not 1 at run time; its definition goes to ``extents``."""
        shape = []
        for d in range(rank):
            candidates = [v.shape[d - (rank - v.ndim)] for v in arrays if d >= rank - v.ndim]
            distinct = []
            for c in candidates:
                if not is_one(c) and all(not same_extent(c, k) for k in distinct):
                    distinct.append(c)
            if len(distinct) <= 1:
                shape.append(distinct[0] if distinct else candidates[0])
                continue
            known = next((c for c in distinct if const_int(c) is not None), None)
            if known is not None:
                shape.append(known)
                continue
            value = clone(distinct[0])
            for c in distinct[1:]:
                is_unit = n.Compare("==", clone(value), self.b.int(1), BOOL, self.loc)
                value = n.IfExp(is_unit, clone(c), value, INT64, self.loc)
            ext = self.namer.fresh("ext", INT64)
            self.namer.shape_locals.add(ext)
            extents.append(n.Assign(self.b.name(ext, INT64), value, self.loc))
            shape.append(self.b.name(ext, INT64))
        return shape

    def stretch(self, values: list, shape: list, pre: list, into: bool, extents=()) -> list:
        """``values`` (``ArrayValue``s and scalars) read inside an iteration space of ``shape``:
        an axis whose extent is not the same expression as the space's is checked at run
        time and read through a broadcast stride. ``into``: the space is the shape stored into,
        which does not stretch (``broadcast_into``), else the operands' own broadcast shape
        (``broadcast_operands``). Checks and strides go to ``pre``."""
        rank = len(shape)
        per_value: list = []
        checked = False
        for v in values:
            axes = {}
            if isinstance(v, ArrayValue):
                offset = rank - v.ndim
                for d, extent in enumerate(v.shape):
                    target = shape[offset + d]
                    if is_one(extent) or same_extent(extent, target):
                        continue
                    checked = True
                    if const_int(extent) is None:
                        axes[d] = extent
            per_value.append(axes)
        if not checked:
            pre.extend(extents)
            return values
        shapes = [self.shape_tuple(v.shape) for v in values if isinstance(v, ArrayValue)]
        if into:
            # Operands of the stored shape itself broadcast to it: only the others are listed.
            target = self.shape_tuple(shape)
            shapes = [target] + list({str(t): t for t in shapes if str(t) != str(target)}.values())
        check = n.Call("broadcast_into" if into else "broadcast_operands", shapes, "builtin", {}, NONE, self.loc)
        if self.broadcasts.setdefault(str(check), check) is check:
            pre.append(n.ExprStmt(check, self.loc))
        pre.extend(extents)
        out = []
        for v, axes in zip(values, per_value):
            if not axes:
                out.append(v)
                continue
            names = {d: self.broadcast_stride(extent, pre) for d, extent in axes.items()}
            out.append(self.strided(v, names))
        return out

    def broadcast_stride(self, extent, pre: list) -> str:
        """The local ``bs<k> = 0 if extent == 1 else 1`` (made once per statement and extent)."""
        key = ("stride", str(extent))
        if key not in self.broadcasts:
            stride = self.namer.fresh("bs", INT64)
            self.namer.shape_locals.add(stride)
            self.namer.strides.add(stride)
            is_unit = n.Compare("==", clone(extent), self.b.int(1), BOOL, self.loc)
            value = n.IfExp(is_unit, self.b.int(0), self.b.int(1), INT64, self.loc)
            pre.append(n.Assign(self.b.name(stride, INT64), value, self.loc))
            self.broadcasts[key] = stride
        return self.broadcasts[key]

    def strided(self, value: ArrayValue, strides: dict) -> ArrayValue:
        """``value`` read at ``i * strides[d]`` along each axis ``d`` with a broadcast stride."""
        def element(idx, body):
            idx = [self.b.mul(clone(i), self.b.name(strides[d], INT64)) if d in strides and const_int(i) != 0
                   else i for d, i in enumerate(idx)]
            return value.element(idx, body)

        return ArrayValue(value.shape, element, value.dtype, value.costly)

    def shape_tuple(self, shape: list) -> n.TupleExpr:
        return n.TupleExpr([clone(e) for e in shape], TupleType((INT64,) * len(shape)), self.loc)

    @staticmethod
    def is_broadcast(value: ArrayValue, shape: list) -> bool:
        """True when ``value`` is (or may be, by run-time extents) read several times for one
        element of its own (broadcast)."""
        offset = len(shape) - value.ndim
        return offset > 0 or any(not is_one(shape[offset + d]) and not same_extent(e, shape[offset + d])
                                 for d, e in enumerate(value.shape))

    def read_back(self, array: n.Name, shape: list) -> ArrayValue:
        """The ``ArrayValue`` of a temporary materialised from a value of ``shape`` (whose
        unit extents still broadcast)."""
        def element(idx, body):
            return n.Index(clone(array), [clone(i) for i in idx], array.type.dtype, self.loc)

        return ArrayValue(list(shape), element, array.type.dtype, temporary=array)

    # ----------------------------------------------------------------- calls

    def arg(self, call: n.Call, pos: int, kw: str, default=None):
        """Argument ``pos`` (counted after the object of a method call) or keyword ``kw``."""
        offset = 1 if call.func.startswith(".") else 0
        if kw in call.kwargs:
            return call.kwargs[kw]
        if len(call.args) > pos + offset:
            return call.args[pos + offset]
        return default

    def subject(self, call: n.Call):
        return call.args[0]

    def call_value(self, call: n.Call, pre: list, hint: list | None = None) -> ArrayValue:
        name = short_name(call.func)
        dtype = call.type.dtype
        b = self.b
        if name in REDUCTIONS:
            axis = self.arg(call, 1, "axis")
            if axis is None or (isinstance(axis, n.Const) and axis.value is None):
                self.fail(f"`{call}` gives an array without an axis", call)
            return self.reduce_axis(REDUCTIONS[name], self.array(self.subject(call), pre),
                                    const_int(axis), dtype, call)
        if name in ALLOCATIONS:
            return self.allocation_value(name, call, pre)
        if call.func in ROUTINES:
            ((result, shape),) = host_routine(self, call, pre)
            return self.read_back(result, shape)
        if name in ("dot", "matmul"):
            return self.matmul(call.args[0], call.args[1], dtype, pre, call)
        if name in ("copy", "ascontiguousarray", "asfortranarray", "array", "asarray"):
            if name == "array" and not isinstance(getattr(call.args[0], "type", None), ArrayType):
                self.fail(f"`{call}` builds an array from a Python sequence", call)
            return self.array(self.subject(call), pre)
        if name == "astype":
            return self.elementwise([call.args[0]], dtype, pre, lambda a: b.cast(a, dtype), hint)
        if name == "transpose":
            axes = self.arg(call, 1, "axes")
            perm = None
            if axes is not None:
                perm = [const_int(e) for e in getattr(axes, "elements", [])]
                if not perm or None in perm:
                    self.fail(f"`{call}` with non-constant axes", call)
            return self.transpose(self.array(self.subject(call), pre), perm)
        if name == "reshape":
            return self.reshape(call, pre)
        if name == "outer":
            left, right = self.array(call.args[0], pre), self.array(call.args[1], pre)
            if left.ndim != 1 or right.ndim != 1:
                self.fail(f"`{call}` of arrays that are not 1-D", call)

            def element(idx, body):
                x = left.element([idx[0]], body)
                y = right.element([idx[1]], body)
                return b.binop("*", b.cast(x, dtype), b.cast(y, dtype), dtype)

            return ArrayValue([left.shape[0], right.shape[0]], element, dtype)
        if name in ("flip", "fliplr", "flipud"):
            source = self.array(call.args[0], pre)
            axis = self.arg(call, 1, "axis")
            if name == "fliplr":
                axes = [1]
            elif name == "flipud":
                axes = [0]
            elif axis is None or (isinstance(axis, n.Const) and axis.value is None):
                axes = list(range(source.ndim))
            else:
                entries = axis.elements if isinstance(axis, n.TupleExpr) else [axis]
                axes = [const_int(e) for e in entries]
                if None in axes:
                    self.fail(f"`{call}` with a non-constant axis", call)
                axes = [a + source.ndim if a < 0 else a for a in axes]
                if not all(0 <= a < source.ndim for a in axes):
                    self.fail(f"`{call}`: axis out of range", call)

            def flipped(idx, body):
                return source.element([b.sub(b.add(clone(source.shape[d]), b.int(-1)), clone(i)) if d in axes
                                       else i for d, i in enumerate(idx)], body)

            return ArrayValue(source.shape, flipped, source.dtype, source.costly)
        if name in ("triu", "tril"):
            source = self.array(call.args[0], pre)
            if source.ndim != 2:
                self.fail(f"`{call}` of an array that is not 2-D", call)
            k = self.scalar(self.arg(call, 1, "k", b.int(0)), pre)

            def element(idx, body):
                op = ">=" if name == "triu" else "<="
                keep = n.Compare(op, clone(idx[1]), b.add(clone(idx[0]), clone(k)), BOOL, self.loc)
                return n.IfExp(keep, b.cast(source.element(idx, body), dtype), b.const(0, dtype),
                               dtype, self.loc)

            return ArrayValue(source.shape, element, dtype)
        if name in ROUNDING:
            return self.elementwise([call.args[0]], dtype, pre, self.rounding(call, dtype), hint)
        if name == "where":
            if len(call.args) != 3:
                self.fail(f"`{call}` with one argument (np.nonzero form)", call)
            return self.elementwise(call.args, dtype, pre,
                                    lambda t, x, y: n.IfExp(t, b.cast(x, dtype), b.cast(y, dtype),
                                                            dtype, self.loc), hint)
        if name == "clip":
            def clip(x, lo, hi):
                low = b.builtin("max", [b.cast(x, dtype), b.cast(lo, dtype)], dtype)
                return b.builtin("min", [low, b.cast(hi, dtype)], dtype)
            return self.elementwise(call.args[:3], dtype, pre, clip, hint)
        if name in ("cumsum", "cumprod"):
            return self.scan(name, call, pre)
        if name in ("concatenate", "hstack", "vstack", "stack"):
            return self.joined(name, call, pre)
        if name in ("ravel", "flatten"):
            return self.flat(self.array(self.subject(call), pre), None)
        if name == "isclose":
            return self.elementwise(call.args[:2], BOOL, pre, self.close_to(call, pre), hint)
        if name in ("diff",):
            source = self.array(call.args[0], pre)
            if source.ndim != 1 or self.arg(call, 1, "n") is not None:
                self.fail(f"`{call}` other than the first difference of a 1-D array", call)

            def element(idx, body):
                nxt = source.element([b.add(clone(idx[0]), b.int(1))], body)
                return b.binop("-", b.cast(nxt, dtype), b.cast(source.element(idx, body), dtype), dtype)

            return ArrayValue([b.add(clone(source.shape[0]), b.int(-1))], element, dtype)
        return self.elementwise(self.ufunc_args(call), dtype, pre, self.ufunc(call, dtype), hint)

    def ufunc_args(self, call: n.Call) -> list:
        if call.kwargs:
            self.fail(f"keyword arguments of `{call}`", call)
        return list(call.args)

    def ufunc(self, call: n.Call, dtype: ScalarType):
        """The scalar form of an element-wise NumPy function: a function of the element values."""
        name = short_name(call.func)
        b = self.b
        if name in MATH_UFUNCS:
            func = f"np.{name}"
            float_result = dtype.is_float or dtype.is_complex

            def math_call(*xs):
                args = [b.cast(x, dtype) if float_result and not x.type.is_float else x for x in xs]
                return b.math(func, args, dtype)
            return math_call
        if name in BINARY_UFUNCS:
            return lambda x, y: b.binop(BINARY_UFUNCS[name], x, y, dtype)
        if name in COMPARE_UFUNCS:
            return lambda x, y: n.Compare(COMPARE_UFUNCS[name], x, y, BOOL, self.loc)
        if name in ("abs", "absolute"):
            return lambda x: b.builtin("abs", [x], dtype)
        if name in ("maximum", "fmax", "minimum", "fmin"):
            func = "max" if name in ("maximum", "fmax") else "min"
            if dtype.is_float:
                return lambda x, y: self.nan_aware_extreme(name, b.cast(x, dtype), b.cast(y, dtype), dtype)
            return lambda x, y: b.builtin(func, [b.cast(x, dtype), b.cast(y, dtype)], dtype)
        if name == "sign":
            def sign(x):
                positive = n.Compare(">", x, b.const(0, x.type), BOOL, self.loc)
                negative = n.Compare("<", clone(x), b.const(0, x.type), BOOL, self.loc)
                inner = n.IfExp(negative, b.const(-1, dtype), b.cast(clone(x), dtype), dtype, self.loc)
                return n.IfExp(positive, b.const(1, dtype), inner, dtype, self.loc)
            return sign
        if name == "square":
            return lambda x: b.binop("*", x, clone(x), dtype)
        if name == "negative":
            return lambda x: n.UnaryOp("-", x, dtype, self.loc)
        if name == "reciprocal":
            return lambda x: b.binop("/", b.const(1, dtype), x, dtype)
        if name == "positive" or (name in ("conj", "conjugate") and not dtype.is_complex):
            return lambda x: b.cast(x, dtype)
        if name == "invert":
            return lambda x: n.UnaryOp("not" if dtype.is_bool else "~", x, dtype, self.loc)
        if name in ("deg2rad", "radians", "rad2deg", "degrees"):
            factor = math.pi / 180.0 if name in ("deg2rad", "radians") else 180.0 / math.pi
            return lambda x: b.binop("*", b.cast(x, dtype), b.const(factor, dtype), dtype)
        if name in ("logical_and", "logical_or"):
            op = name.split("_")[1]
            return lambda x, y: n.BoolOp(op, [x, y], BOOL, self.loc)
        if name == "logical_not":
            return lambda x: n.UnaryOp("not", x, BOOL, self.loc)
        if name == "logical_xor":
            return lambda x, y: n.Compare("!=", b.cast(x, BOOL), b.cast(y, BOOL), BOOL, self.loc)
        if name in ("float64", "float32", "int64", "int32", "bool_", "float", "int", "bool"):
            return lambda x: b.cast(x, dtype)
        self.fail(f"NumPy function `{call.func}`", call)

    def rounding(self, call: n.Call, dtype: ScalarType):
        """``np.round(x, decimals)`` of one element, as Numba computes it (``round_ndigits`` of
        numba/np/arraymath.py, CPython's algorithm): decimals 0 is ``rint`` (half to even; an
        integer is itself); decimals d > 0 is ``rint(x * 10.0**d) / 10.0**d`` in float64, ``x``
        itself where the product overflows (NumPy would give inf there); d < 0 is
        ``rint(x / 10.0**-d) * 10.0**-d``; the result converted to ``dtype`` (float64 for a
        scalar, the array's dtype for an array, int64 for integers). ``decimals`` must be a
        constant integer."""
        b = self.b
        if "out" in call.kwargs or len(call.args) > 2 or set(call.kwargs) - {"decimals"}:
            self.fail(f"`{call}` with an out array", call)
        decimals = const_int(self.arg(call, 1, "decimals", b.int(0)))
        if decimals is None:
            self.fail(f"`{call}` with decimals that are not a constant integer", call)

        def rounded(x):
            if x.type.is_complex or x.type.is_bool:
                self.fail(f"`{call}` of {x.type.name} values", call)
            if decimals == 0:
                return b.cast(b.math("np.rint", [x], x.type), dtype) if x.type.is_float else b.cast(x, dtype)
            if any(isinstance(e, n.Call) and e.kind in ("kernel", "random") for e in n.walk(x)):
                self.fail(f"`{call}` of a call (it is read more than once)", call)
            value = b.cast(x, FLOAT64)
            if decimals < 0:
                scale = b.const(10.0 ** -decimals, FLOAT64)
                quotient = b.binop("/", value, scale, FLOAT64)
                result = b.binop("*", b.math("np.rint", [quotient], FLOAT64), clone(scale), FLOAT64)
                return b.cast(result, dtype)
            # CPython splits a scale beyond 1e22 in two so that neither factor overflows.
            factors = [10.0 ** decimals] if decimals <= 22 else [10.0 ** (decimals - 22), 1e22]
            scaled = value
            for factor in factors:
                scaled = b.binop("*", scaled, b.const(factor, FLOAT64), FLOAT64)
            result = b.math("np.rint", [clone(scaled)], FLOAT64)
            for factor in reversed(factors):
                result = b.binop("/", result, b.const(factor, FLOAT64), FLOAT64)
            overflows = b.math("np.isinf", [scaled], BOOL)
            return b.cast(n.IfExp(overflows, clone(value), result, FLOAT64, self.loc), dtype)

        return rounded

    def scalar_call(self, call: n.Call, pre: list):
        """A scalar-valued NumPy call: a reduction (hoisted) or a ufunc on scalars; None if
        the call is not NumPy-specific (a math intrinsic, a builtin)."""
        name = short_name(call.func)
        subject = call.args[0] if call.args else None
        has_array_arg = any(isinstance(getattr(a, "type", None), ArrayType) for a in call.args)
        if name in REDUCTIONS and has_array_arg and isinstance(subject, n.Index) \
                and len(subject.indices) == 1 and is_bool_array(subject.indices[0]):
            return self.reduce_masked(REDUCTIONS[name], subject, call.type, pre, call)
        if name in REDUCTIONS and has_array_arg:
            axis = self.arg(call, 1, "axis")
            if axis is not None and not (isinstance(axis, n.Const) and axis.value is None):
                if const_int(axis) is None or self.array(subject, pre).ndim != 1:
                    self.fail(f"`{call}` with an axis on a scalar result", call)
            key = (REDUCTIONS[name], str(subject), str(call.type))
            return self.reduce_all(REDUCTIONS[name], self.array(subject, pre), call.type, pre, call, key=key)
        if name in ("dot", "matmul", "vdot", "inner") and has_array_arg:
            return self.reduce_matmul_scalar(n.BinOp("@", call.args[0], call.args[1], call.type, call.loc), pre)
        if name == "item" and has_array_arg:
            value = self.array(subject, pre)
            return self.b.cast(value.element([self.b.int(0)] * value.ndim, pre), call.type)
        if name == "allclose" and has_array_arg:
            close = self.elementwise(call.args[:2], BOOL, pre, self.close_to(call, pre))
            return self.reduce_all("all", close, BOOL, pre, call)
        if name == "trace" and has_array_arg:
            value = self.array(subject, pre)
            extent = self.b.builtin("min", [clone(value.shape[0]), clone(value.shape[1])], INT64)
            diagonal = ArrayValue([extent], lambda idx, body: value.element([idx[0], clone(idx[0])], body),
                                  value.dtype)
            return self.reduce_all("sum", diagonal, call.type, pre, call)
        if name == "linalg.norm" and has_array_arg:
            if len(call.args) > 1 or call.kwargs:
                self.fail(f"`{call}` with an order or axis (only the 2-norm / Frobenius norm)", call)
            value = self.array(subject, pre)
            squares = ArrayValue(value.shape, lambda idx, body: self.square(value.element(idx, body), call.type),
                                 call.type)
            total = self.reduce_all("sum", squares, call.type, pre, call)
            return self.b.math("np.sqrt", [total], call.type)
        if call.kind == "numpy" and not has_array_arg and (name in REDUCTIONS or name in ("where", "clip")):
            return self.scalar_form(name, call, pre)
        if name in ("maximum", "minimum", "fmax", "fmin") and not has_array_arg and len(call.args) == 2:
            # NumPy's NaN rules, not Python's min/max (kept for integers).
            args = [self.b.cast(self.scalar(a, pre), call.type) for a in call.args]
            if call.type.is_float:
                return self.nan_aware_extreme(name, *args, call.type)
            return self.b.builtin("max" if name in ("maximum", "fmax") else "min", args, call.type)
        if call.kind != "numpy":
            if has_array_arg and call.func in ("min", "max", "sum"):
                self.fail(f"builtin `{call.func}` over an array (use np.{call.func})", call)
            return None
        if has_array_arg:
            self.fail(f"`{call}` gives a scalar from arrays", call)
        if name in ROUNDING:
            return self.rounding(call, call.type)(self.scalar(call.args[0], pre))
        args = [self.scalar(a, pre) for a in call.args]
        if name in ("float64", "float32", "int64", "int32", "int16", "int8", "uint64", "uint32",
                    "uint8", "bool_", "intp", "float_", "double"):
            return self.b.cast(args[0], call.type)
        return self.ufunc(call, call.type)(*args)

    def scalar_form(self, name: str, call: n.Call, pre: list):
        """NumPy reductions, ``np.where`` and ``np.clip`` applied to scalars (0-d values)."""
        b = self.b
        args = [self.scalar(a, pre) for a in call.args]
        dtype = call.type
        if name == "where":
            return n.IfExp(args[0], b.cast(args[1], dtype), b.cast(args[2], dtype), dtype, self.loc)
        if name == "clip":
            low = b.builtin("max", [b.cast(args[0], dtype), b.cast(args[1], dtype)], dtype)
            return b.builtin("min", [low, b.cast(args[2], dtype)], dtype)
        op = REDUCTIONS[name]
        if op in ("argmin", "argmax"):
            return b.int(0)
        if op in ("var", "std"):
            return b.const(0, dtype)
        if op in ("any", "all", "count"):
            truth = args[0] if args[0].type == BOOL else n.Compare("!=", args[0], b.const(0, args[0].type),
                                                                  BOOL, self.loc)
            return b.cast(truth, dtype)
        return b.cast(args[0], dtype)

    def allocation_value(self, name: str, call: n.Call, pre: list) -> ArrayValue:
        b = self.b
        dtype = call.type.dtype
        if name.endswith("_like"):
            shape = self.array(call.args[0], pre).shape
        elif name in ("eye", "identity"):
            rows = self.scalar(call.args[0], pre)
            cols = self.arg(call, 1, "M")
            cols = rows if name == "identity" or cols is None or (
                isinstance(cols, n.Const) and cols.value is None) else self.scalar(cols, pre)
            k = self.scalar(self.arg(call, 2, "k", b.int(0)), pre) if name == "eye" else b.int(0)

            def eye(idx, body):
                on = n.Compare("==", clone(idx[1]), b.add(clone(idx[0]), clone(k)), BOOL, self.loc)
                return n.IfExp(on, b.const(1, dtype), b.const(0, dtype), dtype, self.loc)

            return ArrayValue([rows, clone(cols)], eye, dtype)
        elif name == "arange":
            return self.arange(call, dtype, pre)
        elif name == "linspace":
            return self.linspace(call, dtype, pre)
        else:
            shape = self.shape_arg(call.args[0], pre)
        if name.startswith("empty"):
            return ArrayValue(shape, None, dtype)
        if name.startswith("zeros"):
            fill = b.const(0, dtype)
        elif name.startswith("ones"):
            fill = b.const(1, dtype)
        else:
            fill = b.cast(self.scalar(self.arg(call, 1, "fill_value"), pre), dtype)
        return ArrayValue(shape, lambda idx, body: clone(fill), dtype)

    def shape_arg(self, shape, pre: list) -> list:
        """Extents of a shape argument: ``n``, ``(n, m)``, ``a.shape``, a tuple local."""
        if isinstance(shape, n.TupleExpr):
            return [self.scalar(e, pre) for e in shape.elements]
        if isinstance(shape.type, TupleType):
            if isinstance(shape, n.Attribute) and shape.attr == "shape":
                return self.array(shape.value, pre).shape
            return [n.Index(clone(shape), [self.b.int(k)], INT64, self.loc)
                    for k in range(len(shape.type.elements))]
        return [self.scalar(shape, pre)]

    def arange(self, call: n.Call, dtype: ScalarType, pre: list) -> ArrayValue:
        b = self.b
        args = [self.scalar(a, pre) for a in call.args]
        if "dtype" in call.kwargs and len(args) > 3:
            args = args[:3]
        start, stop, step = (b.int(0), args[0], b.int(1)) if len(args) == 1 else \
            (args[0], args[1], args[2] if len(args) > 2 else b.int(1))
        c = const_int(step)
        if all(getattr(x.type, "is_int", False) for x in (start, stop, step)) and c is not None and c > 0:
            extent = b.sub(stop, start)
            if c != 1:
                extent = b.binop("//", b.add(extent, b.int(c - 1)), b.int(c), INT64)
        else:
            span = b.binop("/", b.binop("-", clone(stop), clone(start), FLOAT64), clone(step), FLOAT64)
            extent = b.cast(b.math("np.ceil", [span], FLOAT64), INT64)

        def element(idx, body):
            offset = clone(idx[0]) if c == 1 else b.binop("*", clone(idx[0]), clone(step),
                                                         promote(INT64, step.type))
            return b.cast(b.binop("+", clone(start), offset, dtype), dtype)

        return ArrayValue([extent], element, dtype)

    def linspace(self, call: n.Call, dtype: ScalarType, pre: list) -> ArrayValue:
        b = self.b
        start = b.cast(self.scalar(call.args[0], pre), dtype)
        stop = b.cast(self.scalar(call.args[1], pre), dtype)
        num = self.scalar(self.arg(call, 2, "num", b.int(50)), pre)
        if "endpoint" in call.kwargs:
            self.fail("np.linspace(endpoint=...)", call)

        def element(idx, body):
            last = b.builtin("max", [b.add(clone(num), b.int(-1)), b.int(1)], INT64)
            step = b.binop("/", b.binop("-", clone(stop), clone(start), dtype), b.cast(last, dtype), dtype)
            return b.binop("+", clone(start), b.binop("*", b.cast(clone(idx[0]), dtype), step, dtype), dtype)

        return ArrayValue([num], element, dtype)

    def reshape(self, call: n.Call, pre: list) -> ArrayValue:
        """``a.reshape(shape)`` read in C order: adding or dropping unit dimensions of a 1-D
        array maps indices directly; any other shape goes through the flat index."""
        source = self.array(self.subject(call), pre)
        dims = call.args[1:]
        if len(dims) == 1 and isinstance(dims[0], n.TupleExpr):
            dims = dims[0].elements
        elif len(dims) == 1 and isinstance(getattr(dims[0], "type", None), TupleType):
            dims = self.shape_arg(dims[0], pre)
        if "order" in call.kwargs:
            self.fail(f"`{call}` with an order", call)
        consts = [const_int(d) for d in dims]
        kept = [c for c in consts if c != 1]
        if source.ndim == 1 and len(kept) == 1 and kept[0] == -1:
            shape = [self.b.int(1) if c == 1 else source.shape[0] for c in consts]
            pos = consts.index(-1)
            return ArrayValue(shape, lambda idx, body: source.element([idx[pos]], body), source.dtype,
                              source.costly)
        if consts.count(-1) > 1:
            self.fail(f"`{call}` with more than one -1", call)
        extents = [self.scalar(d, pre) for d in dims]
        if -1 in consts:
            known = self.size([e for e, c in zip(extents, consts) if c != -1])
            extents[consts.index(-1)] = self.b.binop("//", self.size(source.shape), known, INT64)
        return self.flat(source, extents)

    def flat(self, source: ArrayValue, shape: list | None) -> ArrayValue:
        """``source`` read in C order as an array of ``shape`` (1-D when None): each result
        index becomes a flat position, split back into ``source``'s indices."""
        b = self.b
        shape = [self.size(source.shape)] if shape is None else shape

        def element(idx, body):
            position = clone(idx[0])
            for d in range(1, len(shape)):
                position = b.add(b.mul(position, clone(shape[d])), clone(idx[d]))
            parts = []
            for d in reversed(range(source.ndim)):
                if d == 0:
                    parts.append(position)
                else:
                    parts.append(b.binop("%", clone(position), clone(source.shape[d]), INT64))
                    position = b.binop("//", position, clone(source.shape[d]), INT64)
            return source.element(list(reversed(parts)), body)

        return ArrayValue(shape, element, source.dtype, source.costly)

    def joined(self, name: str, call: n.Call, pre: list) -> ArrayValue:
        """``np.concatenate``/``hstack``/``vstack``/``stack`` of a tuple of arrays: each element
        is read from the part its index falls in (a chain of ``IfExp``)."""
        b = self.b
        dtype = call.type.dtype
        items = call.args[0]
        if not isinstance(items, n.TupleExpr) or not items.elements:
            self.fail(f"`{call}` of something other than a tuple of arrays written in place", call)
        parts = []
        for item in items.elements:
            part = self.array(item, pre) if isinstance(item.type, ArrayType) else None
            if part is None:
                self.fail(f"`{call}` with a scalar part", call)
            parts.append(self.read_back(self.materialize(part, pre), part.shape) if part.costly else part)
        ndim = parts[0].ndim
        if name == "stack":
            axis = const_int(self.arg(call, 1, "axis", b.int(0)))
        elif name == "hstack":
            axis = 0 if ndim == 1 else 1
        elif name == "vstack":
            axis = 0
            if ndim == 1:
                parts = [ArrayValue([b.int(1)] + p.shape, lambda idx, body, p=p: p.element(idx[1:], body), p.dtype)
                         for p in parts]
        else:
            axis = const_int(self.arg(call, 1, "axis", b.int(0)))
        if axis is None:
            self.fail(f"`{call}` with a non-constant or None axis", call)
        if name == "stack":
            axis = axis + ndim + 1 if axis < 0 else axis
            shape = parts[0].shape[:axis] + [b.int(len(parts))] + parts[0].shape[axis:]

            def pick(idx, body):
                rest = idx[:axis] + idx[axis + 1:]
                value = b.cast(parts[-1].element(rest, body), dtype)
                for j in reversed(range(len(parts) - 1)):
                    test = n.Compare("==", clone(idx[axis]), b.int(j), BOOL, self.loc)
                    value = n.IfExp(test, b.cast(parts[j].element(rest, body), dtype), value, dtype, self.loc)
                return value

            return ArrayValue(shape, pick, dtype)
        axis = axis + parts[0].ndim if axis < 0 else axis
        starts, total = [], b.int(0)
        for p in parts:
            starts.append(total)
            total = b.add(clone(total), clone(p.shape[axis]))
        shape = parts[0].shape[:axis] + [total] + parts[0].shape[axis + 1:]

        def element(idx, body):
            def at(j):
                local = [clone(i) for i in idx]
                local[axis] = b.sub(clone(idx[axis]), clone(starts[j]))
                return b.cast(parts[j].element(local, body), dtype)

            value = at(len(parts) - 1)
            for j in reversed(range(len(parts) - 1)):
                end = b.add(clone(starts[j]), clone(parts[j].shape[axis]))
                value = n.IfExp(n.Compare("<", clone(idx[axis]), end, BOOL, self.loc), at(j), value, dtype, self.loc)
            return value

        return ArrayValue(shape, element, dtype)

    def scan(self, name: str, call: n.Call, pre: list) -> ArrayValue:
        """``np.cumsum``/``np.cumprod`` (flattened, axis=None): a serial loop into a temporary."""
        if self.arg(call, 1, "axis") is not None:
            self.fail(f"`{call}` along an axis", call)
        b = self.b
        dtype = call.type.dtype
        source = self.array(self.subject(call), pre)
        source = source if source.ndim == 1 else self.flat(source, None)
        type = ArrayType(dtype, 1, "C")
        out = self.namer.fresh("tmp", type)
        acc = self.namer.fresh(name[3:], dtype)
        pre.append(n.Assign(b.name(out, type), self.allocation(source.shape, dtype), self.loc))
        pre.append(n.Assign(b.name(acc, dtype), b.const(0 if name == "cumsum" else 1, dtype), self.loc))

        def body(idx):
            stmts = []
            element = b.cast(source.element(idx, stmts), dtype)
            stmts.append(n.AugAssign(b.name(acc, dtype), "+" if name == "cumsum" else "*", element, loc=self.loc))
            stmts.append(n.Assign(n.Index(b.name(out, type), [clone(idx[0])], dtype, self.loc),
                                  b.name(acc, dtype), self.loc))
            return stmts

        pre.extend(self.loop_nest(source.shape, body))
        return self.read_back(b.name(out, type), source.shape)

    def close_to(self, call: n.Call, pre: list):
        """``|a - b| <= atol + rtol * |b|`` (np.isclose's test, NaNs never close)."""
        b = self.b
        rtol = self.scalar(self.arg(call, 2, "rtol", n.Const(1e-05, FLOAT64, self.loc)), pre)
        atol = self.scalar(self.arg(call, 3, "atol", n.Const(1e-08, FLOAT64, self.loc)), pre)

        def test(x, y):
            x, y = b.cast(x, FLOAT64), b.cast(y, FLOAT64)
            gap = b.builtin("abs", [b.binop("-", x, y, FLOAT64)], FLOAT64)
            bound = b.binop("+", clone(atol), b.binop("*", clone(rtol), b.builtin("abs", [clone(y)], FLOAT64),
                                                      FLOAT64), FLOAT64)
            return n.Compare("<=", gap, bound, BOOL, self.loc)

        return test

    def square(self, x, dtype):
        x = self.b.cast(x, dtype)
        return self.b.binop("*", x, clone(x), dtype)

    # ----------------------------------------------------------------- reductions

    def nan_aware_extreme(self, name, x, y, dtype) -> n.Expr:
        """NumPy's ``maximum(x, y)``: ``x if x >= y or x != x else y`` (a NaN either side is
        the result); ``fmax``: ``x if x >= y or y != y else y`` (a NaN loses to a number);
        ``minimum``/``fmin`` with ``<=``."""
        compare = n.Compare(">=" if name in ("maximum", "fmax") else "<=", x, y, BOOL, self.loc)
        nan_side = clone(x) if name in ("maximum", "minimum") else clone(y)
        is_nan = n.Compare("!=", nan_side, clone(nan_side), BOOL, self.loc)
        test = n.BoolOp("or", [compare, is_nan], BOOL, self.loc)
        return n.IfExp(test, clone(x), clone(y), dtype, self.loc)

    def reduction_init(self, op, dtype, first):
        if op in ("sum", "mean", "count", "var", "std"):
            return self.b.const(0, dtype)
        if op == "prod":
            return self.b.const(1, dtype)
        if op == "any":
            return self.b.const(False, BOOL)
        if op == "all":
            return self.b.const(True, BOOL)
        if op in ("min", "max") and dtype.is_float and self.skips_nan():
            return self.b.const(float("inf") if op == "min" else float("-inf"), dtype)
        return first()

    def skips_nan(self) -> bool:
        """Numba's ``parallel=True`` lowers ``np.min``/``np.max`` to a parfor reduction from
        +-inf that skips NaNs (``np.max([nan, 1.0])`` is 1.0, of all NaNs -inf); without it,
        as NumPy, a NaN anywhere is the result."""
        return bool(self.function.options.get("parallel"))

    def element_local(self, element, dtype, stmts: list) -> n.Expr:
        """``element`` as a fresh local (assigned in ``stmts``) when reading it twice would
        compute it twice."""
        if isinstance(element, (n.Name, n.Const)) or (
                isinstance(element, n.Index) and isinstance(element.base, n.Name)):
            return element
        local = self.namer.fresh("v", dtype)
        stmts.append(n.Assign(self.b.name(local, dtype), element, self.loc))
        return self.b.name(local, dtype)

    def nan_sticky_update(self, op, acc: str, dtype, element, stmts: list) -> n.Stmt:
        """``acc = e if e > acc or e != e else acc`` (``<`` for min): NumPy's min/max, where
        the first NaN stays. A serial form: reduction recognition does not see through it."""
        b = self.b
        value = self.element_local(b.cast(element, dtype), dtype, stmts)
        better = n.Compare("<" if op == "min" else ">", value, b.name(acc, dtype), BOOL, self.loc)
        is_nan = n.Compare("!=", clone(value), clone(value), BOOL, self.loc)
        test = n.BoolOp("or", [better, is_nan], BOOL, self.loc)
        return n.Assign(b.name(acc, dtype), n.IfExp(test, clone(value), b.name(acc, dtype), dtype, self.loc),
                        self.loc)

    def reduction_update(self, op, acc: str, dtype, element) -> n.Stmt:
        b = self.b
        target = b.name(acc, dtype)
        if op in ("sum", "mean"):
            return n.AugAssign(target, "+", b.cast(element, dtype), loc=self.loc)
        if op == "prod":
            return n.AugAssign(target, "*", b.cast(element, dtype), loc=self.loc)
        if op == "count":
            nonzero = element if element.type == BOOL else n.Compare(
                "!=", element, b.const(0, element.type), BOOL, self.loc)
            return n.AugAssign(target, "+", b.cast(nonzero, dtype), loc=self.loc)
        if op in ("min", "max"):
            return n.Assign(target, b.builtin(op, [b.name(acc, dtype), b.cast(element, dtype)], dtype),
                            self.loc)
        if op in ("any", "all"):
            truth = element if element.type == BOOL else b.cast(element, BOOL)
            join = "or" if op == "any" else "and"
            return n.Assign(target, n.BoolOp(join, [b.name(acc, dtype), truth], BOOL, self.loc), self.loc)
        raise AssertionError(op)

    def reduce_into(self, call, target: n.Name, pre: list) -> bool:
        """``s = np.sum(x)``: accumulate straight into ``s`` when ``x`` does not read ``s``;
        False when ``call`` is not such a reduction."""
        if not (isinstance(call, n.Call) and call.kind == "numpy" and call.args):
            return False
        op = REDUCTIONS.get(short_name(call.func))
        axis = self.arg(call, 1, "axis")
        if op not in ("sum", "prod", "min", "max", "mean", "any", "all", "count") \
                or not isinstance(self.subject(call).type, ArrayType) \
                or (axis is not None and not (isinstance(axis, n.Const) and axis.value is None)) \
                or self.function.locals.get(target.id, call.type) != call.type \
                or any(isinstance(x, n.Name) and x.id == target.id for x in n.walk(call)):
            return False
        self.reduce_all(op, self.array(self.subject(call), pre), call.type, pre, call, target.id)
        return True

    def reduce_all(self, op, source: ArrayValue, dtype, pre: list, node, acc: str | None = None,
                   key=None) -> n.Expr:
        """Hoist ``op`` over every element of ``source`` into a scalar local (``acc``, else a
        fresh one); returns its name. ``key`` names the reduction for reuse in the statement."""
        if key is not None and key in self.hoisted:
            return clone(self.hoisted[key])
        result = self.reduce_all_once(op, source, dtype, pre, acc, key)
        if key is not None:
            self.hoisted[key] = result
        return clone(result)

    def reduce_all_once(self, op, source: ArrayValue, dtype, pre: list, acc, key) -> n.Expr:
        b = self.b
        if op in ("var", "std"):
            return self.reduce_variance(op, source, dtype, pre, key)
        if op in ("argmin", "argmax"):
            return self.reduce_arg(op, source, pre)
        acc = acc or self.namer.fresh(op, dtype)

        def first():
            body = []
            value = source.element([b.int(0)] * source.ndim, body)
            pre.extend(body)
            return b.cast(value, dtype)

        pre.append(n.Assign(b.name(acc, dtype), self.reduction_init(op, dtype, first), self.loc))
        # NumPy's NaN-propagating min/max as two reductions that stay parallel: the min/max,
        # and a sum that is NaN when any element is (nan<k> += e if e != e else 0).
        nans = None
        if op in ("min", "max") and dtype.is_float and not self.skips_nan():
            nans = self.namer.fresh("nan", dtype)
            pre.append(n.Assign(b.name(nans, dtype), b.const(0, dtype), self.loc))

        def body(idx):
            stmts = []
            element = source.element(idx, stmts)
            if nans is not None:
                element = self.element_local(b.cast(element, dtype), dtype, stmts)
                is_nan = n.Compare("!=", clone(element), clone(element), BOOL, self.loc)
                stmts.append(n.AugAssign(b.name(nans, dtype), "+",
                                         n.IfExp(is_nan, clone(element), b.const(0, dtype), dtype, self.loc),
                                         loc=self.loc))
            stmts.append(self.reduction_update(op, acc, dtype, element))
            return stmts

        pre.extend(self.loop_nest(source.shape, body))
        if nans is not None:
            any_nan = n.Compare("!=", b.name(nans, dtype), b.name(nans, dtype), BOOL, self.loc)
            pre.append(n.Assign(b.name(acc, dtype),
                                n.IfExp(any_nan, b.name(nans, dtype), b.name(acc, dtype), dtype, self.loc), self.loc))
        if op == "mean":
            count = b.cast(self.size(source.shape), dtype)
            pre.append(n.Assign(b.name(acc, dtype), b.binop("/", b.name(acc, dtype), count, dtype), self.loc))
        return b.name(acc, dtype)

    def reduce_masked(self, op, selection: n.Index, dtype, pre: list, node) -> n.Expr:
        """``x[mask].sum()``: the reduction over the selected elements, under ``if mask``."""
        b = self.b
        if op not in ("sum", "prod", "count", "any", "all", "mean"):
            self.fail(f"`{node}` (np.{op} of a boolean selection)", node)
        source = self.array(selection.base, pre)
        mask = self.array(selection.indices[0], pre)
        if mask.ndim != source.ndim:
            self.fail(f"`{node}` with a mask of another rank", node)
        acc = self.namer.fresh(op, dtype)
        count = self.namer.fresh("count", INT64) if op == "mean" else None
        pre.append(n.Assign(b.name(acc, dtype), self.reduction_init(op, dtype, None), self.loc))
        if count:
            pre.append(n.Assign(b.name(count, INT64), b.int(0), self.loc))

        def body(idx):
            stmts, selected = [], []
            test = mask.element(idx, stmts)
            selected.append(self.reduction_update(op, acc, dtype, source.element(idx, selected)))
            if count:
                selected.append(n.AugAssign(b.name(count, INT64), "+", b.int(1), loc=self.loc))
            stmts.append(n.If(test, selected, [], self.loc))
            return stmts

        pre.extend(self.loop_nest(mask.shape, body))
        if count:
            mean = b.binop("/", b.name(acc, dtype), b.cast(b.name(count, INT64), dtype), dtype)
            pre.append(n.Assign(b.name(acc, dtype), mean, self.loc))
        return b.name(acc, dtype)

    def reduce_variance(self, op, source: ArrayValue, dtype, pre: list, key) -> n.Expr:
        """Two passes as NumPy: the mean, then the mean of squared deviations."""
        b = self.b
        mean_key = None if key is None else ("mean",) + tuple(key[1:])
        mean = self.reduce_all("mean", source, dtype, pre, None, key=mean_key)
        acc = self.namer.fresh(op, dtype)
        pre.append(n.Assign(b.name(acc, dtype), b.const(0, dtype), self.loc))

        def body(idx):
            stmts = []
            dev = self.namer.fresh("dev", dtype)
            element = b.cast(source.element(idx, stmts), dtype)
            stmts.append(n.Assign(b.name(dev, dtype), b.binop("-", element, clone(mean), dtype), self.loc))
            square = b.binop("*", b.name(dev, dtype), b.name(dev, dtype), dtype)
            stmts.append(n.AugAssign(b.name(acc, dtype), "+", square, loc=self.loc))
            return stmts

        pre.extend(self.loop_nest(source.shape, body))
        value = b.binop("/", b.name(acc, dtype), b.cast(self.size(source.shape), dtype), dtype)
        if op == "std":
            value = b.math("np.sqrt", [value], dtype)
        pre.append(n.Assign(b.name(acc, dtype), value, self.loc))
        return b.name(acc, dtype)

    def reduce_arg(self, op, source: ArrayValue, pre: list) -> n.Expr:
        """``argmin``/``argmax``: the flat (C-order) position of the first extreme element."""
        b = self.b
        best = self.namer.fresh("best", source.dtype)
        where = self.namer.fresh(op, INT64)
        first = []
        value = source.element([b.int(0)] * source.ndim, first)
        pre.extend(first)
        pre.append(n.Assign(b.name(best, source.dtype), value, self.loc))
        pre.append(n.Assign(b.name(where, INT64), b.int(0), self.loc))

        def body(idx):
            stmts = []
            element = source.element(idx, stmts)
            flat = clone(idx[0]) if idx else b.int(0)
            for d in range(1, len(idx)):
                flat = b.add(b.mul(flat, clone(source.shape[d])), clone(idx[d]))
            better = n.Compare("<" if op == "argmin" else ">", element, b.name(best, source.dtype),
                               BOOL, self.loc)
            if source.dtype.is_float:
                # NumPy (and Numba, parallel or not): the position of the first NaN.
                element = self.element_local(element, source.dtype, stmts)
                better.left = clone(element)
                first_nan = n.BoolOp("and", [
                    n.Compare("!=", clone(element), clone(element), BOOL, self.loc),
                    n.Compare("==", b.name(best, source.dtype), b.name(best, source.dtype), BOOL, self.loc)],
                    BOOL, self.loc)
                better = n.BoolOp("or", [better, first_nan], BOOL, self.loc)
            stmts.append(n.If(better, [
                n.Assign(b.name(best, source.dtype), clone(element), self.loc),
                n.Assign(b.name(where, INT64), flat, self.loc)], [], self.loc))
            return stmts

        pre.extend(self.loop_nest(source.shape, body))
        return b.name(where, INT64)

    def reduce_axis(self, op, source: ArrayValue, axis, dtype, node) -> ArrayValue:
        """``op`` along ``axis``: each element is an inner loop over that axis."""
        b = self.b
        if axis is None:
            self.fail(f"`{node}` with a non-constant axis", node)
        if op in ("var", "std", "argmin", "argmax"):
            self.fail(f"`{node}` (np.{op} along an axis)", node)
        if axis < 0:
            axis += source.ndim
        if not 0 <= axis < source.ndim:
            self.fail(f"`{node}`: axis {axis} out of range", node)

        def element(idx, body):
            acc = self.namer.fresh(op, dtype)
            k = self.namer.fresh("i", INT64)
            full = [clone(i) for i in idx[:axis]] + [b.name(k, INT64)] + [clone(i) for i in idx[axis:]]

            def first():
                at_zero = [clone(i) for i in idx[:axis]] + [b.int(0)] + [clone(i) for i in idx[axis:]]
                return b.cast(source.element(at_zero, body), dtype)

            body.append(n.Assign(b.name(acc, dtype), self.reduction_init(op, dtype, first), self.loc))
            inner = []
            element = source.element(full, inner)
            if op in ("min", "max") and dtype.is_float and not self.skips_nan():
                inner.append(self.nan_sticky_update(op, acc, dtype, element, inner))
            else:
                inner.append(self.reduction_update(op, acc, dtype, element))
            body.append(b.loop(k, clone(source.shape[axis]), inner))
            if op == "mean":
                count = b.cast(clone(source.shape[axis]), dtype)
                body.append(n.Assign(b.name(acc, dtype), b.binop("/", b.name(acc, dtype), count, dtype),
                                     self.loc))
            return b.name(acc, dtype)

        return ArrayValue(source.shape[:axis] + source.shape[axis + 1:], element, dtype, costly=True)

    def matmul(self, left, right, dtype, pre: list, node) -> ArrayValue:
        """``A @ x``, ``x @ A``, ``A @ B``: computed by the ``matmul`` routine where
        ``products`` allows it, else each element is a dot product over the shared axis."""
        if self.products and left.type.ndim + right.type.ndim > 2:
            return self.matmul_routine(left, right, dtype, pre, node)
        b = self.b
        a, c = self.array(left, pre), self.array(right, pre)
        # Every element of an operand is read once per row or column of the result: one that
        # runs an inner loop or a transcendental ufunc is computed once, into a temporary.
        a = self.read_back(self.materialize(a, pre), a.shape) if a.costly or has_ufunc(left) else a
        c = self.read_back(self.materialize(c, pre), c.shape) if c.costly or has_ufunc(right) else c
        if (a.ndim, c.ndim) not in ((2, 1), (1, 2), (2, 2)):
            self.fail(f"`{node}` with operands of rank {a.ndim} and {c.ndim}", node)
        shape = ([a.shape[0]] if a.ndim == 2 else []) + ([c.shape[1]] if c.ndim == 2 else [])
        inner_extent = a.shape[-1]

        def element(idx, body):
            acc = self.namer.fresh("dot", dtype)
            k = b.name(self.namer.fresh("i", INT64), INT64)
            row = [clone(idx[0]), clone(k)] if a.ndim == 2 else [clone(k)]
            col = [clone(k), clone(idx[-1])] if c.ndim == 2 else [clone(k)]
            inner = []
            x = b.cast(a.element(row, inner), dtype)
            y = b.cast(c.element(col, inner), dtype)
            inner.append(n.AugAssign(b.name(acc, dtype), "+", b.binop("*", x, y, dtype), loc=self.loc))
            body.append(n.Assign(b.name(acc, dtype), b.const(0, dtype), self.loc))
            body.append(b.loop(k.id, clone(inner_extent), inner))
            return b.name(acc, dtype)

        return ArrayValue(shape, element, dtype, costly=True)

    def matmul_routine(self, left, right, dtype, pre: list, node) -> ArrayValue:
        """``out = np.empty(shape)`` and ``matmul(a, b, out)``: a routine the backend
        runs as one call (BLAS where it can). Operands are passed as views, a transpose of a
        view as that view with a flag (``matmul(A, y, out, ta=True)`` for ``A.T @ y``: nothing copied)
        and a scalar factor as ``alpha``; other operands are
        computed into temporaries first. The routine checks the inner extents (Numba's
        ValueError)."""
        b = self.b
        operands, flags, scale = [], {}, None
        for operand in (left, right):
            # A scalar factor of an operand (``alpha * A @ B``) scales the product instead.
            if isinstance(operand, n.BinOp) and operand.op == "*":
                factor, rest = (operand.left, operand.right) if not isinstance(operand.left.type, ArrayType) \
                    else (operand.right, operand.left)
                if not isinstance(factor.type, ArrayType) and isinstance(rest.type, ArrayType) \
                        and rest.type.ndim == operand.type.ndim and rest.type.dtype == dtype:
                    factor = self.scalar(factor, pre)
                    scale = factor if scale is None else b.binop("*", scale, factor, promote(scale.type, factor.type))
                    operand = rest
            transposed = isinstance(operand, n.Attribute) and operand.attr == "T" \
                and operand.value.type.ndim == 2 and is_subview_expr(operand.value) \
                and not self.reads_through(operand.value)
            operands.append(self.array_operand(operand.value if transposed else operand, pre))
            if transposed:
                flags["tb" if operands[1:] else "ta"] = b.const(True, BOOL)
        a, c = operands
        ta, tb = "ta" in flags, "tb" in flags
        if scale is not None:
            flags["alpha"] = b.cast(scale, dtype)
        rows = [b.shape_of(a, 1 if ta else 0)] if a.type.ndim == 2 else []
        cols = [b.shape_of(c, 0 if tb else 1)] if c.type.ndim == 2 else []
        shape = rows + cols
        type = ArrayType(dtype, len(shape), "C")
        out = self.namer.fresh("prod", type)
        pre.append(n.Assign(b.name(out, type), self.allocation(shape, dtype), self.loc))
        pre.append(n.ExprStmt(n.Call("matmul", [a, c, b.name(out, type)], "builtin", flags, NONE, self.loc),
                              self.loc))
        return self.read_back(b.name(out, type), shape)

    def reduce_matmul_scalar(self, node: n.BinOp, pre: list) -> n.Expr:
        """``x @ y`` / ``np.dot(x, y)`` of two 1-D arrays: a hoisted sum of products."""
        dtype = node.type
        a, c = self.array(node.left, pre), self.array(node.right, pre)
        if a.ndim != 1 or c.ndim != 1:
            self.fail(f"`{node}` with operands of rank {a.ndim} and {c.ndim}", node)

        def element(idx, body):
            x = self.b.cast(a.element(idx, body), dtype)
            y = self.b.cast(c.element(idx, body), dtype)
            return self.b.binop("*", x, y, dtype)

        return self.reduce_all("sum", ArrayValue(a.shape, element, dtype), dtype, pre, node)
