"""Sorts and order statistics: np.sort, np.argsort, np.unique, np.median, np.percentile, np.quantile, np.corrcoef.

The operand is copied into a fresh C-contiguous array (flattened for the statistics, in
float64 for percentiles, as Numba), a builtin ``ExprStmt`` of ``ir.intrinsics.ORDER_ROUTINES``
orders the copy in place, and the result reads it: ``median_sorted`` / ``quantile_sorted``
(``ORDER_READERS``) give the statistic. For those the copy is not sorted: as Numba, a selection
(``select_median``, ``select_quantile``, ``quantile_values`` for an array of q) places only the
items they read, in expected linear time where a sort takes n log n. The routines (kpc_order.hpp) run in any execution
space, so a median of a small window inside a parallel loop is a per-thread copy and a small
sort. ``np.unique`` counts, then copies, the distinct values of the flattened sorted copy
(``unique_count``, ``unique_values``). ``np.corrcoef`` normalises ``np.cov``'s host routine as
Numba does.

>>> from kpc.ir.nodes import NOLOC, Call, Function, Name, Param
>>> from kpc.ir.printer import format_function
>>> from kpc.ir.types import ArrayType, FLOAT64
>>> from kpc.passes.numpy_lowering.elements import ElementLowering
>>> from kpc.passes.numpy_lowering.values import Namer
>>> vec = ArrayType(FLOAT64, 1, "A")
>>> f = Function("f", [Param("x", vec)], [])
>>> low = ElementLowering(f, Namer(f), NOLOC)
>>> median = low.scalar(Call("np.median", [Name("x", vec)], "numpy", type=FLOAT64), f.body)
>>> print(format_function(f))
func @f(x: f64[:]) -> ?   role=entry
  selected0: f64[:] C = np.empty((x.shape[0],), dtype=np.float64)
  for i0: i64 in range(0, x.shape[0]):
    selected0[i0] = x[i0]
  select_median(selected0)
>>> str(median)
'median_sorted(selected0)'
"""

from __future__ import annotations

from ...ir import nodes as n
from ...ir.types import BOOL, FLOAT64, INT64, NONE, ArrayType
from ..host_routines import host_routine
from .numpy_names import short_name
from .values import ArrayValue, clone, const_int

# The NumPy functions lowered here, and the scale of q (np.quantile's q is a fraction).
ORDERED_ARRAYS = {"sort", "argsort", "unique", "percentile", "quantile", "corrcoef"}
ORDERED_SCALARS = {"median", "percentile", "quantile", "corrcoef"}
QUANTILE_SCALE = {"percentile": 1.0, "quantile": 100.0}


class OrderStatistics:
    """``ElementLowering``'s sorts and the statistics read from sorted copies."""

    def routine(self, name: str, args: list, type=NONE) -> n.Call:
        return n.Call(name, args, "builtin", {}, type, self.loc)

    def sorted_copy(self, source: ArrayValue, dtype, pre: list, flat: bool) -> n.Name:
        """A fresh copy of ``source`` (flattened when ``flat``) in ``dtype``, each row sorted."""
        copy = self.fresh_copy(source, dtype, pre, flat, "sorted")
        pre.append(n.ExprStmt(self.routine("sort_rows", [clone(copy)]), self.loc))
        return copy

    def fresh_copy(self, source: ArrayValue, dtype, pre: list, flat: bool, prefix: str) -> n.Name:
        """A fresh C-contiguous copy of ``source`` (flattened when ``flat``) in ``dtype``."""
        if flat and source.ndim != 1:
            source = self.flat(source, None)
        shape = [self.fixed_extent(e) for e in source.shape]
        copied = ArrayValue(shape, lambda idx, body: self.b.cast(source.element(idx, body), dtype), dtype)
        return self.materialize(copied, pre, prefix)

    def fixed_extent(self, extent):
        """``w.shape[k]`` of a local array bound once, to an allocation of constant shape, as that
        constant: a copy of a window (``win = np.empty(9)`` filled in a parallel loop) then has a
        constant shape too, and lives on the thread's stack."""
        if not (isinstance(extent, n.Index) and isinstance(extent.base, n.Attribute) and extent.base.attr == "shape"
                and isinstance(extent.base.value, n.Name) and len(extent.indices) == 1):
            return extent
        name, k = extent.base.value.id, const_int(extent.indices[0])
        bound = [s for s in n.walk(self.function.body) if isinstance(s, n.Assign)
                 and isinstance(s.target, n.Name) and s.target.id == name]
        if k is None or len(bound) != 1 or not isinstance(bound[0].value, n.Call) \
                or short_name(bound[0].value.func) not in ("empty", "zeros", "ones", "full") or not bound[0].value.args:
            return extent
        shape = bound[0].value.args[0]
        extents = shape.elements if isinstance(shape, n.TupleExpr) else [shape]
        fixed = const_int(extents[k]) if k < len(extents) else None
        return extent if fixed is None else self.b.int(fixed)

    def sorted_in_place(self, target, pre: list) -> n.Name:
        """``a.sort()``'s sorted copy of ``a`` (each row), to be stored back into ``a``."""
        value = self.array(target, pre)
        return self.sorted_copy(value, value.dtype, pre, flat=False)

    def order_value(self, call: n.Call, pre: list) -> ArrayValue:
        """np.sort / np.argsort, np.percentile / np.quantile of an array of q, np.corrcoef."""
        name = short_name(call.func)
        if name == "corrcoef":
            return self.correlations(call, pre)
        source = self.array(call.args[0], pre)
        if name == "sort":
            return self.read_back(self.sorted_copy(source, source.dtype, pre, flat=False), source.shape)
        if name == "unique":
            return self.distinct(source, pre)
        if name == "argsort":
            keys = self.materialize(source, pre, "keys")
            type = ArrayType(INT64, 1, "C")
            order = self.b.name(self.namer.fresh("order", type), type)
            pre.append(n.Assign(order, self.allocation(source.shape, INT64), self.loc))
            stable = call.kwargs.get("stable", n.Const(False, BOOL, self.loc))
            pre.append(n.ExprStmt(self.routine("argsort", [keys, clone(order), stable]), self.loc))
            return self.read_back(clone(order), source.shape)
        # As Numba: one selection per q, in q's order, each read before the next one moves items.
        data = self.fresh_copy(source, FLOAT64, pre, flat=True, prefix="selected")
        q = self.array(call.args[1], pre)
        q = self.materialize(self.flat(q, None) if q.ndim != 1 else q, pre, "q")
        type = ArrayType(FLOAT64, 1, "C")
        out = self.b.name(self.namer.fresh("quantiles", type), type)
        pre.append(n.Assign(out, self.allocation([self.b.shape_of(clone(q), 0)], FLOAT64), self.loc))
        scale = n.Const(QUANTILE_SCALE[name], FLOAT64, self.loc)
        pre.append(n.ExprStmt(self.routine("quantile_values", [clone(q), clone(out), data, scale]), self.loc))
        return self.read_back(clone(out), [self.b.shape_of(clone(q), 0)])

    def distinct(self, source: ArrayValue, pre: list) -> ArrayValue:
        """``np.unique(a)``: the distinct values of the flattened, sorted ``a`` (NaNs as one)."""
        data = self.sorted_copy(source, source.dtype, pre, flat=True)
        count = self.local("count", self.routine("unique_count", [clone(data)], INT64), pre)
        type = ArrayType(source.dtype, 1, "C")
        out = self.b.name(self.namer.fresh("unique", type), type)
        pre.append(n.Assign(out, self.allocation([clone(count)], source.dtype), self.loc))
        pre.append(n.ExprStmt(self.routine("unique_values", [clone(data), clone(out)]), self.loc))
        return self.read_back(clone(out), [clone(count)])

    def order_scalar(self, call: n.Call, pre: list):
        """np.median, np.percentile / np.quantile of one q, np.corrcoef of one 1-D array."""
        name = short_name(call.func)
        if name == "corrcoef":
            return self.self_correlation(call, pre)
        source = self.array(call.args[0], pre)
        if name == "median":
            data = self.fresh_copy(source, source.dtype, pre, flat=True, prefix="selected")
            pre.append(n.ExprStmt(self.routine("select_median", [data]), self.loc))
            return self.routine("median_sorted", [clone(data)], FLOAT64)
        if isinstance(call.args[1].type, ArrayType):
            self.fail(f"`{call}` with q a 0-d array", call)
        data = self.fresh_copy(source, FLOAT64, pre, flat=True, prefix="selected")
        q = self.local("q", self.b.cast(self.scalar(call.args[1], pre), FLOAT64), pre)
        scale = n.Const(QUANTILE_SCALE[name], FLOAT64, self.loc)
        pre.append(n.ExprStmt(self.routine("select_quantile", [data, q, scale]), self.loc))
        return self.routine("quantile_sorted", [clone(data), clone(q), clone(scale)], FLOAT64)

    def covariance(self, x, y, pre: list, options: list | None = None) -> n.Name:
        """``np.cov(x, y)`` (``y`` None: of ``x`` alone) by its host routine, into a temporary;
        ``options``: rowvar, bias and ddof (NumPy's defaults if None)."""
        loc = self.loc
        none = n.Const(None, NONE, loc)
        options = options or [n.Const(True, BOOL, loc), n.Const(False, BOOL, loc), none]
        args = [x, y if y is not None else none] + options
        call = n.Call("np.cov", args, "numpy", {}, ArrayType(FLOAT64, 2, "C"), loc)
        ((matrix, _),) = host_routine(self, call, pre)
        return matrix

    def correlations(self, call: n.Call, pre: list) -> ArrayValue:
        """``np.corrcoef(x[, y])``: Numba divides row i, then column i, of the covariance by the
        standard deviations, for each i in turn, and clips to [-1, 1]; element (i, j) is divided
        by the deviation of the later index first."""
        b = self.b
        x, y, rowvar = call.args
        c = self.covariance(x, None if isinstance(y, n.Const) and y.value is None else y, pre,
                            [rowvar, n.Const(False, BOOL, self.loc), n.Const(None, NONE, self.loc)])

        def element(idx, body):
            i, j = idx
            entry = n.Index(clone(c), [clone(i), clone(j)], FLOAT64, self.loc)

            def deviation(k):
                return b.math("np.sqrt", [n.Index(clone(c), [clone(k), clone(k)], FLOAT64, self.loc)], FLOAT64)

            def divided(first, second):
                return b.binop("/", b.binop("/", clone(entry), deviation(first), FLOAT64), deviation(second), FLOAT64)

            upper = n.Compare("<=", clone(i), clone(j), BOOL, self.loc)
            value = n.IfExp(upper, divided(j, i), divided(i, j), FLOAT64, self.loc)
            local = self.namer.fresh("corr", FLOAT64)
            body.append(n.Assign(b.name(local, FLOAT64), value, self.loc))
            outside = n.Compare(">", b.builtin("abs", [b.name(local, FLOAT64)], FLOAT64), b.const(1, FLOAT64),
                                BOOL, self.loc)
            sign = n.IfExp(n.Compare(">", b.name(local, FLOAT64), b.const(0, FLOAT64), BOOL, self.loc),
                           b.const(1, FLOAT64), b.const(-1, FLOAT64), FLOAT64, self.loc)
            return n.IfExp(outside, sign, b.name(local, FLOAT64), FLOAT64, self.loc)

        extent = b.shape_of(c, 0)
        return ArrayValue([extent, b.shape_of(c, 1)], element, FLOAT64, costly=True)

    def vector_covariance(self, call: n.Call, pre: list):
        """``np.cov(x)`` of one 1-D ``x`` read as a scalar (Numba's 0-d array): the variance,
        entry (0, 0) of ``np.cov(x, x)`` with the same options."""
        x = self.array_operand(call.args[0], pre)
        c = self.covariance(x, clone(x), pre, list(call.args[2:]))
        return n.Index(c, [self.b.int(0), self.b.int(0)], FLOAT64, self.loc)

    def self_correlation(self, call: n.Call, pre: list):
        """``np.corrcoef(x)`` of one 1-D ``x``: Numba's 0-d covariance divided by itself, 1.0 for
        a finite non-zero variance, else NaN (0 / 0, inf / inf, NaN)."""
        b = self.b
        rowvar = call.args[2]
        if not (isinstance(rowvar, n.Const) and rowvar.value):
            # Numba 0.68 returns NaN for np.corrcoef(x, rowvar=False) of a 1-D x (NumPy: 1.0).
            self.fail(f"`{call}` of a 1-D array with rowvar not written as True", call)
        x = self.array_operand(call.args[0], pre)
        c = self.covariance(x, clone(x), pre)
        variance = n.Index(c, [b.int(0), b.int(0)], FLOAT64, self.loc)
        usable = n.BoolOp("and", [n.Compare("!=", variance, b.const(0, FLOAT64), BOOL, self.loc),
                                  b.math("math.isfinite", [clone(variance)], BOOL)], BOOL, self.loc)
        return n.IfExp(usable, b.const(1, FLOAT64), n.GlobalConst("np.nan", float("nan"), FLOAT64, self.loc),
                       FLOAT64, self.loc)
