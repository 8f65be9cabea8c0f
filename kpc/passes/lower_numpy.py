"""lower-numpy: NumPy array expressions, ufuncs, reductions, slicing and allocation into loops.

What the emitters get after this pass (``array_level_nodes`` is empty), in full:

- **Allocation**, one form only, a statement ``name = np.empty((e0, ..., ek), dtype=np.<dtype>)``:
  ``Assign(Name, Call(kind="numpy", func="np.empty", args=[TupleExpr(extents)],
  kwargs={"dtype": GlobalConst("np.<dtype>", "<dtype>", DTypeType(dtype))}))`` typed
  ``ArrayType(dtype, k + 1, "C")``; read the dtype from ``call.type.dtype``. Extents are
  scalar ``i64`` expressions: sizes the user wrote as written, computed extents that
  could be negative wrapped in ``max(e, 0)`` (``max(a.shape[0] - 2, 0)``). The target is
  a local ``Name`` (the user's, or a fresh ``tmp<k>``). Elements are uninitialised:
  ``zeros``/``ones``/``full``/``arange``/``eye``/``copy``/... are this statement followed
  by fill loops. A temporary is allocated before the serial ``range`` loops it does not
  depend on; one inside a ``prange`` body stays there (one per iteration).
- **Loops**: ``For(Name("i<k>", i64), 0, extent, 1, kind="range")``, fresh names,
  perfectly nested per element-wise statement (outer loop = first axis); unit axes get
  no loop (index ``0``). Inside a ``prange`` body, a store that reads its own array at
  constant offsets runs in the order that reads each element before overwriting it
  instead of through a temporary: as is, or reversed,
  ``For(i<k>, extent - 1, -1, -1)``.
- **Element access**: ``Index(Name, [i64 scalar per axis])``; indices are affine in the
  loop variables (``i0 + 1``, ``n - 1 - i0``, ``2 * i0``), gathers read ``a[idx[i0]]``,
  reshapes split a flat position with ``//`` and ``%``.
- **Whole-array reductions** (``np.sum(x)``, ``x.max()``, ``x @ y`` of vectors, ...): a
  scalar accumulator (the user's local for ``s = np.sum(...)``, else ``sum<k>``,
  ``prod<k>``, ``min<k>``, ``max<k>``, ``mean<k>``, ``count<k>``, ``any<k>``, ``all<k>``)
  set to its initial value, then a loop nest before the statement that uses it, with
  ``acc += e`` (sum, mean, count), ``acc *= e`` (prod), ``acc = max(acc, e)`` /
  ``min`` (builtin calls; initial value = the first element; for floats, as Numba: without
  ``parallel=True`` also ``nan<k> += e if e != e else 0`` and then ``acc = nan<k>`` when that
  is NaN, so any NaN is the result; with it, initial value -inf/+inf, NaNs skipped; along
  an axis ``acc = e if e > acc or e != e else acc``), ``acc = acc or e`` /
  ``and``; ``mean`` then divides, ``acc = acc / f64(n0 * n1)``; ``var``/``std`` are a mean
  then ``dev<k> = e - mean; acc += dev * dev`` (and ``np.sqrt``); ``argmin``/``argmax``
  keep ``best<k>`` and the flat C-order position under ``if e > best`` (floats: ``or`` the
  first NaN, ``e != e and best == best``); a reduction of a
  boolean selection (``x[x > 0].sum()``) updates under ``if mask[...]:``.
- **Axis reductions and matrix products** (``a.sum(axis=1)``, ``A @ x``, ``x @ A``,
  ``A @ B``): inside the consumer's loop nest, per output element, ``acc = init`` and an
  inner ``for i<k> in range(0, extent)`` loop, the element being ``acc``. Where such a
  value would be recomputed (broadcast along another axis, operand of a matrix
  product) it is computed into a temporary first.
- **Scalar forms**: a ufunc per element is ``Call(kind="math", func="np.<ufunc>")`` (the
  frontend's spelling of a NumPy ufunc on scalars); ``np.abs``/``minimum``/``maximum``/
  ``clip`` are builtin ``abs``/``min``/``max`` (on floats, ``np.maximum(x, y)`` is
  ``x if x >= y or x != x else y`` and ``fmax`` tests ``y != y``: NumPy's NaN rules, on
  arrays and scalars); ``np.power`` is ``**``; ``np.sign``,
  ``np.where``, ``triu``/``tril``, ``eye`` are ``IfExp``; ``astype`` is ``Cast``;
  ``logical_*`` are ``BoolOp``/``not``; ``np.concatenate``/``stack`` read each element
  from its part through an ``IfExp`` chain; ``cumsum``/``cumprod`` are a serial loop with
  an accumulator.
- **Views**: a local bound once to a view and only read (``r = a[i]``, ``t = a.T``,
  ``e = a[::2]``, ``f = np.flip(a)``, read at ``a[n - 1 - i]``) disappears: its uses read ``a`` with mapped indices. Views that stay
  are subviews (integers and unit-step slices only: ``w = a[2]``, ``a[1:, j]``) bound to a
  name that is written through, returned or passed to a kernel, or passed to a kernel
  or returned directly. A strided or transposed view that is written through or passed
  to a kernel is rejected.
- **Parts of complex arrays**: ``a.real``/``a.imag`` are read per element (``a[i0].imag``),
  a name bound to one like any view read through; ``.real`` of a real array is the array
  itself (rewritten before lowering); a write through a part of a complex array is rejected.
- **Host routines**: ``np.linalg.solve/inv/cholesky``, ``np.histogram`` and ``np.cov``
  allocate their results (under the names they are assigned to, else ``tmp<k>``) and a
  builtin ``ExprStmt`` of ``ir.intrinsics.HOST_ROUTINES`` fills them:
  ``x = np.empty(...); linalg_solve(a, b, x)``, ``histogram(x, bins[, lo, hi], counts, edges)``,
  ``histogram_edges(x, edges, counts)`` (array bins: the edges are the result as given)
  (see ``host_routines``).
- **Rebinding**: ``x = x * 2`` computes into ``tmp<k>`` then rebinds ``x = tmp<k>``.
- A ``while`` test that needs a reduction becomes ``while True:`` with the reduction
  loops, ``if not test: break``, then the body.

- **Broadcasting by run-time extents**: where operands' extents are different expressions
  (``x - m`` of two parameters), the statement starts with one check of all their shapes,
  ``broadcast_operands((x.shape[0], x.shape[1]), (m.shape[0], m.shape[1]))`` (or
  ``broadcast_into(stored_shape, shapes...)`` for a store; a builtin ``ExprStmt`` the
  emitters turn into NumPy's ValueError), then ``ext<k>: i64`` locals for result extents
  (``m.shape[1] if x.shape[1] == 1 else x.shape[1]``) and broadcast strides
  ``bs<k>: i64 = 0 if m.shape[1] == 1 else 1``; such an operand axis is read at ``i<j> * bs<k>``.
  The loop nest then runs as ``if bs0 == 1 and ...: <the nest with unit strides> else: <the
  nest>``, so operands that turn out not to be stretched are read contiguously.

Assumed, as in most NumPy kernels (not checked at run time): Distinct parameters do not share memory
(a temporary is made only for overlapping views of one array). Slice bounds lie within
the array; negative constants and ``-k`` count from the end. ``min``/``max`` of an empty
array is undefined (NumPy raises).
"""

from __future__ import annotations

from ..ir import nodes as n
from ..ir.module import Rejected
from ..ir.queries import called_inside, expr_names
from ..ir.rewrite import replace_names
from ..ir.types import BOOL, INT64, ArrayType
from .aliasing import is_subview_expr, is_view_expr, view_base_name, view_roots
from .array_elements import ArrayValue, Builder, ElementLowering, Namer, clone, const_int, short_name
from .host_routines import ROUTINES, host_routine, is_tuple_routine, result_names
from .lowering_errors import NumpyLoweringError
from .manager import Pass, register


@register
class LowerNumpy(Pass):
    """Rewrite array-level IR into explicit loop nests over scalar IR.

    Element-wise chains (operators, comparisons, ufuncs, ``np.where``, broadcasting
    with ``None``, slices on both sides) become one loop nest per statement (fused:
    no temporary per operation). Whole-array reductions (``np.sum(x)``, ``x.max()``,
    ``x @ y`` of vectors) are hoisted into a scalar local computed by a loop placed
    before the statement that uses them; axis reductions and matrix products compute
    each element with an inner loop. A temporary array appears only where NumPy
    semantics need one: the written array may overlap an array read at another
    index (``A[1:] = A[:-1]`` reads the old values), a name is rebound to a value
    that reads it (``x = x * 2``), or a computed array is passed to a kernel or
    returned.

    The only array-level node left is the allocation statement
    ``name = np.empty((e0, ..., ek), dtype=np.<dtype>)`` (the module docstring lists
    every form the emitters get). Generated loops use fresh ``i<k>: i64`` variables;
    every new local is in ``Function.locals``; every new node is typed and carries
    the statement's location. A construct it cannot lower raises a
    ``NumpyLoweringError`` (a ``KpcError``) naming it; the pass records it in
    ``module.rejected`` with the kernels calling it: they stay Numba.

    Before::

        func @f(x: f64[:] C, out: f64[:] C) -> none   role=entry
          out[1:-1] = np.exp(x[1:-1] - np.max(x)) + out[2:]

    After::

        func @f(x: f64[:] C, out: f64[:] C) -> none   role=entry
          max0: f64 = x[0]
          nan0: f64 = 0.0
          for i0: i64 in range(0, x.shape[0]):
            nan0 += x[i0] if x[i0] != x[i0] else 0.0
            max0 = max(max0, x[i0])
          max0 = nan0 if nan0 != nan0 else max0
          broadcast_into((out.shape[0] - 2,), (x.shape[0] - 2,))
          bs0: i64 = 0 if x.shape[0] - 2 == 1 else 1
          tmp0: f64[:] C = np.empty((max(out.shape[0] - 2, 0),), dtype=np.float64)
          if bs0 == 1:
            for i3: i64 in range(0, out.shape[0] - 2):
              tmp0[i3] = np.exp(x[i3 + 1] - max0) + out[i3 + 2]
          else:
            for i1: i64 in range(0, out.shape[0] - 2):
              tmp0[i1] = np.exp(x[i1 * bs0 + 1] - max0) + out[i1 + 2]
          for i2: i64 in range(0, out.shape[0] - 2):
            out[i2 + 1] = tmp0[i2]

    (``nan0`` makes ``np.max`` NaN when any element is, as NumPy and Numba without
    ``parallel=True``; with it, Numba skips NaNs and ``max0`` starts at ``-inf``.
    ``out[2:]`` is read while ``out[1:-1]`` is written, so the values are computed
    into ``tmp0`` first; without that read there is a single loop and no ``tmp0``.
    ``x[1:-1]`` may have extent 1 at run time and then broadcasts: ``bs0`` is 0; the nest
    that reads it runs in a version for ``bs0 == 1`` too, with contiguous reads.)
    """

    name = "lower-numpy"

    def apply(self, ctx, module) -> None:
        failed = {}
        in_regions = called_inside(module, lambda loop: loop.kind == "prange")
        for name, function in list(module.functions.items()):
            try:
                lower_function(function, products=ctx.target == "kokkos" and name not in in_regions)
            except NumpyLoweringError as error:
                failed[name] = error
        if failed:
            reject(module, failed)


def reject(module, failed: dict) -> None:
    """Move functions that could not be lowered, and the kernels calling them, to
    ``module.rejected``: they stay Numba in the output module."""
    for name, error in failed.items():
        module.rejected[name] = Rejected(name, error.diagnostic, error.loc)
        del module.functions[name]
    changed = True
    while changed:
        changed = False
        for name, function in list(module.functions.items()):
            for node in n.walk(function):
                if isinstance(node, n.Call) and node.kind == "kernel" and node.func in module.rejected:
                    error = NumpyLoweringError(f"a call of @{node.func}, which stays Numba", node.loc)
                    module.rejected[name] = Rejected(name, error.diagnostic, node.loc)
                    del module.functions[name]
                    changed = True
                    break
    module.rebuild_callgraph()


def lower_function(function: n.Function, products: bool = False) -> n.Function:
    """Lower every array-level node of ``function`` in place; returns it. ``products``: matrix
    products outside ``prange`` loops call the ``matmul`` routine (the Kokkos target, for a
    function not called from a ``prange``)."""
    FunctionLowering(function, products).run()
    return function


def array_level_nodes(function: n.Function) -> list:
    """Array-level nodes left in ``function`` (empty after ``lower-numpy``): operations and
    calls with an array result, reductions, anything but the ``np.empty`` statement form."""
    allowed = set()
    for node in n.walk(function):
        if isinstance(node, n.Assign) and isinstance(node.target, n.Name) \
                and isinstance(node.value, n.Call) and node.value.func == "np.empty":
            allowed.add(id(node.value))
    left = []
    for node in n.walk(function):
        if isinstance(node, (n.BinOp, n.UnaryOp, n.Compare, n.BoolOp, n.IfExp, n.Cast)) \
                and isinstance(node.type, ArrayType):
            left.append(node)
        elif isinstance(node, n.BinOp) and node.op == "@":
            left.append(node)
        elif isinstance(node, n.Call) and node.kind == "numpy" and id(node) not in allowed:
            left.append(node)
        elif isinstance(node, n.Call) and isinstance(node.type, ArrayType) and id(node) not in allowed:
            left.append(node)
        elif isinstance(node, n.Attribute) and (node.attr == "T" or node.attr in ("real", "imag")
                                                and isinstance(node.type, ArrayType)):
            left.append(node)
        elif isinstance(node, n.Index) and any(isinstance(getattr(e, "type", None), ArrayType)
                                               for e in node.indices):
            left.append(node)
    return left


class FunctionLowering:
    """Statement-level lowering of one function."""

    def __init__(self, function: n.Function, products: bool = False):
        self.function = function
        self.products = products
        real_arrays_as_their_real_part(function)
        refuse_writes_through_parts(function)
        store_through_destination(function)
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
            s.value = low.scalar(s.value, pre)
            return pre + [s]
        return [s]

    def returned(self, value, low: ElementLowering, pre: list):
        if is_tuple_routine(value):
            names = [name for name, _ in host_routine(low, value, pre)]
            return n.TupleExpr(names, value.type, value.loc)
        if isinstance(value, n.TupleExpr):
            value.elements = [self.returned(e, low, pre) for e in value.elements]
            return value
        return low.scalar(value, pre)

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
            if any(isinstance(node, n.Name) and node.id == target.id for node in n.walk(value)):
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
        if isinstance(getattr(value, "type", None), ArrayType):
            if value.type.ndim <= written.ndim:
                low.shape_hint = written.shape[written.ndim - value.type.ndim:]
            source = low.array(value, pre)
            if source.ndim > written.ndim:
                low.fail(f"assignment of a rank-{source.ndim} value to `{target}` of rank {written.ndim}",
                         value)
            source = low.stretch([source], written.shape, pre, into=True)[0]
        else:
            source = low.scalar(value, pre)
        return self.element_loops(target, written, source, op, low, pre, loc)

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


def is_mask(entry) -> bool:
    ty = getattr(entry, "type", None)
    return isinstance(ty, ArrayType) and ty.dtype == BOOL


def is_array_target(target) -> bool:
    """A store target that denotes several elements: ``a``, ``a[1:]``, ``a[i]`` of a 2-D ``a``, ``a[mask]``."""
    if isinstance(target, n.Name):
        return isinstance(target.type, ArrayType)
    if isinstance(target, n.Index):
        return isinstance(target.type, ArrayType) or any(is_mask(e) for e in target.indices)
    return False


def is_view_like(expr) -> bool:
    """A view of existing memory, including ``np.transpose(a)``."""
    if isinstance(expr, n.Call) and short_name(expr.func) == "transpose" and expr.args:
        return is_view_like(expr.args[0])
    if isinstance(expr, n.Index):
        return all(not isinstance(getattr(e, "type", None), ArrayType) for e in expr.indices) \
            and is_view_like(expr.base)
    if isinstance(expr, n.Attribute) and expr.attr == "T":
        return is_view_like(expr.value)
    return is_view_expr(expr)


def written_or_passed(function: n.Function) -> set:
    """Array names stored into or passed to kernels (their views must be real views)."""
    names = set()
    for node in n.walk(function):
        if isinstance(node, (n.Assign, n.AugAssign)) and not isinstance(node.target, n.Name):
            targets = node.target.elements if isinstance(node.target, n.TupleExpr) else [node.target]
            names |= {view_base_name(t) for t in targets if not isinstance(t, n.Name)}
        elif isinstance(node, n.AugAssign) and isinstance(node.target.type, ArrayType):
            names.add(node.target.id)
        elif isinstance(node, n.Call) and node.kind == "kernel":
            names |= {view_base_name(a) for a in node.args if is_view_expr(a)}
    names.discard(None)
    return names


def read_through_views(function: n.Function) -> dict:
    """Locals bound once to a view (``b = a[1:]``, ``b = a.T``, ``b = a[::2]``, ``b = a[:, None]``)
    and only read: their uses read ``a`` with mapped indices instead, so no subview is made
    (Kokkos has none for steps, new axes and transposes). Every name the view's definition
    reads is bound at most once, so it means the same at every use."""
    assigned = assignment_counts(function)
    defs = {}
    for s in n.walk(function):
        if not (isinstance(s, n.Assign) and isinstance(s.target, n.Name) and assigned.get(s.target.id) == 1):
            continue
        value = s.value
        if not isinstance(value.type, ArrayType) or not is_view_like(value):
            continue
        if all(assigned.get(x.id, 0) <= 1 for x in n.walk(value) if isinstance(x, n.Name)) \
                and uses_follow(function, s):
            defs[s.target.id] = value
    for node in n.walk(function):
        escapes = []
        if isinstance(node, n.Call) and node.kind == "kernel":
            escapes = node.args
        elif isinstance(node, n.Return) and node.value is not None:
            escapes = node.value.elements if isinstance(node.value, n.TupleExpr) else [node.value]
        elif isinstance(node, (n.Assign, n.AugAssign)) and not isinstance(node.target, n.Name):
            escapes = [node.target]
        elif isinstance(node, n.AugAssign) and isinstance(node.target.type, ArrayType):
            escapes = [node.target]
        elif isinstance(node, n.Assign):
            escapes = node.value.elements if isinstance(node.value, n.TupleExpr) else [node.value]
            escapes = [e for e in escapes if isinstance(e, n.Name)]
        for e in escapes:
            name = view_base_name(e) if is_view_expr(e) else None
            defs.pop(name, None)
    return defs


def uses_follow(function: n.Function, definition: n.Assign) -> bool:
    """True when every use of the name ``definition`` binds comes after it in its block (not
    earlier in a loop body, where it would see the previous iteration's binding)."""
    name = definition.target.id
    total = sum(1 for x in n.walk(function) if isinstance(x, n.Name) and x.id == name) - 1

    def find(block):
        for k, s in enumerate(block):
            if s is definition:
                return sum(1 for t in block[k + 1:] for x in n.walk(t) if isinstance(x, n.Name) and x.id == name)
            for child, _ in nested_blocks(s):
                found = find(child)
                if found is not None:
                    return found
        return None

    return find(function.body) == total


def assignment_counts(function: n.Function) -> dict:
    """How many times each name is bound (assignments, augmented assignments, loop variables)."""
    counts: dict = {}
    for node in n.walk(function):
        targets = []
        if isinstance(node, (n.Assign, n.AugAssign)):
            targets = node.target.elements if isinstance(node.target, n.TupleExpr) else [node.target]
        elif isinstance(node, n.For):
            targets = [node.var]
        for t in targets:
            if isinstance(t, n.Name):
                counts[t.id] = counts.get(t.id, 0) + 1
    return counts


def inlined_arrays(function: n.Function, roots: dict) -> dict:
    """Local arrays whose definition is read through at their uses instead of allocated.

    A local bound once to an element-wise expression and read only by the next
    statements of its block is a temporary NumPy needed and loops do not: used once,
    it is always inlined; used several times, it is inlined inside loop bodies (an
    allocation per iteration of a parallel loop costs more than recomputing the
    elements). Nothing between the definition and the last use may write an array
    it reads or rebind a name it reads.
    """
    counts = assignment_counts(function)
    references: dict = {}
    for node in n.walk(function):
        if isinstance(node, n.Name):
            references[node.id] = references.get(node.id, 0) + 1
    defs: dict = {}

    def visit(block: list, in_loop: bool) -> None:
        for k, s in enumerate(block):
            for child_block, loop in nested_blocks(s):
                visit(child_block, in_loop or loop)
            if not (isinstance(s, n.Assign) and isinstance(s.target, n.Name)
                    and counts.get(s.target.id) == 1 and isinstance(s.value.type, ArrayType)
                    and not is_view_expr(s.value) and is_recomputable(s.value)):
                continue
            name = s.target.id
            uses = [j for j in range(k + 1, len(block))
                    if any(isinstance(x, n.Name) and x.id == name for x in n.walk(block[j]))]
            total = references.get(name, 0) - 1
            reads = [count_reads(block[j], name) for j in uses]
            if not uses or min(reads) < 0 or sum(reads) != total:
                continue
            if any(not isinstance(block[j], (n.Assign, n.AugAssign, n.Return)) for j in uses):
                continue
            if total > 1 and (not in_loop or is_costly(s.value)):
                continue
            if any(writes_inputs(block[j], s.value, roots) for j in range(k + 1, uses[-1])):
                continue
            defs[name] = s.value

    visit(function.body, False)
    return defs


# Element-wise calls whose recomputation costs more than storing and re-reading the element.
TRANSCENDENTAL = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
                  "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
                  "power", "float_power", "erf", "erfc", "gamma", "lgamma", "cbrt", "hypot"}


def is_transcendental(value) -> bool:
    return any(isinstance(node, n.Call) and short_name(node.func) in TRANSCENDENTAL
               or isinstance(node, n.BinOp) and node.op == "**" for node in n.walk(value))


def real_arrays_as_their_real_part(function: n.Function) -> None:
    """``a.real`` of an array of real numbers is ``a`` itself in Numba (a writable view of all
    of it): every such attribute is replaced by its array, in place."""
    def unwrap(value):
        while isinstance(value, n.Attribute) and value.attr == "real" and isinstance(value.type, ArrayType) \
                and not value.value.type.dtype.is_complex:
            value = value.value
        return value

    for node in n.walk(function):
        for field in getattr(node, "__dataclass_fields__", ()):
            value = getattr(node, field)
            if isinstance(value, list):
                setattr(node, field, [unwrap(v) for v in value])
            elif isinstance(value, dict):
                setattr(node, field, {k: unwrap(v) for k, v in value.items()})
            elif isinstance(value, n.Attribute):
                setattr(node, field, unwrap(value))


def refuse_writes_through_parts(function: n.Function) -> None:
    """``a.real[i] = v``, ``a.imag[:] = w`` and ``f(a.real)`` of a complex ``a``: kpc reads the
    parts of complex arrays element by element and has no view of them to write through."""
    for node in n.walk(function):
        if isinstance(node, (n.Assign, n.AugAssign)):
            targets = node.target.elements if isinstance(node.target, n.TupleExpr) else [node.target]
        elif isinstance(node, n.Call) and node.kind == "kernel":
            targets = [a for a in node.args if is_view_expr(a)]
        else:
            continue
        for target in targets:
            expr = target
            while isinstance(expr, (n.Index, n.Attribute)):
                if isinstance(expr, n.Attribute) and expr.attr in ("real", "imag") \
                        and isinstance(expr.type, ArrayType):
                    where = "passed to a kernel" if isinstance(node, n.Call) else "written through"
                    raise NumpyLoweringError(f"`{target}`, the .{expr.attr} part of a complex array {where}",
                                             target.loc, "write the complex elements instead: "
                                                         "a[i] = complex(v, a[i].imag)")
                expr = expr.value if isinstance(expr, n.Attribute) else expr.base


def store_through_destination(function: n.Function) -> None:
    """Inside loops, compute a costly temporary into the array slot it is stored to, then read it there.

    ``e = np.exp(x[i] - m); out[i] = e / e.sum()`` inside a ``prange``: ``e`` is used
    twice, and inlining it (no allocation per iteration) would evaluate every ``exp``
    twice, as the sum and as the store. When the next statement stores into an array
    slot of the same dtype and rank, and neither statement reads that array otherwise,
    the pair becomes ``out[i] = np.exp(x[i] - m); out[i] = out[i] / out[i].sum()``:
    one ``exp`` per element, no temporary, the values NumPy computes. The shapes of ``e`` and
    ``out[i]`` are assumed equal (not checked at run time: an ``e`` of extent 1 would be
    stretched by the first store before ``e.sum()`` reads it).
    """
    counts = assignment_counts(function)
    references: dict = {}
    for node in n.walk(function):
        if isinstance(node, n.Name):
            references[node.id] = references.get(node.id, 0) + 1

    def visit(block: list, in_loop: bool) -> None:
        for s in block:
            for child_block, loop in nested_blocks(s):
                visit(child_block, in_loop or loop)
        if not in_loop:
            return
        for k in range(len(block) - 1):
            s, t = block[k], block[k + 1]
            if not (isinstance(s, n.Assign) and isinstance(s.target, n.Name) and counts.get(s.target.id) == 1
                    and isinstance(s.value.type, ArrayType) and not is_view_expr(s.value)
                    and is_recomputable(s.value) and is_transcendental(s.value)):
                continue
            name = s.target.id
            if not (isinstance(t, n.Assign) and isinstance(t.target, n.Index) and is_array_target(t.target)
                    and isinstance(t.target.type, ArrayType)):
                continue
            kind, dest = s.value.type, t.target.type
            if (kind.ndim, kind.dtype) != (dest.ndim, dest.dtype) or count_reads(t, name) < 2 \
                    or count_reads(t, name) != references.get(name, 0) - 1:
                continue
            base = view_base_name(t.target)
            index_names = expr_names(t.target.indices)
            if base is None or name in index_names or any(
                    isinstance(x, n.Name) and x.id == base for x in n.walk([s.value, t.value])):
                continue
            if any(isinstance(x, n.Call) and x.kind == "kernel" for x in n.walk([t.target, t.value])):
                continue
            block[k] = n.Assign(clone(t.target), s.value, s.loc)
            t.value = replace_names(t.value, lambda x, name=name, slot=t.target: clone(slot) if x.id == name else None)
            function.locals.pop(name, None)
            references[name] = 0

    visit(function.body, False)


def nested_blocks(s):
    if isinstance(s, (n.For, n.While)):
        yield s.body, True
    elif isinstance(s, n.If):
        yield s.body, False
        yield s.orelse, False


def is_recomputable(value) -> bool:
    """An expression whose elements can be recomputed at each use: no kernel call, no random
    draw, no uninitialised allocation."""
    for node in n.walk(value):
        if isinstance(node, n.Call) and (node.kind in ("kernel", "random")
                                         or short_name(node.func) in ("empty", "empty_like")):
            return False
    return True


def is_costly(value) -> bool:
    for node in n.walk(value):
        if isinstance(node, n.BinOp) and node.op == "@":
            return True
        if isinstance(node, n.Call) and short_name(node.func) in ("dot", "matmul"):
            return True
        if isinstance(node, n.Call) and isinstance(node.type, ArrayType) and "axis" in node.kwargs:
            return True
    return False


def count_reads(s, name: str) -> int:
    """References to ``name`` in ``s`` that only read its elements (not stores, kernel arguments
    or aliases)."""
    escaping = []
    for node in n.walk(s):
        if isinstance(node, (n.Assign, n.AugAssign)):
            if view_base_name(node.target) == name and not isinstance(node.target, n.Name) \
                    or isinstance(node.target, n.Name) and node.target.id == name:
                return -1
            if isinstance(node.value, n.Name) and node.value.id == name:
                return -1
            if isinstance(node.value, n.TupleExpr):
                escaping += node.value.elements
        elif isinstance(node, n.Call) and node.kind == "kernel":
            escaping += node.args
        elif isinstance(node, n.Return) and node.value is not None:
            # A returned array is materialised anyway: keep the user's name for it.
            escaping += node.value.elements if isinstance(node.value, n.TupleExpr) else [node.value]
    if any(is_view_expr(e) and view_base_name(e) == name for e in escaping):
        return -1
    return sum(1 for x in n.walk(s) if isinstance(x, n.Name) and x.id == name)


def writes_inputs(s, value, roots: dict) -> bool:
    """True when statement ``s`` may change what ``value`` evaluates to."""
    names = expr_names(value)
    arrays = set()
    for x in n.walk(value):
        if isinstance(x, n.Name) and isinstance(x.type, ArrayType):
            arrays |= roots.get(x.id, {x.id})
    for node in n.walk(s):
        if isinstance(node, n.Call) and node.kind == "kernel":
            return True
        if isinstance(node, n.For) and node.var.id in names:
            return True
        if isinstance(node, (n.Assign, n.AugAssign)):
            targets = node.target.elements if isinstance(node.target, n.TupleExpr) else [node.target]
            for t in targets:
                if isinstance(t, n.Name) and t.id in names:
                    return True
                base = view_base_name(t)
                if base is not None and roots.get(base, {base}) & arrays:
                    return True
    return False


def hoist_temporaries(function: n.Function, generated: set, shape_locals: set = frozenset()) -> None:
    """Allocate temporaries once, before the serial ``range`` loops they do not depend on,
    rather than in every iteration. Only temporaries read and written element by element
    move (not those rebound to a user's name, returned or passed to a kernel), and never out
    of a ``prange`` loop, whose iterations each need their own. The broadcast extents and
    strides ``shape_locals`` that such an allocation reads move with it (the shape checks
    stay in the loop: NumPy raises only when the statement runs)."""
    movable = set(generated)
    for node in n.walk(function):
        if isinstance(node, n.Assign) and isinstance(node.value, n.Name):
            movable.discard(node.value.id)
        elif isinstance(node, n.Return) and node.value is not None:
            values = node.value.elements if isinstance(node.value, n.TupleExpr) else [node.value]
            movable -= {v.id for v in values if isinstance(v, n.Name)}
        elif isinstance(node, n.Call) and node.kind == "kernel":
            movable -= {a.id for a in node.args if isinstance(a, n.Name)}

    def visit(block: list) -> list:
        out = []
        for s in block:
            for child, _ in nested_blocks(s):
                child[:] = visit(child)
            if isinstance(s, n.For) and s.kind == "range" and s.parallel is None:
                varying = set(assignment_counts(n.Function("", [], s.body))) | {s.var.id}
                keep = []
                for inner in s.body:
                    shape_local = isinstance(inner, n.Assign) and isinstance(inner.target, n.Name) \
                        and inner.target.id in shape_locals
                    if (is_allocation_of(inner, movable) or shape_local) and not any(
                            isinstance(x, n.Name) and x.id in varying for x in n.walk(inner.value)):
                        out.append(inner)
                        varying.discard(inner.target.id)
                    else:
                        keep.append(inner)
                s.body = keep
            out.append(s)
        return out

    function.body = visit(function.body)


def hoist_broadcast_checks(function: n.Function, shape_locals: set) -> None:
    """Check broadcast shapes (and compute broadcast extents and strides) once before a loop
    whose iterations would all check the same shapes, under ``if start < stop:`` (a loop
    that does not run raises nothing, as in NumPy). Out of a ``prange`` body the check runs
    on the host before the parallel loop writes anything, where it can raise at once; in a
    kernel body it could only flag, and the PyKokkos target could not run it at all."""

    def hoistable(s, varying: set) -> bool:
        if isinstance(s, n.ExprStmt):
            ok = isinstance(s.value, n.Call) and s.value.func in ("broadcast_operands", "broadcast_into")
        elif isinstance(s, n.Assign):
            ok = isinstance(s.target, n.Name) and s.target.id in shape_locals
        elif isinstance(s, n.If):
            ok = not s.orelse and all(hoistable(t, varying) for t in s.body)
        else:
            ok = False
        return ok and not any(isinstance(x, n.Name) and x.id in varying
                              for x in n.walk(s.value if isinstance(s, n.Assign) else s))

    def visit(block: list) -> list:
        out = []
        for s in block:
            for child, _ in nested_blocks(s):
                child[:] = visit(child)
            step = const_int(s.step) if isinstance(s, n.For) else None
            if step:
                varying = set(assignment_counts(n.Function("", [], s.body))) | {s.var.id}
                checks, keep = [], []
                for inner in s.body:
                    if not hoistable(inner, varying):
                        keep.append(inner)
                    elif isinstance(inner, n.Assign):
                        out.append(inner)
                        varying.discard(inner.target.id)
                    else:
                        checks.append(inner)
                if checks:
                    runs = n.Compare("<" if step > 0 else ">", clone(s.start), clone(s.stop), BOOL, s.loc)
                    out.append(n.If(runs, checks, [], s.loc))
                s.body = keep
            out.append(s)
        return out

    function.body = visit(function.body)


def unswitch_broadcast_strides(function: n.Function, namer: Namer) -> None:
    """A loop nest of the lowering that reads operands at ``i * bs<k>`` runs in two versions:
    ``if bs0 == 1 and ...:`` the nest with every stride 1 (no operand stretched at run time,
    the usual case: contiguous reads that vectorize), ``else:`` the nest as it is. The copy's
    loops get fresh variables: later analyses (index ranges) key loop variables by name."""
    strides, generated = namer.strides, namer.generated

    def version(s):
        used = sorted({x.id for x in n.walk(s) if isinstance(x, n.Name) and x.id in strides})
        if not used or set(used) & set(assignment_counts(n.Function("", [], [s]))):
            return None
        fresh = {x.var.id: namer.fresh("i", x.var.type) for x in n.walk(s) if isinstance(x, n.For)}

        def substitute(name):
            if name.id in used:
                return n.Const(1, name.type, name.loc)
            if name.id in fresh:
                return n.Name(fresh[name.id], name.type, name.loc)
            return None

        plain = drop_unit_factors(replace_names(clone(s), substitute))
        for loop in n.walk(plain):
            if isinstance(loop, n.For) and loop.var.id in fresh:
                loop.var = n.Name(fresh[loop.var.id], loop.var.type, loop.var.loc)
        test = [n.Compare("==", n.Name(name, INT64, s.loc), n.Const(1, INT64, s.loc), BOOL, s.loc) for name in used]
        test = test[0] if len(test) == 1 else n.BoolOp("and", test, BOOL, s.loc)
        return n.If(test, [plain], [s], s.loc)

    def visit(block: list) -> list:
        out = []
        for s in block:
            versioned = version(s) if isinstance(s, n.For) and s.var.id in generated else None
            if versioned is not None:
                out.append(versioned)
                continue
            for child, _ in nested_blocks(s):
                child[:] = visit(child)
            out.append(s)
        return out

    function.body = visit(function.body)


def drop_unit_factors(node):
    """``node`` with every ``e * 1`` rewritten to ``e``, in place."""
    def fold(value):
        while isinstance(value, n.BinOp) and value.op == "*" and const_int(value.right) == 1:
            value = value.left
        return value

    for field in getattr(node, "__dataclass_fields__", ()):
        value = getattr(node, field)
        if isinstance(value, list):
            setattr(node, field, [drop_unit_factors(fold(v)) for v in value])
        elif isinstance(value, (n.Expr, n.Stmt)):
            setattr(node, field, drop_unit_factors(fold(value)))
    return node


def is_allocation_of(s, names: set) -> bool:
    return isinstance(s, n.Assign) and isinstance(s.target, n.Name) and s.target.id in names \
        and isinstance(s.value, n.Call) and s.value.func == "np.empty"


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
