"""Element-wise operations on operands of different shapes: NumPy broadcasting, by compile-time or run-time extents.

Operands whose extents are different expressions broadcast by their run-time extents
(``pre`` gets the shape check, the result extent ``ext0`` and the broadcast strides):

>>> from kpc.ir.nodes import NOLOC, BinOp, Function, Name, Param
>>> from kpc.ir.types import ArrayType, FLOAT64
>>> from kpc.passes.numpy_lowering.elements import ElementLowering
>>> from kpc.passes.numpy_lowering.values import Namer
>>> vec = ArrayType(FLOAT64, 1, "C")
>>> a, b = Name("a", vec), Name("b", vec)
>>> f = Function("f", [Param("a", vec), Param("b", vec)], [])
>>> low = ElementLowering(f, Namer(f), NOLOC)
>>> value = low.array(BinOp("+", a, b, type=vec), [])
>>> [str(e) for e in value.shape], str(value.element([Name("i0")], []))
(['ext0'], 'a[i0 * bs0] + b[i0 * bs1]')
"""

from __future__ import annotations

from ...ir import nodes as n
from ...ir.types import BOOL, INT64, NONE, ArrayType, ScalarType, TupleType
from .values import ArrayValue, clone, const_int, is_one, same_extent


class Broadcasting:
    """``ElementLowering``'s element-wise combination of operands, broadcast to one iteration space."""

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
                values.append(self.evaluated_once(self.scalar(op, pre), pre))
        arrays = [v for v in values if isinstance(v, ArrayValue)]
        rank = max(v.ndim for v in arrays)
        extents: list = []
        if hint is not None and len(hint) == rank:
            shape = [clone(e) for e in hint]
        else:
            shape, hint = self.broadcast_shape(arrays, rank, extents), None
        for k, v in enumerate(values):
            if isinstance(v, ArrayValue) and (v.costly and self.is_broadcast(v, shape)
                                              or self.products and v.blocks is not None and v.blocks[3] is not None):
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
