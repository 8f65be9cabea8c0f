"""Reductions: whole-array ones hoisted into a scalar local, axis ones as an inner loop per element, and scans.

>>> from kpc.ir.nodes import NOLOC, Function, Name, Param
>>> from kpc.ir.types import ArrayType, FLOAT64
>>> from kpc.ir.nodes import Call, Return
>>> from kpc.ir.printer import format_function
>>> from kpc.passes.numpy_lowering.elements import ElementLowering
>>> from kpc.passes.numpy_lowering.values import Namer
>>> vec = ArrayType(FLOAT64, 1, "C")
>>> f = Function("f", [Param("a", vec)], [], options={"parallel": True})
>>> low = ElementLowering(f, Namer(f), NOLOC)
>>> total = low.scalar(Call("np.sum", [Name("a", vec)], "numpy", type=FLOAT64), f.body)
>>> f.body.append(Return(total))
>>> print(format_function(f))
func @f(a: f64[:] C) -> ?   role=entry parallel
  sum0: f64 = 0.0
  for i0: i64 in range(0, a.shape[0]):
    sum0 += a[i0]
  return sum0
"""

from __future__ import annotations

from ...ir import nodes as n
from ...ir.intrinsics import EMPTY_REDUCTION_ERRORS
from ...ir.types import BOOL, INT64, ArrayType
from .numpy_names import REDUCTIONS, short_name
from .values import ArrayValue, clone, const_int


class Reductions:
    """``ElementLowering``'s reductions (whole-array, masked, along an axis) and scans."""

    def scan(self, name: str, call: n.Call, pre: list) -> ArrayValue:
        """``np.cumsum``/``np.cumprod`` (flattened, axis=None): a serial loop into a temporary."""
        axis = self.arg(call, 1, "axis")
        if axis is not None and not (isinstance(axis, n.Const) and axis.value is None):
            if name != "cumsum" or const_int(axis) is None:
                self.fail(f"`{call}` along an axis", call)
            return self.scan_axis(name, call, const_int(axis), pre)
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
        if op in ("min", "max"):
            self.nonempty_check(op, source.shape, pre)
        pre.append(n.Assign(b.name(acc, dtype), self.reduction_init(op, dtype, lambda: self.identity(op, dtype)),
                            self.loc))
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

    def nonempty_check(self, op, shape: list, pre: list) -> None:
        """Numba's ValueError for ``op`` (min, max, argmin, argmax) of an empty array, unless the
        shape is constant and not empty."""
        size = self.size(shape)
        if const_int(size) is None or const_int(size) <= 0:
            self.value_check(n.Compare(">", size, self.b.int(0), BOOL, self.loc), EMPTY_REDUCTION_ERRORS[op], pre)

    def identity(self, op, dtype) -> n.Const:
        """The start of a min/max (argmin/argmax) over elements of ``dtype``: its largest value
        (smallest for max), which the first element replaces or equals; none is read before the
        emptiness check (an empty array has no element 0)."""
        if dtype.is_float:
            return self.b.const(float("inf") if op.endswith("min") else float("-inf"), dtype)
        if dtype.is_bool:
            return self.b.const(op.endswith("min"), dtype)
        bits = int(dtype.name.lstrip("uint"))
        low, high = (0, 2 ** bits - 1) if dtype.name.startswith("u") else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
        return self.b.const(high if op.endswith("min") else low, dtype)

    def reduce_masked(self, op, selection: n.Index, dtype, pre: list, node) -> n.Expr:
        """``x[mask].sum()``: the reduction over the selected elements, under ``if mask`` (min/max: from
        the identity, then Numba's ValueError if nothing was selected)."""
        b = self.b
        if op not in ("sum", "prod", "count", "any", "all", "mean", "min", "max"):
            self.fail(f"`{node}` (np.{op} of a boolean selection)", node)
        source = self.array(selection.base, pre)
        mask = self.array(selection.indices[0], pre)
        if mask.ndim != source.ndim:
            self.fail(f"`{node}` with a mask of another rank", node)
        extreme = op in ("min", "max")
        acc = self.namer.fresh(op, dtype)
        count = self.namer.fresh("count", INT64) if op == "mean" or extreme else None
        pre.append(n.Assign(b.name(acc, dtype), self.reduction_init(op, dtype, lambda: self.identity(op, dtype)),
                            self.loc))
        if count:
            pre.append(n.Assign(b.name(count, INT64), b.int(0), self.loc))

        def body(idx):
            stmts, selected = [], []
            test = mask.element(idx, stmts)
            element = source.element(idx, selected)
            if extreme and dtype.is_float and not self.skips_nan():
                selected.append(self.nan_sticky_update(op, acc, dtype, element, selected))
            else:
                selected.append(self.reduction_update(op, acc, dtype, element))
            if count:
                selected.append(n.AugAssign(b.name(count, INT64), "+", b.int(1), loc=self.loc))
            stmts.append(n.If(test, selected, [], self.loc))
            return stmts

        pre.extend(self.loop_nest(mask.shape, body))
        if extreme:
            self.value_check(n.Compare(">", b.name(count, INT64), b.int(0), BOOL, self.loc),
                             EMPTY_REDUCTION_ERRORS[op], pre)
        elif count:
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
        self.nonempty_check(op, source.shape, pre)
        pre.append(n.Assign(b.name(best, source.dtype), self.identity(op, source.dtype), self.loc))
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

        shape = source.shape[:axis] + source.shape[axis + 1:]
        return ArrayValue(shape, element, dtype, costly=True,
                          blocks=self.in_memory_order(op, source, axis, dtype))

    def in_memory_order(self, op, source: ArrayValue, axis: int, dtype):
        """A sum or mean along a leading axis of C-contiguous arrays at a kernel's host level (where
        products may call BLAS: not in a prange body), written as NumPy and Numba compute it: the
        result set to 0, then every element added to its slot in memory order (each slot still
        sums in the order of the axis), then divided for a mean. Reading one result element at a
        time would stride down the axis, once per element; None where that does not apply."""
        b = self.b
        if op not in ("sum", "mean") or axis == source.ndim - 1 or not self.products or source.costly:
            return None
        probe = source.element([b.name(f"probe{d}", INT64) for d in range(source.ndim)], [])
        if any(isinstance(x, n.Index) and isinstance(x.base, n.Name) and isinstance(x.base.type, ArrayType)
               and x.base.type.layout != "C" for x in n.walk(probe)) or any(
                isinstance(x, n.Call) and x.kind not in ("math", "builtin") for x in n.walk(probe)):
            return None
        count = b.cast(clone(source.shape[axis]), dtype)
        finish = (lambda slot: b.binop("/", slot, clone(count), dtype)) if op == "mean" else None

        def position(idx):
            return idx[:axis] + idx[axis + 1:]

        return (list(source.shape), source.element, position, (b.const(0, dtype), finish))
