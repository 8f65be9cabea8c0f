"""Statement-level lowering: array assignments and stores become loop nests, with temporaries only where needed.

A store that reads the array it writes at another index (``a[1:] = a[:-1]``) computes
the values into a temporary first; inside a ``prange`` body it runs the loops in the
order that reads every element before overwriting it instead, when there is one.

>>> from kpc.frontend import parse_module
>>> from kpc.ir.printer import format_function
>>> from kpc.passes.manager import PassContext, run_pipeline
>>> m = parse_module('''
... from numba import njit
... @njit("void(f8[:])")
... def shift(a):
...     a[1:] = a[:-1] + 1.0
... ''', "m.py")
>>> _ = run_pipeline(m, PassContext(), ["infer-types"])
>>> FunctionLowering(m.functions["shift"]).run()
>>> print(format_function(m.functions["shift"]))
func @shift(a: f64[:]) -> none   role=entry signatures=['void(f8[:])']
  tmp0: f64[:] C = np.empty((max(a.shape[0] - 1, 0),), dtype=np.float64)
  for i0: i64 in range(0, a.shape[0] - 1):
    tmp0[i0] = a[i0] + 1.0
  for i1: i64 in range(0, a.shape[0] - 1):
    a[i1 + 1] = tmp0[i1]
"""

from __future__ import annotations

from ...ir import nodes as n
from ...ir.queries import expr_names
from ...ir.types import BOOL, ArrayType
from ..aliasing import is_subview_expr, view_roots
from ..host_routines import ROUTINES, host_routine, is_tuple_routine, result_names
from .array_functions import is_nonzero
from .elements import ElementLowering
from .local_arrays import (inlined_arrays, is_array_target, is_mask, is_view_like, read_through_views,
                           real_arrays_as_their_real_part, refuse_writes_through_parts, rename_regrouped_rebindings,
                           store_through_destination, written_or_passed)
from .loop_invariants import hoist_broadcast_checks, hoist_temporaries, unswitch_broadcast_strides
from .unpacking import unpack_arrays
from .values import ArrayValue, Builder, Namer, clone, const_int, same_extent


class FunctionLowering:
    """Statement-level lowering of one function."""

    def reads_name(self, expr, name: str, seen: tuple = ()) -> bool:
        """Whether ``expr`` reads ``name``, through the definitions of the locals it reads through
        (``cont = disc * (p * values[1:] + ...); values = np.maximum(cont, ...)`` reads ``values``:
        the new ``values`` must not be allocated under that name before its elements are read)."""
        for node in n.walk(expr):
            if not isinstance(node, n.Name):
                continue
            if node.id == name:
                return True
            definition = self.read_through.get(node.id)
            if definition is not None and node.id not in seen and self.reads_name(definition, name, seen + (node.id,)):
                return True
        return False
    def __init__(self, function: n.Function, products: bool = False, flat_reads: bool = False):
        self.function = function
        self.products = products
        self.flat_reads = flat_reads
        unpack_arrays(function)
        real_arrays_as_their_real_part(function)
        refuse_writes_through_parts(function)
        store_through_destination(function)
        rename_regrouped_rebindings(function)
        self.namer = Namer(function)
        self.roots = view_roots(function)
        self.read_through = read_through_views(function)
        self.shared_views = written_or_passed(function)
        self.prange_depth = 0
        self.read_through.update(inlined_arrays(function, self.roots))

    def run(self) -> None:
        self.function.body = self.block(self.function.body)
        unshare(self.function)
        hoist_temporaries(self.function, self.namer.generated, self.namer.shape_locals)
        hoist_broadcast_checks(self.function, self.namer.shape_locals)
        unswitch_broadcast_strides(self.function, self.namer)

    def lowering(self, loc) -> ElementLowering:
        low = ElementLowering(self.function, self.namer, loc, self.read_through)
        low.products = self.products and not self.prange_depth
        low.flat_reads = self.flat_reads
        return low

    def block(self, stmts: list) -> list:
        out = []
        for stmt in stmts:
            out.extend(self.stmt(stmt))
        return out

    def stmt(self, s) -> list:
        low = self.lowering(getattr(s, "loc", n.NOLOC))
        pre: list = []
        if isinstance(s, n.Assign):
            if isinstance(s.target, n.Name) and s.target.id in self.read_through:
                return []
            return pre + self.assign(s, low, pre)
        if isinstance(s, n.AugAssign):
            if is_array_target(s.target):
                return pre + self.store(s.target, s.value, s.op, low, pre, s.loc)
            low.lower_children(s.target, pre)
            s.value = low.scalar(s.value, pre)
            return pre + [s]
        if isinstance(s, n.For):
            s.start, s.stop, s.step = (low.scalar(e, pre) for e in (s.start, s.stop, s.step))
            self.prange_depth += s.kind == "prange"
            s.body = self.block(s.body)
            self.prange_depth -= s.kind == "prange"
            return pre + [s]
        if isinstance(s, n.While):
            s.test = low.scalar(s.test, pre)
            s.body = self.block(s.body)
            if pre:
                # The test is re-evaluated every iteration, and so are its hoisted reductions.
                exit_ = n.If(n.UnaryOp("not", s.test, BOOL, s.loc), [n.Break(s.loc)], [], s.loc)
                return [n.While(n.Const(True, BOOL, s.loc), pre + [exit_] + s.body, s.loc)]
            return [s]
        if isinstance(s, n.If):
            s.test = low.scalar(s.test, pre)
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
            return pre + [s]
        if isinstance(s, n.Return):
            s.value = self.returned(s.value, low, pre)
            return pre + [s]
        if isinstance(s, n.ExprStmt):
            if isinstance(s.value, n.Call) and s.value.func == ".fill":
                return pre + self.store(s.value.args[0], s.value.args[1], None, low, pre, s.loc)
            if isinstance(s.value, n.Call) and s.value.func == ".sort":
                # a.sort(): a sorted copy of each row, stored back.
                return pre + self.store(s.value.args[0], low.sorted_in_place(s.value.args[0], pre), None, low, pre,
                                        s.loc)
            if isinstance(s.value, n.Call) and s.value.func == "np.random.shuffle":
                return pre + low.shuffle(s.value, pre)
            if isinstance(s.value, n.Call) and s.value.func == "np.fill_diagonal":
                stmts = low.fill_diagonal(s.value, pre)
                return pre + stmts
            s.value = low.scalar(s.value, pre)
            return pre + [s]
        return [s]

    def returned(self, value, low: ElementLowering, pre: list):
        if is_nonzero(value):
            return n.TupleExpr(low.nonzero_indices(value, pre), value.type, value.loc)
        if self.is_local_part(value):
            # A part of an array the kernel allocated (``return full[s:s + n]``): a copy, which the
            # caller cannot tell from the view Numba returns (nothing else holds that array).
            return low.materialize(low.array(value, pre), pre)
        if is_tuple_routine(value):
            names = [name for name, _ in host_routine(low, value, pre)]
            return n.TupleExpr(names, value.type, value.loc)
        if isinstance(value, n.TupleExpr):
            value.elements = [self.returned(e, low, pre) for e in value.elements]
            return value
        return low.scalar(value, pre)

    def is_local_part(self, value) -> bool:
        """``value`` is a subview (not the whole) of arrays the kernel allocated, none a parameter."""
        if not (isinstance(value, n.Index) and isinstance(value.type, ArrayType) and is_subview_expr(value)):
            return False
        base = value.base
        while isinstance(base, n.Index):
            base = base.base
        params = {p.name for p in self.function.params}
        return isinstance(base, n.Name) and not self.roots.get(base.id, {base.id}) & params

    # ----------------------------------------------------------------- assignments

    def assign(self, s: n.Assign, low: ElementLowering, pre: list) -> list:
        target, value = s.target, s.value
        if isinstance(target, n.Index) and is_array_target(target):
            return self.store(target, value, None, low, pre, s.loc)
        if isinstance(value, n.Call) and value.func in ROUTINES and (isinstance(target, n.Name) or is_tuple_routine(
                value) and isinstance(target, n.TupleExpr) and len(target.elements) == len(value.type.elements)):
            names = result_names(target, value)
            results = host_routine(low, value, pre, names)
            if names:
                return []
            targets = target.elements if isinstance(target, n.TupleExpr) else [target]
            return [n.Assign(t, name, s.loc) for t, (name, _) in zip(targets, results)]
        if isinstance(target, n.TupleExpr) and is_nonzero(value) and len(target.elements) == len(value.type.elements):
            return [n.Assign(t, name, s.loc) for t, name in zip(target.elements, low.nonzero_indices(value, pre))]
        if isinstance(target, n.TupleExpr):
            values = value.elements if isinstance(value, n.TupleExpr) else []
            for v in values:
                if isinstance(v.type, ArrayType) and (not is_subview_expr(v) or low.reads_through(v)):
                    low.fail(f"tuple assignment of a computed array `{v}`", v,
                             "assign it to a name of its own first")
            s.value = low.scalar(value, pre) if not values else value
            if values:
                low.lower_children(value, pre)
            return [s]
        if isinstance(target, n.Name) and isinstance(value.type, ArrayType):
            if is_subview_expr(value) and not low.reads_through(value):
                low.lower_children(value, pre)
                return [s]
            if target.id in self.shared_views and is_view_like(value):
                parts = any(isinstance(x, n.Attribute) and x.attr in ("real", "imag") for x in n.walk(value))
                kind = "view of the parts of complex numbers" if parts else "strided or transposed view"
                low.fail(f"the {kind} `{target.id} = {value}`, written through or passed to a kernel", value,
                         "write the complex elements (a[i] = complex(v, a[i].imag))" if parts else
                         "Kokkos subviews have unit steps; pass the base array")
            draws = isinstance(value, n.Call) and value.kind == "random"
            array = low.draws(value, pre) if draws else low.array(value, pre)
            if array.temporary is not None:
                return [n.Assign(target, clone(array.temporary), s.loc)]
            if self.reads_name(value, target.id):
                tmp = low.materialize(array, pre)
                return [n.Assign(target, tmp, s.loc)]
            alloc = n.Assign(target, low.allocation(array.shape, array.dtype), s.loc)
            target_name = n.Name(target.id, alloc.value.type, s.loc)
            return [alloc] + low.fill(target_name, array)
        if isinstance(target, n.Name) and low.reduce_into(value, target, pre):
            return []
        low.lower_children(target, pre)
        s.value = low.scalar(value, pre)
        return [s]

    def store(self, target, value, op, low: ElementLowering, pre: list, loc) -> list:
        """``target[...] (op)= value`` where the target denotes several elements."""
        if isinstance(target, n.Index) and any(is_mask(e) for e in target.indices):
            return self.masked_store(target, value, op, low, pre, loc)
        written = low.array(target, pre)
        whole = None
        if isinstance(getattr(value, "type", None), ArrayType):
            if value.type.ndim <= written.ndim:
                low.shape_hint = written.shape[written.ndim - value.type.ndim:]
            source = low.array(value, pre)
            if source.ndim > written.ndim:
                low.fail(f"assignment of a rank-{source.ndim} value to `{target}` of rank {written.ndim}",
                         value)
            if op is None and source.ndim == written.ndim and source.blocks is not None:
                whole = self.written_whole(written, source, low, loc)
            source = low.stretch([source], written.shape, pre, into=True)[0]
        else:
            source = low.scalar(value, pre)
        nest = self.element_loops(target, written, source, op, low, pre, loc)
        if whole is None:
            return nest
        unequal = [n.Compare("==", clone(w), clone(e), BOOL, loc) for w, e in zip(written.shape, whole[1])
                   if not same_extent(w, e)]
        if not unequal:
            return whole[0]
        test = unequal[0] if len(unequal) == 1 else n.BoolOp("and", unequal, BOOL, loc)
        return [n.If(test, whole[0], nest, loc)]

    def written_whole(self, written: ArrayValue, source: ArrayValue, low, loc):
        """The loops that store ``source`` through its ``blocks`` form (``A[b] @ B[b]`` row by
        row, ``np.kron`` block by block, a sum along a leading axis in memory order) and the
        extents they assume, or None where they would read the array they write. The caller
        runs them where the extents match at run time (else the value broadcasts: element by
        element)."""
        shape, element, position, update = source.blocks
        bases: set = set()

        def slot(idx):
            stmts: list = []
            at = written.element([clone(i) for i in idx], stmts)
            if stmts or not (isinstance(at, n.Index) and isinstance(at.base, n.Name)):
                bases.add(None)
                return None
            bases.add(at.base.id)
            return at

        def body(idx):
            stmts: list = []
            at, scalar = slot(position(idx)), low.b.cast(element(idx, stmts), source.dtype)
            store = n.Assign(at, scalar, loc) if update is None else n.AugAssign(at, "+", scalar, loc=loc)
            return stmts + [store]

        main = low.loop_nest(shape, body)
        if len(bases) != 1 or None in bases:
            return None
        (base,) = bases
        targets = {id(x.target) for s in main for x in n.walk(s) if isinstance(x, (n.Assign, n.AugAssign))}
        if any(isinstance(x, n.Index) and isinstance(x.base, n.Name) and x.base.id == base and id(x) not in targets
               or isinstance(x, n.Call) and x.kind in ("kernel", "random") for s in main for x in n.walk(s)):
            return None
        if update is not None:
            init, finish = update
            main = low.loop_nest(written.shape, lambda idx: [n.Assign(slot(idx), clone(init), loc)]) + main
            if finish is not None:
                main += low.loop_nest(written.shape, lambda idx: [n.Assign(slot(idx), finish(slot(idx)), loc)])
        return main, source.shape

    def element_loops(self, target, written: ArrayValue, source, op, low, pre, loc, mask=None) -> list:
        """Loops ``written[idx] (op)= source[idx]`` (under ``if mask[idx]``), computing the
        values (and the mask) into temporaries first when the loops could read elements
        they already overwrote."""
        state = self.namer.snapshot()
        nest, write = self.nest(target, written, source, op, low, loc, mask)
        reads = [node for s in nest for node in n.walk(s) if node is not write and node is not write.base]
        if not self.overlaps(write, reads):
            return nest
        if self.prange_depth and mask is None:
            # Inside a prange body the loops run serially, and a temporary would be an
            # allocation per parallel iteration: run them in the order that reads every
            # element before overwriting it, when there is one.
            order = self.iteration_order(nest, write, reads)
            if order == "forward":
                return nest
            if order == "backward":
                return reverse_loops(nest, write)
        self.namer.restore(state)
        if isinstance(source, ArrayValue):
            source = self.temporary(low, written, source, pre)
        else:
            # ``a[:] = 2 * a[3]``: the value is read once, before a[3] is overwritten.
            value = self.namer.fresh("value", source.type)
            pre.append(n.Assign(n.Name(value, source.type, loc), source, loc))
            source = n.Name(value, source.type, loc)
        if mask is not None:
            mask = self.temporary(low, written, mask, pre)
        return self.nest(target, written, source, op, low, loc, mask)[0]

    @staticmethod
    def temporary(low, written: ArrayValue, value: ArrayValue, pre: list) -> ArrayValue:
        """``value`` broadcast to the written shape, computed into a fresh array."""
        spread = ArrayValue(written.shape, lambda idx, stmts: value.element(
            low.broadcast_indices(value, idx), stmts), value.dtype)
        tmp = low.materialize(spread, pre)
        return ArrayValue(written.shape, lambda idx, stmts: n.Index(
            clone(tmp), [clone(i) for i in idx], value.dtype, low.loc), value.dtype)

    def nest(self, target, written: ArrayValue, source, op, low, loc, mask):
        """The loop nest of a store and its innermost store node's target."""
        writes = []

        def body(idx):
            stmts = []
            element = written.element(idx, stmts)
            if not (isinstance(element, n.Index) and isinstance(element.base, n.Name)):
                low.fail(f"assignment to `{target}`, which is not a view of a named array", target)
            if isinstance(source, ArrayValue):
                new = source.element(low.broadcast_indices(source, idx), stmts)
            else:
                new = clone(source)
            store = self.element_store(element, new, op, written.dtype, low, loc)
            writes.append(element)
            if mask is not None:
                cond = mask.element(low.broadcast_indices(mask, idx), stmts)
                store = n.If(cond, [store], [], loc)
            stmts.append(store)
            return stmts

        nest = low.loop_nest(written.shape, body)
        return nest, writes[0]

    @staticmethod
    def element_store(element, new, op, dtype, low, loc):
        if op is None:
            return n.Assign(element, low.b.cast(new, dtype), loc)
        return n.AugAssign(element, op, new, loc=loc)

    def overlaps(self, write: n.Index, reads: list) -> bool:
        """True when ``reads`` may touch an element of the written array other than ``write``."""
        base = write.base.id
        key = [str(i) for i in write.indices]
        same = {id(node.value) for node in reads
                if isinstance(node, n.Attribute) and node.attr in ("shape", "size", "ndim", "dtype")}
        for node in reads:
            if isinstance(node, n.Index) and isinstance(node.base, n.Name) \
                    and node.base.id == base and [str(i) for i in node.indices] == key:
                same.add(id(node.base))
        for node in reads:
            if isinstance(node, n.Name) and id(node) not in same and isinstance(node.type, ArrayType) \
                    and self.may_overlap(node.id, base):
                return True
        return False

    def iteration_order(self, nest: list, write: n.Index, reads: list) -> str | None:
        """``forward`` when every read of the written array is at or after the write in the
        loops' (lexicographic) order, ``backward`` when every one is at or before it, else
        None. Only reads at constant offsets from the write (``a[i0 + 1]`` against
        ``a[i0]``) through the same name count."""
        loop_vars = [s.var.id for s in n.walk(nest) if isinstance(s, n.For)]
        base = write.base.id
        through_index = {id(x.base) for x in reads if isinstance(x, n.Index)}
        through_index |= {id(x.value) for x in reads if isinstance(x, n.Attribute)}
        signs = set()
        for node in reads:
            if isinstance(node, n.Index) and isinstance(node.base, n.Name) and node.base.id == base:
                distance = offset_distance(write.indices, node.indices, loop_vars)
                if distance is None:
                    return None
                first = next((d for d in distance if d != 0), 0)
                if first:
                    signs.add(first > 0)
            elif isinstance(node, n.Name) and isinstance(node.type, ArrayType) and self.may_overlap(node.id, base) \
                    and (node.id != base or id(node) not in through_index):
                return None
        if signs == {True}:
            return "forward"
        if signs == {False}:
            return "backward"
        return None

    def may_overlap(self, a: str, b: str) -> bool:
        return bool(self.roots.get(a, {a}) & self.roots.get(b, {b}))

    def masked_store(self, target: n.Index, value, op, low, pre, loc) -> list:
        """``a[mask] (op)= v``: an ``if`` per element; ``v`` is a scalar or ``b[mask]``."""
        if len(target.indices) != 1:
            low.fail(f"masked assignment `{target}` mixing a mask with other indices", target)
        mask = low.array(target.indices[0], pre)
        written = low.array(target.base, pre)
        if mask.ndim != written.ndim:
            low.fail(f"masked assignment `{target}` with a mask of another rank", target)
        if isinstance(getattr(value, "type", None), ArrayType):
            same_mask = isinstance(value, n.Index) and len(value.indices) == 1 \
                and str(value.indices[0]) == str(target.indices[0])
            if not same_mask:
                low.fail(f"masked assignment of the array `{value}` (only a scalar or `b[mask]` "
                         "with the same mask is lowered)", value)
            source = low.array(value.base, pre)
        else:
            source = low.scalar(value, pre)
        return self.element_loops(target, written, source, op, low, pre, loc, mask)


def offset_distance(written: list, read: list, loop_vars: list):
    """Per loop variable, the read index minus the written one, when every axis differs by
    a constant (``i0 + 1`` vs ``i0``) or not at all; else None."""
    if len(written) != len(read):
        return None
    distance = dict.fromkeys(loop_vars, 0)
    for w, r in zip(written, read):
        if str(w) == str(r):
            continue
        aw, ar = affine_in(w, loop_vars), affine_in(r, loop_vars)
        if aw is None or ar is None or aw[0] != ar[0] or aw[0] is None:
            return None
        distance[aw[0]] += ar[1] - aw[1]
    return [distance[v] for v in loop_vars]


def affine_in(expr, loop_vars: list):
    """``(var, c)`` for ``var``, ``var + c``, ``var - c``, ``c + var`` with ``var`` a loop variable."""
    if isinstance(expr, n.Name) and expr.id in loop_vars:
        return expr.id, 0
    if isinstance(expr, n.BinOp) and expr.op in "+-":
        left, right = expr.left, expr.right
        if isinstance(left, n.Name) and left.id in loop_vars and const_int(right) is not None:
            return left.id, const_int(right) * (1 if expr.op == "+" else -1)
        if expr.op == "+" and isinstance(right, n.Name) and right.id in loop_vars and const_int(left) is not None:
            return right.id, const_int(left)
    return None


def reverse_loops(nest: list, write: n.Index) -> list:
    """The loops over the written element's indices, run from the last index down to the first."""
    written_vars = expr_names(write.indices)
    for loop in n.walk(nest):
        if isinstance(loop, n.For) and loop.var.id in written_vars:
            b = Builder(loop.loc)
            loop.start, loop.stop, loop.step = b.add(loop.stop, b.int(-1)), b.int(-1), b.int(-1)
    return nest


def unshare(function: n.Function) -> None:
    """Copy every expression node reachable twice, so later passes may rewrite nodes in place."""
    seen: set = set()

    def visit(node):
        for field in node.__dataclass_fields__:
            if field in ("type", "loc", "to", "parallel"):
                continue
            value = getattr(node, field)
            if isinstance(value, (n.Expr, n.Stmt)):
                setattr(node, field, fresh(value))
            elif isinstance(value, list):
                setattr(node, field, [fresh(v) if isinstance(v, (n.Expr, n.Stmt)) else v for v in value])
            elif isinstance(value, dict):
                setattr(node, field, {k: fresh(v) if isinstance(v, (n.Expr, n.Stmt)) else v
                                      for k, v in value.items()})

    def fresh(node):
        if id(node) in seen:
            node = clone(node)
        seen.add(id(node))
        visit(node)
        return node

    function.body = [fresh(s) for s in function.body]
