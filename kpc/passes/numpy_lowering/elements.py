"""Array-level expressions seen element by element: an iteration space and the scalar at an index.

``ElementLowering.array(expr)`` turns an array-typed expression into an
``ArrayValue``: its extents (scalar ``i64`` expressions; ``Const(1)`` marks a
broadcast dimension) and a function that builds the scalar expression of the
element at given indices. Element-wise chains compose into one scalar
expression (that is the fusion); whole-array reductions are hoisted into scalar
locals computed by loops placed before the consumer (``pre``); axis reductions
and matrix products compute their element with a short inner loop placed in the
consumer's loop body (``body``). The concerns live beside this module: ``shapes``
(indexing, slicing, transposes, reshapes, joins), ``broadcasting``, ``numpy_calls``,
``ufuncs``, ``reductions`` and ``products``.

>>> from kpc.ir.nodes import NOLOC, BinOp, Function, Name, Param
>>> from kpc.ir.types import ArrayType, FLOAT64
>>> from kpc.passes.numpy_lowering.values import Namer
>>> vec = ArrayType(FLOAT64, 1, "C")
>>> f = Function("f", [Param("a", vec), Param("b", vec)], [])
>>> low = ElementLowering(f, Namer(f), NOLOC)
>>> value = low.array(BinOp("+", Name("a", vec), Name("a", vec), type=vec), [])
>>> [str(e) for e in value.shape], str(value.element([Name("i0")], []))
(['a.shape[0]'], 'a[i0] + a[i0]')
"""

from __future__ import annotations

from ...ir import nodes as n
from ...ir.nodes import NOLOC
from ...ir.types import BOOL, INT64, ArrayType, DTypeType, ScalarType, TupleType
from ..aliasing import is_subview_expr
from ..host_routines import host_routine, is_tuple_routine
from ..lowering_errors import NumpyLoweringError
from .array_functions import ArrayFunctions, is_nonzero
from .broadcasting import Broadcasting
from .numpy_calls import NumpyCalls
from .numpy_names import short_name
from .order_statistics import OrderStatistics
from .products import MatrixProducts
from .reductions import Reductions
from .searches import SortedSearches
from .shapes import Shapes
from .ufuncs import Ufuncs
from .values import ArrayValue, Builder, Namer, clone, const_int, is_nonnegative, is_one


class ElementLowering(Shapes, Broadcasting, NumpyCalls, Ufuncs, Reductions, MatrixProducts, OrderStatistics,
                      ArrayFunctions, SortedSearches):
    """Builds ``ArrayValue``s and scalar expressions for the statements of one function.

    ``read_through`` maps local names to the definition their uses read instead of the
    name: views Kokkos has no subview for (``b = a.T``, ``b = a[::2]``) and local arrays
    inlined at their uses (``e = np.exp(x)`` read once). Here: the loops, scalars and the
    dispatch over array expressions; each base class adds the methods of one concern.
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
        # A reshape of a C-contiguous array reads it at flat positions (``flat_element``, the
        # Kokkos target) instead of splitting each position into indices with ``//`` and ``%``.
        self.flat_reads = False

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
        shape, element, position, update = value.blocks or (value.shape, value.element, lambda idx: idx, None)

        def at(idx):
            return n.Index(clone(target), [clone(i) for i in idx], value.dtype, self.loc)

        def body(idx):
            stmts = []
            scalar = self.b.cast(element(idx, stmts), value.dtype)
            if update is None:
                stmts.append(n.Assign(at(position(idx)), scalar, self.loc))
            else:
                stmts.append(n.AugAssign(at(position(idx)), "+", scalar, loc=self.loc))
            return stmts

        if update is None:
            return self.loop_nest(shape, body)
        init, finish = update
        nest = self.loop_nest(value.shape, lambda idx: [n.Assign(at(idx), clone(init), self.loc)])
        nest += self.loop_nest(shape, body)
        if finish is not None:
            nest += self.loop_nest(value.shape, lambda idx: [n.Assign(at(idx), finish(at(idx)), self.loc)])
        return nest

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
            if not expr.indices:
                return self.scalar(base, pre)  # np.cov(x)[()]: Numba's 0-d array read, a scalar here
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
        if isinstance(expr, n.Index) and is_tuple_routine(expr.base):
            # np.histogram(x, bins)[0]: one result of a routine computed for this expression.
            part = const_int(expr.indices[0]) if len(expr.indices) == 1 else None
            if part is None:
                self.fail(f"`{expr}`: a result of {expr.base.func}() picked by a non-constant index", expr)
            name, shape = host_routine(self, expr.base, pre)[part]
            return self.read_back(name, shape)
        if isinstance(expr, n.Index) and isinstance(expr.base.type, TupleType) and is_nonzero(expr.base):
            # np.nonzero(a)[k]: the k-th of its index arrays.
            k = const_int(expr.indices[0]) if len(expr.indices) == 1 else None
            arrays = self.nonzero_indices(expr.base, pre)
            if k is None or not -len(arrays) <= k < len(arrays):
                self.fail(f"`{expr}` with an index other than a constant in range", expr)
            return self.read_back(arrays[k], [self.b.shape_of(arrays[k], 0)])
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
        if isinstance(expr, n.Call) and expr.kind == "kernel":
            # a @vectorize kernel called with arrays: the scalar kernel on each element
            return self.elementwise(list(expr.args), ty.dtype, pre,
                                    lambda *xs: n.Call(expr.func, list(xs), "kernel", {}, ty.dtype, self.loc), hint)
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
            func, params = call.func, [self.evaluated_once(self.scalar(a, pre), pre) for a in call.args[:-1]]

        def draw(idx, body):
            return n.Call(func, [clone(p) for p in params], "random", {}, dtype, self.loc)

        return ArrayValue(shape, draw, dtype)

    def evaluated_once(self, expr, pre: list):
        """A scalar operand that draws random numbers or calls a kernel, computed once into a
        local before the statement (NumPy evaluates it once, not once per element: a row's
        ``x - logsumexp(x)`` called logsumexp per element, m times its cost); any other
        expression as is."""
        calls = [x.kind for x in n.walk(expr) if isinstance(x, n.Call) and x.kind in ("random", "kernel")]
        if not calls:
            return expr
        name = self.namer.fresh("draw" if "random" in calls else "once", expr.type)
        pre.append(n.Assign(self.b.name(name, expr.type), expr, self.loc))
        return self.b.name(name, expr.type)

    def name_value(self, name: n.Name) -> ArrayValue:
        ty = name.type

        def element(idx, body):
            return n.Index(clone(name), [clone(i) for i in idx], ty.dtype, self.loc)

        return ArrayValue([self.b.shape_of(name, d) for d in range(ty.ndim)], element, ty.dtype,
                          contiguous=name if ty.layout == "C" else None)

    def read_back(self, array: n.Name, shape: list) -> ArrayValue:
        """The ``ArrayValue`` of a temporary materialised from a value of ``shape`` (whose
        unit extents still broadcast)."""
        def element(idx, body):
            return n.Index(clone(array), [clone(i) for i in idx], array.type.dtype, self.loc)

        return ArrayValue(list(shape), element, array.type.dtype, temporary=array,
                          contiguous=array if array.type.layout == "C" else None)
