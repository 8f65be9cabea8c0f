"""Where each element of a reshaped array comes from: indexing, slicing, transposes, reshapes, flattening, joins.

>>> from kpc.ir.nodes import NOLOC, BinOp, Function, Name, Param
>>> from kpc.ir.types import ArrayType, FLOAT64
>>> from kpc.ir.nodes import Const, Index, Slice
>>> from kpc.passes.numpy_lowering.elements import ElementLowering
>>> from kpc.passes.numpy_lowering.values import Namer
>>> vec = ArrayType(FLOAT64, 1, "C")
>>> f = Function("f", [Param("a", vec)], [])
>>> low = ElementLowering(f, Namer(f), NOLOC)
>>> value = low.array(Index(Name("a", vec), [Slice(Const(1), None, Const(2))], type=vec), [])
>>> [str(e) for e in value.shape], str(value.element([Name("i0")], []))
(['a.shape[0] // 2'], 'a[2 * i0 + 1]')
"""

from __future__ import annotations

from ...ir import nodes as n
from ...ir.intrinsics import FLAT_ELEMENT
from ...ir.types import BOOL, INT64, ArrayType, TupleType
from .values import ArrayValue, clone, const_int


class Shapes:
    """``ElementLowering``'s indexing, slicing, transposes, reshapes and joins."""

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
                    if len(entries) != 1 or entry.type.ndim != 1:
                        self.fail(f"boolean mask read `{node}` of more than one dimension (Numba "
                                  "compiles 1-D masks only)", node)
                    return self.mask_read(base, self.array(entry, pre), pre)
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
                    if isinstance(step, n.Expr):
                        base_idx.append(self.b.add(clone(lower), self.b.mul(clone(idx[pos]), clone(step))))
                        continue
                    scaled = clone(idx[pos]) if abs(step) == 1 else self.b.mul(self.b.int(abs(step)), clone(idx[pos]))
                    base_idx.append(self.b.add(clone(lower), scaled) if step > 0 else self.b.sub(clone(lower), scaled))
                else:
                    _, pos, indexer = pick
                    sub = idx[pos:pos + indexer.ndim]
                    base_idx.append(self.b.cast(indexer.element(sub, body), INT64))
            return base.element(base_idx, body)

        return ArrayValue(shape, element, base.dtype, base.costly)

    def mask_read(self, base: ArrayValue, mask: ArrayValue, pre: list) -> ArrayValue:
        """``x[mask]`` (a 1-D mask): count the true elements, allocate, copy them (the rows of a
        2-D ``x``) in order. As in Numba, the mask's length is the loop's: a shorter mask selects
        from the front of ``x``."""
        count = self.b.name(self.namer.fresh("count", INT64), INT64)
        pre.append(n.Assign(clone(count), self.b.int(0), self.loc))

        def count_true(idx):
            body: list = []
            test = mask.element(idx, body)
            return body + [n.If(test, [n.AugAssign(clone(count), "+", self.b.int(1), loc=self.loc)], loc=self.loc)]

        pre.extend(self.loop_nest([clone(mask.shape[0])], count_true))
        kept = ArrayType(base.dtype, base.ndim, "C")
        shape = [clone(count)] + [clone(e) for e in base.shape[1:]]
        out = self.b.name(self.namer.fresh("picked", kept), kept)
        pre.append(n.Assign(clone(out), self.allocation(shape, base.dtype), self.loc))
        slot = self.b.name(self.namer.fresh("k", INT64), INT64)
        pre.append(n.Assign(clone(slot), self.b.int(0), self.loc))

        def copy_true(idx):
            body: list = []
            test = mask.element(idx, body)

            def copy_row(rest):
                row: list = []
                value = self.b.cast(base.element(idx + rest, row), base.dtype)
                store = n.Index(clone(out), [clone(slot)] + [clone(j) for j in rest], base.dtype, self.loc)
                return row + [n.Assign(store, value, self.loc)]

            taken = self.loop_nest(base.shape[1:], copy_row) + [n.AugAssign(clone(slot), "+", self.b.int(1),
                                                                            loc=self.loc)]
            return body + [n.If(test, taken, loc=self.loc)]

        pre.extend(self.loop_nest([clone(mask.shape[0])], copy_true))
        return self.read_back(out, shape)

    def slice_dim(self, sl: n.Slice, extent, pre: list):
        """(extent, first index, step) of ``lower:upper:step`` over a dimension of ``extent``."""
        step = 1 if sl.step is None else const_int(sl.step)
        if step is None:
            return self.slice_by_variable(sl, extent, pre)
        if step == 0:
            self.fail(f"slice step `{sl.step}` (only non-zero steps are lowered)", sl)

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

    def slice_by_variable(self, sl: n.Slice, extent, pre: list):
        """(extent, first index, step) of a slice whose step is a run-time value, with
        Python's ``slice.indices`` rules (bounds wrapped once, then clipped to the axis; a
        zero step is NumPy's ValueError); element ``i`` is at ``first + i * step``."""
        b = self.b
        step = self.local("step", b.cast(self.scalar(sl.step, pre), INT64), pre)
        self.value_check(self.compare("!=", clone(step), b.int(0)), "slice step cannot be zero", pre)
        forward = self.compare(">", clone(step), b.int(0))

        def bound(e, default_forward, default_backward):
            if e is None:
                return n.IfExp(clone(forward), default_forward, default_backward, INT64, self.loc)
            value = self.local("bound", b.cast(self.scalar(e, pre), INT64), pre)
            wrapped = n.IfExp(self.compare("<", clone(value), b.int(0)), b.add(clone(value), clone(extent)),
                              clone(value), INT64, self.loc)
            low = n.IfExp(clone(forward), b.int(0), b.int(-1), INT64, self.loc)
            high = n.IfExp(clone(forward), clone(extent), b.add(clone(extent), b.int(-1)), INT64, self.loc)
            return b.builtin("min", [b.builtin("max", [wrapped, low], INT64), high], INT64)

        lower = self.local("first", bound(sl.lower, b.int(0), b.add(clone(extent), b.int(-1))), pre)
        upper = self.local("stop", bound(sl.upper, clone(extent), b.int(-1)), pre)
        ahead = b.binop("//", b.add(b.sub(clone(upper), clone(lower)), b.add(clone(step), b.int(-1))),
                        clone(step), INT64)
        back = b.binop("//", b.sub(b.sub(clone(lower), clone(upper)), b.add(clone(step), b.int(1))),
                       b.sub(b.int(0), clone(step)), INT64)
        backward = n.IfExp(self.compare("<", clone(step), b.int(0)), back, b.int(0), INT64, self.loc)
        span = b.builtin("max", [n.IfExp(clone(forward), ahead, backward, INT64, self.loc), b.int(0)], INT64)
        return self.local("span", span, pre), lower, step

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
            # Computed once per statement (not per element, and one name for every read of the
            # reshape); 0 where the other extents multiply to 0 (Numba's reshape of an empty array).
            key = ("reshape", str(call))
            if key not in self.hoisted:
                known = self.local("known", self.size([e for e, c in zip(extents, consts) if c != -1]), pre)
                whole = self.b.binop("//", self.size(source.shape), clone(known), INT64)
                empty = n.Compare("==", clone(known), self.b.int(0), BOOL, self.loc)
                self.hoisted[key] = self.local("ext", n.IfExp(empty, self.b.int(0), whole, INT64, self.loc), pre)
            extents[consts.index(-1)] = clone(self.hoisted[key])
        return self.flat(source, extents, pre)

    def flat(self, source: ArrayValue, shape: list | None, pre: list | None = None) -> ArrayValue:
        """``source`` read in C order as an array of ``shape`` (1-D when None): each result
        index becomes a flat position, split back into ``source``'s indices, or read at that
        position where ``source`` is a C-contiguous array (``flat_reads``; with ``pre``, any other
        ``source`` is first computed into one there)."""
        b = self.b
        shape = [self.size(source.shape)] if shape is None else shape

        def flat_position(idx):
            position = clone(idx[0])
            for d in range(1, len(shape)):
                position = b.add(b.mul(position, clone(shape[d])), clone(idx[d]))
            return position

        if self.flat_reads and source.ndim > 1 and (source.contiguous is not None or pre is not None):
            # One load at the flat position: no division per element (Numba's reshape is a view).
            # Anything else (a slice, a transpose, an expression) is first computed into a
            # C-contiguous temporary, as NumPy copies where a reshape cannot be a view.
            if source.contiguous is None:
                temporary = self.materialize(source, pre)
                source = self.read_back(temporary, source.shape)
            array = source.contiguous

            def flat_read(idx, body):
                return n.Call(FLAT_ELEMENT, [clone(array), flat_position(idx)], "builtin", {}, source.dtype,
                              self.loc)

            return ArrayValue(shape, flat_read, source.dtype, source.costly)

        def element(idx, body):
            position = flat_position(idx)
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
