"""NumPy array functions as loops: roll, convolve, diag, fill_diagonal, nonzero, bincount, cumsum along an axis, append.

The element-wise ones are ``ArrayValue``s the consumer's loops read (``np.roll`` reads its
source at a shifted position, ``np.convolve`` computes each element with a short inner
loop), so ``parallelize`` sees ordinary loops. Results whose size depends on the data are
computed before the statement: ``np.nonzero`` counts, allocates and fills its index arrays
in one serial loop; ``np.bincount`` is a host routine (``bincount_length``, then
``bincount``, ``kpc_linalg.hpp``), which raises Numba's ValueErrors. Run-time argument
errors elsewhere are ``value_check(ok, k)`` builtins: NumPy's ValueError
``ir.intrinsics.VALUE_ERRORS[k]`` where ``ok`` is false.

>>> from kpc.ir.nodes import NOLOC, Call, Const, Function, Name, Param
>>> from kpc.ir.types import ArrayType, FLOAT64
>>> from kpc.passes.numpy_lowering.elements import ElementLowering
>>> from kpc.passes.numpy_lowering.values import Namer
>>> vec = ArrayType(FLOAT64, 1, "C")
>>> f = Function("f", [Param("u", vec)], [])
>>> low = ElementLowering(f, Namer(f), NOLOC)
>>> pre = []
>>> rolled = low.array(Call("np.roll", [Name("u", vec), Const(1)], "numpy", type=vec), pre)
>>> [f"{s.target} = {s.value}" for s in pre]
['shift0 = 1 % u.shape[0] if u.shape[0] > 0 else 0']
>>> str(rolled.element([Name("i0")], []))
'u[i0 - shift0 if i0 >= shift0 else i0 - shift0 + u.shape[0]]'
"""

from __future__ import annotations

from ...ir import nodes as n
from ...ir.intrinsics import VALUE_ERRORS
from ...ir.types import BOOL, INT64, NONE, ArrayType
from .values import ArrayValue, clone, const_int

# The NumPy functions of this module whose value is an array (np.fill_diagonal is a statement).
ARRAY_FUNCTIONS = {"roll", "convolve", "diag", "nonzero", "flatnonzero", "bincount", "append"}


def is_nonzero(expr) -> bool:
    """``np.nonzero(a)`` or ``np.where(a)``: a tuple of index arrays."""
    return isinstance(expr, n.Call) and (expr.func == "np.nonzero" or expr.func == "np.where" and len(expr.args) == 1)


class ArrayFunctions:
    """``ElementLowering``'s np.roll, np.convolve, np.diag, np.fill_diagonal, np.nonzero,
    np.bincount, np.cumsum along an axis and np.append."""

    def array_function(self, name: str, call: n.Call, pre: list) -> ArrayValue:
        if name == "roll":
            return self.rolled(self.array(call.args[0], pre), self.scalar(call.args[1], pre), pre)
        if name == "convolve":
            return self.convolved(call, pre)
        if name == "diag":
            return self.diagonal(call, pre)
        if name == "bincount":
            return self.bincount(call, pre)
        if name == "append":
            return self.appended(call, pre)
        (indices,) = self.nonzero_indices(call, pre)
        return self.read_back(indices, [self.b.shape_of(indices, 0)])

    def local(self, prefix: str, value, pre: list) -> n.Name:
        """``value`` computed once, into a fresh local assigned in ``pre``."""
        if isinstance(value, (n.Name, n.Const)):
            return value
        name = self.b.name(self.namer.fresh(prefix, value.type), value.type)
        pre.append(n.Assign(name, value, self.loc))
        return clone(name)

    def value_check(self, ok, error: str, pre: list) -> None:
        """NumPy's ValueError ``error`` (one of ``VALUE_ERRORS``) where ``ok`` is false."""
        code = n.Const(VALUE_ERRORS.index(error), INT64, self.loc)
        pre.append(n.ExprStmt(n.Call("value_check", [ok, code], "builtin", {}, NONE, self.loc), self.loc))

    def compare(self, op, left, right):
        return n.Compare(op, left, right, BOOL, self.loc)

    def rolled(self, source: ArrayValue, shift, pre: list) -> ArrayValue:
        """``np.roll(a, shift)``: element ``i`` of the flattened result is element
        ``(i - shift) mod size`` of the flattened ``a`` (the shift reduced once, before)."""
        b = self.b
        flat = source if source.ndim == 1 else self.flat(source, None)
        size = self.local("size", clone(flat.shape[0]), pre) if source.ndim > 1 else flat.shape[0]
        reduced = n.IfExp(self.compare(">", clone(size), b.int(0)),
                          b.binop("%", b.cast(shift, INT64), clone(size), INT64), b.int(0), INT64, self.loc)
        shift = self.local("shift", reduced, pre)

        def element(idx, body):
            back = b.sub(clone(idx[0]), clone(shift))
            wrapped = n.IfExp(self.compare(">=", clone(idx[0]), clone(shift)), back,
                              b.add(clone(back), clone(size)), INT64, self.loc)
            return flat.element([wrapped], body)

        rolled = ArrayValue([clone(size)], element, source.dtype, source.costly)
        return rolled if source.ndim == 1 else self.flat(rolled, [clone(e) for e in source.shape])

    def convolved(self, call: n.Call, pre: list) -> ArrayValue:
        """``np.convolve(a, v, mode)``: element ``k`` of the full convolution is
        ``sum(a[j] * v[k - j])`` over the ``j`` where both exist; 'same' and 'valid' read the
        full one from an offset (NumPy's lengths: ``max(la, lv)``, ``max - min + 1``)."""
        b = self.b
        dtype = call.type.dtype
        a, v = self.array(call.args[0], pre), self.array(call.args[1], pre)
        mode = const_int(call.args[2])
        la = self.local("la", clone(a.shape[0]), pre)
        lv = self.local("lv", clone(v.shape[0]), pre)
        self.value_check(self.compare(">", clone(la), b.int(0)), "'a' cannot be empty", pre)
        self.value_check(self.compare(">", clone(lv), b.int(0)), "'v' cannot be empty", pre)
        shortest = b.builtin("min", [clone(la), clone(lv)], INT64)
        longest = b.builtin("max", [clone(la), clone(lv)], INT64)
        if mode == 0:
            length, offset = b.add(b.add(clone(la), clone(lv)), b.int(-1)), b.int(0)
        elif mode == 1:
            length = longest
            offset = b.binop("//", b.add(shortest, b.int(-1)), b.int(2), INT64)
        else:
            length, offset = b.add(b.sub(longest, shortest), b.int(1)), b.add(shortest, b.int(-1))
        length = self.local("length", length, pre)
        offset = self.local("offset", offset, pre)

        def element(idx, body):
            k = b.add(clone(idx[0]), clone(offset))
            k = self.local("k", k, body)
            acc = b.name(self.namer.fresh("acc", dtype), dtype)
            j = self.namer.fresh("j", INT64)
            body.append(n.Assign(clone(acc), b.const(0, dtype), self.loc))
            inner = []
            x = b.cast(a.element([b.name(j, INT64)], inner), dtype)
            y = b.cast(v.element([b.sub(clone(k), b.name(j, INT64))], inner), dtype)
            inner.append(n.AugAssign(clone(acc), "+", b.binop("*", x, y, dtype), loc=self.loc))
            first = b.builtin("max", [b.int(0), b.add(b.sub(clone(k), clone(lv)), b.int(1))], INT64)
            last = b.builtin("min", [b.add(clone(k), b.int(1)), clone(la)], INT64)
            body.append(n.For(b.name(j, INT64), first, last, b.int(1), inner, "range", loc=self.loc))
            return clone(acc)

        return ArrayValue([length], element, dtype, costly=True)

    def diagonal(self, call: n.Call, pre: list) -> ArrayValue:
        """``np.diag(v, k)``: of a vector, the square matrix with ``v`` on its k-th diagonal;
        of a matrix, its k-th diagonal (a copy)."""
        b = self.b
        source = self.array(call.args[0], pre)
        k = self.local("k", b.cast(self.scalar(call.args[1], pre), INT64), pre)
        dtype = source.dtype
        if source.ndim == 1:
            side = self.local("side", b.add(clone(source.shape[0]), b.builtin("abs", [clone(k)], INT64)), pre)

            def element(idx, body):
                on = self.compare("==", b.sub(clone(idx[1]), clone(idx[0])), clone(k))
                at = b.builtin("min", [clone(idx[0]), clone(idx[1])], INT64)
                return n.IfExp(on, source.element([at], body), b.const(0, dtype), dtype, self.loc)

            return ArrayValue([side, clone(side)], element, dtype, source.costly)
        row = self.local("row", b.builtin("max", [b.sub(b.int(0), clone(k)), b.int(0)], INT64), pre)
        col = self.local("col", b.builtin("max", [clone(k), b.int(0)], INT64), pre)
        extent = b.builtin("min", [b.sub(clone(source.shape[0]), clone(row)),
                                   b.sub(clone(source.shape[1]), clone(col))], INT64)
        extent = self.local("extent", b.builtin("max", [extent, b.int(0)], INT64), pre)

        def picked(idx, body):
            return source.element([b.add(clone(idx[0]), clone(row)), b.add(clone(idx[0]), clone(col))], body)

        return ArrayValue([extent], picked, dtype, source.costly)

    def shuffle(self, call: n.Call, pre: list) -> list:
        """``np.random.shuffle(x)`` of a 1-D array held in a name, as Numba: from the last
        position down to 1, swap position i with ``np.random.randint(i + 1)``."""
        b = self.b
        (target,) = call.args
        if not isinstance(target, n.Name) or self.needs_value(target):
            self.fail(f"`{call}` of anything but an array held in a name", call)
        dtype = target.type.dtype
        i = b.name(self.namer.fresh("i", INT64), INT64)
        j = b.name(self.namer.fresh("j", INT64), INT64)
        held = b.name(self.namer.fresh("held", dtype), dtype)
        pre.append(n.Assign(clone(i), b.add(b.shape_of(target, 0), b.int(-1)), self.loc))
        draw = n.Call("np.random.randint", [b.int(0), b.add(clone(i), b.int(1))], "random", {}, INT64, self.loc)
        body = [n.Assign(clone(j), draw, self.loc),
                n.Assign(clone(held), n.Index(clone(target), [clone(i)], dtype, self.loc), self.loc),
                n.Assign(n.Index(clone(target), [clone(i)], dtype, self.loc),
                         n.Index(clone(target), [clone(j)], dtype, self.loc), self.loc),
                n.Assign(n.Index(clone(target), [clone(j)], dtype, self.loc), clone(held), self.loc),
                n.AugAssign(clone(i), "-", b.int(1), loc=self.loc)]
        return [n.While(n.Compare(">", clone(i), b.int(0), BOOL, self.loc), body, self.loc)]

    def fill_diagonal(self, call: n.Call, pre: list) -> list:
        """``np.fill_diagonal(a, val, wrap)`` of a matrix, as NumPy walks it: flat positions
        ``0, cols + 1, 2 * (cols + 1), ...`` below ``cols * cols`` (below the size with
        ``wrap``), ``val`` cast to ``a``'s dtype, or an array's values taken in turn."""
        b = self.b
        target, val, wrap = call.args
        if not isinstance(target, n.Name) or target.type.ndim != 2 or self.needs_value(target):
            self.fail(f"`{call}` of anything but a matrix held in a name", call)
        dtype = target.type.dtype
        rows, cols = b.shape_of(target, 0), b.shape_of(target, 1)
        size = b.mul(clone(rows), clone(cols))
        square = b.mul(clone(cols), clone(cols))
        unwrapped = b.builtin("min", [clone(size), square], INT64)
        if isinstance(wrap, n.Const):
            limit = size if wrap.value else unwrapped
        else:
            limit = n.IfExp(b.cast(self.scalar(wrap, pre), BOOL), size, unwrapped, INT64, self.loc)
        limit = self.local("limit", limit, pre)
        step = self.local("step", b.add(clone(cols), b.int(1)), pre)
        count = self.local("count", b.binop("//", b.add(clone(limit), clone(cols)), clone(step), INT64), pre)
        if isinstance(val.type, ArrayType):
            values = self.flat(self.array(val, pre), None) if val.type.ndim > 1 else self.array(val, pre)
            length = self.local("length", clone(values.shape[0]), pre)
        else:
            fill = self.local("fill", b.cast(self.scalar(val, pre), dtype), pre)
        i = self.namer.fresh("i", INT64)
        body: list = []
        position = self.local("position", b.mul(b.name(i, INT64), clone(step)), body)
        store = n.Index(clone(target), [b.binop("//", clone(position), clone(cols), INT64),
                                        b.binop("%", clone(position), clone(cols), INT64)], dtype, self.loc)
        if isinstance(val.type, ArrayType):
            value = b.cast(values.element([b.binop("%", b.name(i, INT64), clone(length), INT64)], body), dtype)
        else:
            value = clone(fill)
        body.append(n.Assign(store, value, self.loc))
        loop = b.loop(i, clone(count), body)
        if isinstance(val.type, ArrayType):
            # No values, nothing written (NumPy's a.flat[...] = []).
            return [n.If(self.compare(">", clone(length), b.int(0)), [loop], [], self.loc)]
        return [loop]

    def nonzero_indices(self, call: n.Call, pre: list) -> list:
        """``np.nonzero(a)`` / ``np.where(a)`` (one index array per dimension) and
        ``np.flatnonzero(a)`` (flat positions): the nonzero elements counted, the arrays
        allocated, then filled in C order by one serial loop nest. Returns their names."""
        b = self.b
        source = self.array(call.args[0], pre)
        flat = call.func == "np.flatnonzero"
        if source.ndim == 0:
            self.fail(f"`{call}` of a 0-d value", call)

        def truth(value):
            return value if value.type == BOOL else self.compare("!=", value, b.const(0, value.type))

        count = self.reduce_all("count", ArrayValue(source.shape, lambda idx, body: truth(source.element(idx, body)),
                                                    BOOL), INT64, pre, call)
        count = self.local("count", count, pre)
        type = ArrayType(INT64, 1, "C")
        outputs = [b.name(self.namer.fresh("nonzero", type), type) for _ in range(1 if flat else source.ndim)]
        for out in outputs:
            pre.append(n.Assign(clone(out), self.allocation([clone(count)], INT64), self.loc))
        at = b.name(self.namer.fresh("at", INT64), INT64)
        pre.append(n.Assign(clone(at), b.int(0), self.loc))

        def body(idx):
            stmts: list = []
            hit = truth(source.element(idx, stmts))
            if flat:
                position = clone(idx[0])
                for d in range(1, source.ndim):
                    position = b.add(b.mul(position, clone(source.shape[d])), clone(idx[d]))
                positions = [position]
            else:
                positions = [clone(i) for i in idx]
            writes = [n.Assign(n.Index(clone(out), [clone(at)], INT64, self.loc), p, self.loc)
                      for out, p in zip(outputs, positions)]
            writes.append(n.AugAssign(clone(at), "+", b.int(1), loc=self.loc))
            stmts.append(n.If(hit, writes, [], self.loc))
            return stmts

        pre.extend(self.loop_nest(source.shape, body))
        return outputs

    def bincount(self, call: n.Call, pre: list) -> ArrayValue:
        """``np.bincount(x, weights, minlength)``: the routine ``bincount_length`` sizes the
        result (and raises for negative values or minlength), ``bincount`` fills it."""
        b = self.b
        x, weights, minlength = call.args
        inputs = [self.array_operand(x, pre)]
        if not (isinstance(weights, n.Const) and weights.value is None):
            inputs.append(self.array_operand(weights, pre))
        minlength = b.cast(self.scalar(minlength, pre), INT64)
        length = n.Call("bincount_length", [clone(a) for a in inputs] + [minlength], "builtin", {}, INT64, self.loc)
        length = self.local("length", length, pre)
        type = call.type
        out = b.name(self.namer.fresh("counts", type), type)
        pre.append(n.Assign(clone(out), self.allocation([clone(length)], type.dtype), self.loc))
        pre.append(n.ExprStmt(n.Call("bincount", inputs + [clone(out)], "builtin", {}, NONE, self.loc), self.loc))
        return self.read_back(out, [clone(length)])

    def appended(self, call: n.Call, pre: list) -> ArrayValue:
        """``np.append(arr, values)``: the flattened ``arr``, then the flattened ``values`` (a
        scalar, computed once, is one element), in the result's dtype."""
        b = self.b
        dtype = call.type.dtype
        parts = []
        for arg in call.args[:2]:
            if isinstance(arg.type, ArrayType):
                part = self.array(arg, pre)
                part = part if part.ndim == 1 else self.flat(part, None)
                parts.append(self.read_back(self.materialize(part, pre), part.shape) if part.costly else part)
            else:
                value = self.local("value", b.cast(self.scalar(arg, pre), dtype), pre)
                parts.append(ArrayValue([b.int(1)], lambda idx, body, value=value: clone(value), dtype))
        first, second = parts
        split = self.local("split", clone(first.shape[0]), pre)

        def element(idx, body):
            head = b.cast(first.element([clone(idx[0])], body), dtype)
            tail = b.cast(second.element([b.sub(clone(idx[0]), clone(split))], body), dtype)
            return n.IfExp(self.compare("<", clone(idx[0]), clone(split)), head, tail, dtype, self.loc)

        return ArrayValue([b.add(clone(split), clone(second.shape[0]))], element, dtype)

    def scan_axis(self, name: str, call: n.Call, axis: int, pre: list) -> ArrayValue:
        """``np.cumsum(a, axis)``: per line along ``axis``, a running sum into a temporary
        (the loops over the other axes are independent)."""
        b = self.b
        dtype = call.type.dtype
        source = self.array(self.subject(call), pre)
        axis = axis + source.ndim if axis < 0 else axis
        type = ArrayType(dtype, source.ndim, "C")
        out = b.name(self.namer.fresh("tmp", type), type)
        pre.append(n.Assign(clone(out), self.allocation(source.shape, dtype), self.loc))
        others = [e for d, e in enumerate(source.shape) if d != axis]

        def body(idx):
            stmts: list = []
            acc = b.name(self.namer.fresh(name[3:] if name.startswith("np.") else name, dtype), dtype)
            stmts.append(n.Assign(clone(acc), b.const(0, dtype), self.loc))
            j = self.namer.fresh("j", INT64)
            full = [clone(i) for i in idx[:axis]] + [b.name(j, INT64)] + [clone(i) for i in idx[axis:]]
            inner: list = []
            inner.append(n.AugAssign(clone(acc), "+", b.cast(source.element(full, inner), dtype), loc=self.loc))
            inner.append(n.Assign(n.Index(clone(out), [clone(i) for i in full], dtype, self.loc), clone(acc),
                                  self.loc))
            stmts.append(b.loop(j, clone(source.shape[axis]), inner))
            return stmts

        pre.extend(self.loop_nest(others, body))
        return self.read_back(out, source.shape)
