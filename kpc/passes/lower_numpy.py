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
  reshapes split a flat position with ``//`` and ``%``, except that on the Kokkos target a
  reshape or ravel of a C-contiguous array of rank 2 or more reads it at the flat position,
  ``flat_element(a, (i0 * n1 + i1) * n2 + i2)`` (a builtin: one load, no division).
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
  product) it is computed into a temporary first. A sum or mean along a leading axis of
  C-contiguous arrays at a kernel's host level is computed into a temporary in memory order
  instead: ``tmp<k>[j] = 0``, then ``for i: for j: tmp<k>[j] += x[i, j]`` (each slot still sums in
  the axis' order), then ``/ n`` for a mean.
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
- **Array functions** (``array_functions``): ``np.roll``, ``np.convolve`` and ``np.diag`` are
  values read element by element (a shifted read; an inner loop per element; a selected
  read); ``np.cumsum(a, axis=k)`` a running sum per line into ``tmp<k>``; ``np.fill_diagonal``
  a loop over the flat diagonal positions; ``np.nonzero``/``np.where(c)``/``np.flatnonzero``
  a count, the index arrays ``nonzero<k>`` allocated, then one serial filling loop;
  ``np.bincount`` the host routines ``bincount_length`` then ``bincount``; ``np.append`` a read
  of the first or the second part. ``np.kron`` (``products``) reads one element of each operand
  per element. ``np.searchsorted``, ``np.digitize``, ``np.interp`` (``searches``) and
  ``np.unique`` (``order_statistics``) call the routines of kpc_order.hpp. A slice step held
  in a variable reads ``first + i * step`` after Python's slice rules computed into locals;
  ``value_check(ok, k)`` builtins raise NumPy's ValueErrors (``ir.intrinsics.VALUE_ERRORS``).
- **Unpacking** (``unpacking``): ``ax, ay = line[i]`` is a length check ``value_check`` and
  one read per name (elements of a 1-D array, rows of a 2-D one).
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

The lowering itself is in ``numpy_lowering``: ``statements`` per statement, ``elements``
for the expressions, read element by element.

Assumed, as in most NumPy kernels (not checked at run time): Distinct parameters do not share memory
(a temporary is made only for overlapping views of one array). Slice bounds lie within
the array; negative constants and ``-k`` count from the end. ``min``/``max`` of an empty
array is undefined (NumPy raises).
"""

from __future__ import annotations

from ..ir import nodes as n
from ..ir.module import Rejected
from ..ir.queries import called_inside
from ..ir.types import ArrayType
from .lowering_errors import NumpyLoweringError
from .manager import Pass, register
from .numpy_lowering.statements import FunctionLowering


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
          value_check(x.shape[0] > 0, 5)
          max0: f64 = -inf
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
                lower_function(function, products=ctx.target == "kokkos" and name not in in_regions,
                               flat_reads=ctx.target == "kokkos")
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


def lower_function(function: n.Function, products: bool = False, flat_reads: bool = False) -> n.Function:
    """Lower every array-level node of ``function`` in place; returns it. ``products``: matrix
    products outside ``prange`` loops call the ``matmul`` routine (the Kokkos target, for a
    function not called from a ``prange``). ``flat_reads``: reshapes of C-contiguous arrays
    read them with ``flat_element`` (the Kokkos target)."""
    FunctionLowering(function, products, flat_reads).run()
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
        elif isinstance(node, n.Assign) and isinstance(node.target, n.TupleExpr) \
                and isinstance(node.value.type, ArrayType):
            left.append(node)  # an array unpacked into names
    return left
