"""Put the array statements between a GPU-bound function's parallel regions into one-thread regions, so its arrays stay on the device."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.queries import nested_bodies, own_exprs, stmt_uses, used_names
from kpc.ir.types import INT64, ArrayType, ScalarType

from .choose_placement import _launches, _routines, expr_touches_arrays, host_touches_arrays, statements_touch_arrays
from .manager import Pass, register

ONE_THREAD = "one-thread"
REASON = "one device thread: statements between regions that touch arrays (host spaces run them in place)"

# A serial loop moves to one device thread only with constant bounds and this many trips at most:
# a long loop (a recurrence the parallelizer keeps serial) runs far slower on one GPU thread than
# on the host, and it leaves the function as it was (its placement measures host and device).
MAX_SERIAL_TRIPS = 64

# Builtins a one-thread region may call (pure functions of scalars).
PURE_BUILTINS = {"abs", "min", "max", "len", "int", "float", "bool"}


def _device_expr(expr) -> bool:
    """Whether ``expr`` reads only scalars, array elements and array shapes, through operators,
    casts and pure calls: nothing that allocates, draws random numbers, calls a kernel or can
    raise (checked integer division)."""
    for sub in n.walk(expr):
        if isinstance(sub, (n.Const, n.Name, n.GlobalConst, n.UnaryOp, n.Compare, n.BoolOp, n.IfExp, n.Cast)):
            continue
        if isinstance(sub, n.BinOp):
            if sub.checked and not (isinstance(sub.right, n.Const) and sub.right.value != 0):
                return False  # a division the host checks for zero (Numba's ZeroDivisionError)
            continue
        if isinstance(sub, n.Index):
            element = (isinstance(sub.base, n.Name) and isinstance(sub.base.type, ArrayType)
                       and isinstance(sub.type, ScalarType) and not any(isinstance(i, n.Slice) for i in sub.indices))
            extent = isinstance(sub.base, n.Attribute) and sub.base.attr == "shape"  # u.shape[0]
            if not (element or extent):
                return False
            continue
        if isinstance(sub, n.Attribute):
            if sub.attr not in ("shape", "size", "ndim"):
                return False
            continue
        if isinstance(sub, n.Call) and (sub.kind == "math" or sub.kind == "builtin" and sub.func in PURE_BUILTINS):
            continue
        return False
    return True


def movable(stmt, function=None) -> bool:
    """Whether ``stmt`` may run on one device thread: a store of one array element from what
    ``_device_expr`` allows, a branch over such statements only (its test from the same), or a
    short serial loop over them (constant bounds, ``MAX_SERIAL_TRIPS`` at most, a variable the
    rest of ``function`` does not read: the host never sees the values the device gives it)."""
    if isinstance(stmt, n.AugAssign) and stmt.checked:
        return False
    if isinstance(stmt, (n.Assign, n.AugAssign)):
        target = stmt.target
        return (isinstance(target, n.Index) and isinstance(target.type, ScalarType) and _device_expr(target)
                and _device_expr(stmt.value))
    if isinstance(stmt, n.For):
        return (stmt.parallel is None and stmt.team is None and function is not None
                and 0 < _constant_trips(stmt) <= MAX_SERIAL_TRIPS
                and not _read_elsewhere(function.body, stmt) and stmt.body
                and all(movable(inner, function) for inner in stmt.body))
    if isinstance(stmt, n.If):
        return (_device_expr(stmt.test) and stmt.body
                and all(movable(inner, function) for inner in stmt.body + stmt.orelse))
    return False


def _constant_trips(loop) -> int:
    """The trip count of a loop over constant bounds (0 when they are not constants)."""
    bounds = (loop.start, loop.stop, loop.step)
    if not all(isinstance(e, n.Const) and isinstance(e.value, int) and not isinstance(e.value, bool) for e in bounds):
        return 0
    start, stop, step = (e.value for e in bounds)
    return len(range(start, stop, step)) if step else 0


def _read_elsewhere(body, loop) -> bool:
    """Whether a statement of ``body`` outside ``loop`` reads ``loop``'s variable."""
    for stmt in body:
        if stmt is loop:
            continue
        if loop.var.id in stmt_uses(stmt) or any(_read_elsewhere(block, loop) for block in nested_bodies(stmt)):
            return True
    return False


def _has_region(stmt) -> bool:
    return any(isinstance(sub, n.For) and sub.parallel is not None for sub in n.walk(stmt))


def coverable(stmts, function) -> bool:
    """Whether every statement of ``stmts`` outside parallel regions that touches arrays is
    ``movable``, or is a loop or branch around regions (a time loop) whose own expressions touch
    no array and whose body is coverable."""
    for stmt in stmts:
        if isinstance(stmt, n.For) and stmt.parallel is not None:
            if statements_touch_arrays([stmt]):
                return False
            continue
        if movable(stmt, function) or not statements_touch_arrays([stmt]):
            continue
        if not _has_region(stmt) or any(expr_touches_arrays(e) for e in own_exprs(stmt) if e is not None):
            return False
        if not all(coverable(block, function) for block in nested_bodies(stmt)):
            return False
    return True


def wrap(stmts: list, counter: list, function) -> list:
    """``stmts`` with each run of consecutive ``movable`` statements in a one-iteration region
    (inside the loops and branches around regions too)."""
    out, run = [], []

    def flush():
        if run:
            counter[0] += 1
            var = n.Name(f"kpc_one{counter[0]}", type=INT64)
            info = n.ParallelInfo(pattern="for", policy="Range", depth=1, reason=REASON,
                                  captures=sorted(used_names(run)), host_form=ONE_THREAD)
            out.append(n.For(var, n.Const(0, type=INT64), n.Const(1, type=INT64), n.Const(1, type=INT64),
                             list(run), kind="prange", parallel=info, loc=getattr(run[0], "loc", n.NOLOC)))
            run.clear()

    for stmt in stmts:
        if movable(stmt, function):
            run.append(stmt)
            continue
        flush()
        if not (isinstance(stmt, n.For) and stmt.parallel is not None) and _has_region(stmt):
            for block in nested_bodies(stmt):
                block[:] = wrap(block, counter, function)
        out.append(stmt)
    flush()
    return out


@register
class OneThreadRegions(Pass):
    """Move the array statements between the parallel regions of a GPU-bound function into regions of one iteration.

    A function with parallel regions whose host code also stores array elements (a boundary
    ``u[0] = u[1]`` in a time loop around a stencil) would make the device build run those
    statements on the host over managed memory, moving the arrays between host and device
    twice per step. When every statement outside its regions that touches arrays stores one
    element from scalars, elements and shapes (no allocation, no kernel call, no scalar the host
    reads back), each run of such statements becomes a ``prange`` of one iteration marked
    ``host=one-thread``: CUDA launches it on one device thread, in order with the regions, so
    the arrays stay on the device and the regions need no fences; host spaces print the
    statements in place, unchanged. A function with a host routine, without regions, or with
    other host statements touching arrays is left as it is.

    Before::

        func @heat(u: f64[:] C, v: f64[:] C, steps: i64) -> none   role=entry parallel
          for t: i64 in range(0, steps):
            parallel_for Range i: i64 in prange(1, len(u) - 1):
              v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1])
            v[0] = v[1]
            v[len(v) - 1] = v[len(v) - 2]
            parallel_for Range i: i64 in prange(0, len(u)):
              u[i] = 0.5 * (u[i] + v[i])

    After::

        func @heat(u: f64[:] C, v: f64[:] C, steps: i64) -> none   role=entry parallel
          for t: i64 in range(0, steps):
            parallel_for Range i: i64 in prange(1, len(u) - 1):
              v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1])
            parallel_for Range host=one-thread kpc_one1: i64 in prange(0, 1):
              v[0] = v[1]
              v[len(v) - 1] = v[len(v) - 2]
            parallel_for Range i: i64 in prange(0, len(u)):
              u[i] = 0.5 * (u[i] + v[i])
    """

    name = "one-thread-regions"

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            if function.role not in ("entry", "both") or _routines(function) or not _launches(function, module):
                continue
            if not host_touches_arrays(function) or not coverable(function.body, function):
                continue
            counter = [0]
            function.body[:] = wrap(function.body, counter, function)
            for k in range(1, counter[0] + 1):
                function.locals.setdefault(f"kpc_one{k}", INT64)
