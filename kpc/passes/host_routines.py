"""NumPy functions computed by a serial host routine: arrays allocated, then one call that fills them.

``np.linalg.solve/inv/cholesky``, ``np.histogram`` and ``np.cov`` are not element-wise:
``lower-numpy`` allocates their results (the one allocation form) and calls a routine
of ``ir.intrinsics.HOST_ROUTINES`` (``Call(kind="builtin")``, a statement) that writes
them, the arrays and scalars it reads as its first arguments, the results last. The
Kokkos backend calls ``kpc_linalg.hpp``; inside a parallel loop or a device function
it refuses (the kernel falls back to Numba).

>>> from kpc.ir.nodes import NOLOC, Call, Function, Name, Param
>>> from kpc.ir.printer import format_function
>>> from kpc.ir.types import ArrayType, FLOAT64
>>> from kpc.passes.numpy_lowering.elements import ElementLowering
>>> from kpc.passes.numpy_lowering.values import Namer
>>> mat = ArrayType(FLOAT64, 2, "C")
>>> f = Function("f", [Param("a", mat)], [])
>>> results = host_routine(ElementLowering(f, Namer(f), NOLOC), Call("np.linalg.inv", [Name("a", mat)], "numpy",
...                        type=mat), f.body)
>>> print(format_function(f))
func @f(a: f64[:, :] C) -> ?   role=entry
  tmp0: f64[:, :] C = np.empty((a.shape[0], a.shape[1]), dtype=np.float64)
  linalg_inv(a, tmp0)
>>> [(str(name), [str(e) for e in shape]) for name, shape in results]
[('tmp0', ['a.shape[0]', 'a.shape[1]'])]
"""

from __future__ import annotations

import copy

from ..ir import nodes as n
from ..ir.intrinsics import HOST_ROUTINES
from ..ir.queries import expr_names
from ..ir.types import BOOL, INT64, NONE, ArrayType, TupleType, promote

# Routines chosen elsewhere: for another form of a NumPy function (np.histogram with array
# bins, np.cov(m, y)), the matrix product (``numpy_lowering.products``, where the context allows)
# and np.bincount's pair (``numpy_lowering.array_functions``).
VARIANTS = {"histogram_edges", "cov_xy", "matmul", "bincount_length", "bincount"}
# The NumPy function -> its routine (the variants are chosen by ``host_routine``).
ROUTINES = {function: routine for routine, (function, _) in HOST_ROUTINES.items() if routine not in VARIANTS}


def host_routine(low, call: n.Call, pre: list, into: list | None = None) -> list:
    """Lower ``call`` (a function of ``ROUTINES``): its result arrays are allocated (under the
    names ``into``, else fresh temporaries) and the routine called, in ``pre``. Returns
    ``(name, shape)`` of each result, in NumPy's order."""
    b = low.b
    args = call.args
    routine = ROUTINES[call.func]
    returned_inputs = []  # results that are inputs returned as they are: (expression, shape)
    if call.func == "np.histogram" and isinstance(args[1].type, ArrayType):
        # Array bins: the edges, returned as given; ``range`` is ignored, as in Numba.
        routine = "histogram_edges"
        x, edges = low.array_operand(args[0], pre), low.array_operand(args[1], pre)
        # Returned as a name, as its own local if a subview (only a whole array is returned to Python).
        edges = once(low, edges, pre, "edges")
        inputs = [x, edges]
        # Clamped: empty edges are the routine's ValueError, not np.empty's.
        extent = b.builtin("max", [b.sub(b.shape_of(edges, 0), b.int(1)), b.int(0)], INT64)
        results = [(ArrayType(INT64, 1, "C"), [extent])]
        returned_inputs = [(edges, [b.shape_of(edges, 0)])]
    elif call.func == "np.histogram":
        x, bins, bounds = args
        x = low.array_operand(x, pre)
        bins = once(low, low.scalar(bins, pre), pre, "bins")
        inputs = [x, bins]
        if not (isinstance(bounds, n.Const) and bounds.value is None):
            if not isinstance(bounds, n.TupleExpr):
                low.fail("np.histogram(range=...) given as a name", bounds, "write the pair (lo, hi) in the call")
            lo, hi = (low.scalar(e, pre) for e in bounds.elements)
            common = promote(lo.type, hi.type)
            inputs += [b.cast(once(low, lo, pre, "lo"), common), b.cast(once(low, hi, pre, "hi"), common)]
        # Clamped: a bins <= 0 is the routine's ValueError, not np.empty's.
        extent = b.builtin("max", [copy.deepcopy(bins), b.int(0)], INT64)
        results = [(ArrayType(INT64, 1, "C"), [extent]),
                   (call.type.elements[1], [b.add(copy.deepcopy(extent), b.int(1))])]
    elif call.func == "np.cov":
        m, y, rowvar, bias, ddof = args
        m = low.array_operand(m, pre)
        rowvar = once(low, b.cast(low.scalar(rowvar, pre), BOOL), pre, "rowvar")
        paired = not (isinstance(y, n.Const) and y.value is None)
        bias = b.cast(low.scalar(bias, pre), BOOL)
        given = not (isinstance(ddof, n.Const) and ddof.value is None)
        ddof = b.cast(low.scalar(ddof, pre), INT64) if given else b.int(0)
        if m.type.ndim == 1:
            variables = b.int(1)  # np.cov(x, y)
        elif isinstance(rowvar, n.Const):
            variables = b.shape_of(m, 0 if rowvar.value else 1)
        else:
            variables = n.IfExp(copy.deepcopy(rowvar), b.shape_of(m, 0), b.shape_of(m, 1), INT64, low.loc)
        if paired:
            # np.cov(m, y): y's rows stacked below m's, a 1-D array being one row; with
            # rowvar=False a 2-D y is transposed unless it has one row (NumPy's rule).
            routine = "cov_xy"
            y = low.array_operand(y, pre)
            if y.type.ndim == 1:
                y_rows = b.int(1)
            elif isinstance(rowvar, n.Const) and rowvar.value:
                y_rows = b.shape_of(y, 0)
            else:
                one_row = n.Compare("==", b.shape_of(y, 0), b.int(1), BOOL, low.loc)
                y_rows = n.IfExp(n.BoolOp("or", [copy.deepcopy(rowvar), one_row], BOOL, low.loc),
                                 b.shape_of(y, 0), b.shape_of(y, 1), INT64, low.loc)
            variables = b.add(variables, y_rows)
        inputs = [m] + ([y] if paired else []) + [rowvar, bias, n.Const(given, BOOL, low.loc), ddof]
        results = [(call.type, [variables, copy.deepcopy(variables)])]
    else:
        inputs = [low.array_operand(a, pre) for a in args]
        a = inputs[0]
        if call.func == "np.linalg.solve":
            shape = [b.shape_of(a, 1)] + ([b.shape_of(inputs[1], 1)] if inputs[1].type.ndim == 2 else [])
        else:
            shape = [b.shape_of(a, 0), b.shape_of(a, 1)]
        results = [(call.type, shape)]
    names = []
    for k, (type, shape) in enumerate(results):
        name = b.name(into[k].id, type) if into else b.name(low.namer.fresh("tmp", type), type)
        pre.append(n.Assign(name, low.allocation(shape, type.dtype), low.loc))
        names.append((copy.deepcopy(name), shape))
    written = [copy.deepcopy(name) for name, _ in names]
    pre.append(n.ExprStmt(n.Call(routine, inputs + written, "builtin", {}, NONE, low.loc), low.loc))
    for k, (value, shape) in enumerate(returned_inputs, start=len(results)):
        if into:
            pre.append(n.Assign(b.name(into[k].id, value.type), copy.deepcopy(value), low.loc))
            value = b.name(into[k].id, value.type)
        names.append((copy.deepcopy(value), shape))
    return names


def once(low, value, pre: list, prefix: str):
    """``value`` as a name or a constant: an expression is computed once, into a fresh local."""
    if isinstance(value, (n.Name, n.Const)):
        return value
    local = low.b.name(low.namer.fresh(prefix, value.type), value.type)
    pre.append(n.Assign(local, value, low.loc))
    return copy.deepcopy(local)


def result_names(target, call) -> list | None:
    """The names a routine's results can be allocated under directly: those ``target``
    binds (``x = ...``, ``h, e = ...``), unless ``call`` reads one of them."""
    names = target.elements if isinstance(target, n.TupleExpr) else [target]
    if not all(isinstance(t, n.Name) for t in names) or len({t.id for t in names}) != len(names):
        return None
    read = expr_names(call)
    return None if read & {t.id for t in names} else names


def is_tuple_routine(call) -> bool:
    """``np.histogram(...)``: a routine with several results (a tuple of arrays)."""
    return isinstance(call, n.Call) and call.func in ROUTINES and isinstance(call.type, TupleType)
