"""Let small parallel regions run serially: below an estimated amount of work, dispatch overhead dominates."""

from __future__ import annotations

import copy

from kpc.ir import nodes as n
from kpc.ir.nodes import format_expr
from kpc.ir.queries import assigned_names, expr_names
from kpc.ir.rewrite import replace_names

from .manager import Pass, register

# Iterations below which a constant-trip plain ``range`` is not parallelized at all (parallelize).
SERIAL_THRESHOLD = 512

# The cost guard's unit of work: a region whose iterations cost this much in total
# (estimated below, in "operations") runs serially. Measured on the 2-core reference
# machine (benchmarks/results, quiet): a Kokkos OpenMP dispatch costs ~2 us, where
# a serial loop does ~0.3-0.5 ns per simple operation, and 2 threads halve only the
# loop part; 2-D sums (5 units per element) broke even near 10^4 elements, the
# 5-point Laplacian (12 units) near 3*10^3. Emitted code reads the environment
# variable KPC_SERIAL_THRESHOLD at run time: when set, its integer value replaces
# ``ParallelInfo.serial_below`` (0 disables the guard). Otherwise the threshold is scaled at
# run time by the dispatch cost measured on the machine's own threads (kpc::serial_scale in
# kpc_semantics.hpp): a 16-thread dispatch that costs 10 us keeps more work serial. Within a
# factor of 8 of that scaled threshold the region learns at run time (kpc::guard_site: three
# timed calls of each path per size class, then the faster).
SERIAL_WORK = 32768

# Regions whose iteration cost cannot be estimated learn serial against parallel at run time below
# this many iterations (kpc::learn_serially); from there on the iterations fill the threads.
LEARN_BELOW = 4096

# A region of a kernel without ``parallel=True`` (Numba runs all of it serially) learns serial
# against parallel at every amount of work (ParallelInfo.learn_every_size), not only near the
# threshold: it runs in parallel only where that measures faster on the machine at hand.
EVERY_SIZE_NOTE = "serial or parallel learned at every size (Numba runs this kernel serially)"

# Estimated operations: loads, stores, +-*, comparisons count 1; divisions 4 (latency);
# a transcendental call 20; a reduction update adds 4 (a chain the CPU cannot overlap);
# an atomic update adds 20.
_CALL_COST = {"sqrt": 4, "abs": 1, "fabs": 1, "min": 1, "max": 1, "floor": 2, "ceil": 2, "trunc": 2}
_SLOW_OPS = {"/": 4, "//": 4, "%": 4, "**": 20}


class _Unknown(Exception):
    """An iteration's cost depends on run-time trip counts."""


def _expr_cost(expr, module, seen) -> int:
    total = 0
    for node in n.walk(expr):
        if isinstance(node, n.Index):
            total += 1
        elif isinstance(node, n.BinOp):
            total += _SLOW_OPS.get(node.op, 1)
        elif isinstance(node, (n.Compare, n.UnaryOp, n.BoolOp, n.Cast)):
            total += 1
        elif isinstance(node, n.Call):
            if node.kind == "kernel" and node.func in module.functions:
                if node.func in seen:
                    raise _Unknown  # recursion
                total += 2 + _block_cost(module.functions[node.func].body, module, seen | {node.func}, ())
                # (no ``runtime`` list: a callee's run-time loops make the cost unknown)
            else:
                total += _CALL_COST.get(node.func.rsplit(".", 1)[-1], 20)
    return total


_FOLD = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}


def _constant_int(expr):
    """The value of an integer expression of literals (``2 + 1``), else None."""
    if isinstance(expr, n.Const):
        return expr.value if type(expr.value) is int else None
    if isinstance(expr, n.UnaryOp) and expr.op == "-":
        value = _constant_int(expr.operand)
        return None if value is None else -value
    if isinstance(expr, n.BinOp) and expr.op in _FOLD:
        left, right = _constant_int(expr.left), _constant_int(expr.right)
        return None if left is None or right is None else _FOLD[expr.op](left, right)
    return None


def _constant_trip(loop: n.For):
    values = [_constant_int(e) for e in (loop.start, loop.stop, loop.step)]
    if None in values or values[2] == 0:
        return None
    return len(range(*values))


def _block_cost(body, module, seen, reductions, runtime=None, parent=None) -> int:
    """Operations of ``body``. A loop of run-time trip count is counted once and appended to
    ``runtime`` with the run-time loop it is nested in (``parent``; when ``runtime`` is given,
    else its trip count makes the cost unknown)."""
    total = 0
    for stmt in body:
        if isinstance(stmt, n.For):
            trip = _constant_trip(stmt)
            inside = parent
            if trip is None:
                if runtime is None:
                    raise _Unknown
                runtime.append((stmt, parent))
                trip, inside = 1, stmt
            total += trip * (1 + _block_cost(stmt.body, module, seen, reductions, runtime, inside))
        elif isinstance(stmt, n.While):
            raise _Unknown
        elif isinstance(stmt, n.If):
            total += _expr_cost(stmt.test, module, seen) + max(
                _block_cost(stmt.body, module, seen, reductions, runtime, parent),
                _block_cost(stmt.orelse, module, seen, reductions, runtime, parent))
        elif isinstance(stmt, n.AugAssign):
            total += 1 + _expr_cost(stmt.value, module, seen) + _expr_cost(stmt.target, module, seen)
            if stmt.atomic:
                total += 20
            elif isinstance(stmt.target, n.Name) and stmt.target.id in reductions:
                total += 4
        elif isinstance(stmt, n.Assign):
            total += _expr_cost(stmt.value, module, seen) + (
                0 if isinstance(stmt.target, n.Name) else _expr_cost(stmt.target, module, seen))
            if isinstance(stmt.target, n.Name) and stmt.target.id in reductions:
                total += 4  # lo = min(lo, x[i]): a chain, as an augmented update is
        elif isinstance(stmt, (n.Return, n.ExprStmt)) and stmt.value is not None:
            total += _expr_cost(stmt.value, module, seen)
    return total


def iteration_cost(loop: n.For, module):
    """``(operations, paths, triangle)``: estimated operations of one iteration of a region (of its
    collapsed nest), with the loops inside it whose trip counts are only known at run time
    counted once each; ``paths`` lists, per innermost such loop, the bounds of it and of the
    run-time loops around it, outermost first (bounds that do not change during the region);
    ``triangle``: some of those bounds are the widest of a loop that moves with the region's
    variables (its iterations then average about half those trips);
    None when the work cannot be estimated that way (a ``while`` loop, a run-time loop whose
    bounds vary between iterations or inside a called function)."""
    body = loop.body
    nest = [loop]
    for _ in range(max(1, loop.parallel.depth if loop.parallel else 1) - 1):
        if body and isinstance(body[0], n.For):
            nest.append(body[0])
            body = body[0].body
    reductions = {spec.var for spec in loop.parallel.reductions} if loop.parallel else set()
    if loop.parallel and loop.parallel.scan is not None:
        reductions.add(loop.parallel.scan.var)
    runtime: list = []
    try:
        cost = max(1, _block_cost(body, module, frozenset(), reductions, runtime))
    except _Unknown:
        return None
    if not reductions and _straight_line(body):
        cost = max(1, -(-cost // VECTOR_WIDTH))
    varying = assigned_names(body)
    bounds, moving = {}, False
    for inner, _ in runtime:
        widest = _widest_bounds(inner, nest, varying)
        if widest is None:
            return None
        moving = moving or widest[0] is not inner.start or widest[1] is not inner.stop
        bounds[id(inner)] = widest
    # One path per innermost run-time loop, outermost first: nested loops multiply their trip
    # counts, loops side by side do not (the longest path stands for them).
    parents = {id(inner): parent for inner, parent in runtime}
    enclosing = {id(parent) for _, parent in runtime if parent is not None}
    paths = []
    for inner, _ in runtime:
        if id(inner) in enclosing:
            continue
        path, loop = [], inner
        while loop is not None:
            path.insert(0, bounds[id(loop)])
            loop = parents[id(loop)]
        paths.append(path)
    return cost, paths, moving


# Iterations of a straight-line body of array arithmetic run this many at a time once the
# compiler vectorizes them (AVX2: 4 doubles). Measured (16 threads and 2 threads): a 5-point
# Laplacian serially cost 0.4-1 ns an iteration where its 18 operations predict 2.2 ns.
VECTOR_WIDTH = 3

_NOT_VECTORIZED = {"//", "%", "**"}  # Python's floor semantics, or a call: scalar code
_VECTOR_CALLS = frozenset(_CALL_COST)  # the cheap math calls: compare, select, sqrt


def _straight_line(body) -> bool:
    """A body of assignments only, whose expressions the compiler vectorizes: no loops,
    branches, calls other than cheap math, atomics, or floor division and modulo."""
    for stmt in body:
        if not isinstance(stmt, (n.Assign, n.AugAssign)) or getattr(stmt, "atomic", False):
            return False
        for node in n.walk(stmt):
            if isinstance(node, n.BinOp) and node.op in _NOT_VECTORIZED:
                return False
            if isinstance(node, n.Call) and node.func.rsplit(".", 1)[-1] not in _VECTOR_CALLS:
                return False
            if isinstance(node, (n.IfExp, n.BoolOp)):
                return False
    return True


# Calls a run-time trip count may read: pure, of region-invariant operands (``len(a)``).
_PURE_CALLS = {"len", "min", "max", "abs"}


def _slope(expr, var: str):
    """The sign of ``expr``'s change as ``var`` grows, for an integer expression affine in it:
    1, -1, 0 (``var`` not read), or None (not affine in ``var``, or not known)."""
    if var not in expr_names(expr):
        return 0
    if isinstance(expr, n.Name):
        return 1
    if isinstance(expr, n.UnaryOp) and expr.op in ("+", "-"):
        sign = _slope(expr.operand, var)
        return None if sign is None else (-sign if expr.op == "-" else sign)
    if isinstance(expr, n.BinOp) and expr.op in ("+", "-"):
        left, right = _slope(expr.left, var), _slope(expr.right, var)
        if left is None or right is None:
            return None
        right = -right if expr.op == "-" else right
        return left if right in (0, left) else right if left == 0 else None
    if isinstance(expr, n.BinOp) and expr.op == "*":
        for factor, other in ((expr.left, expr.right), (expr.right, expr.left)):
            constant = _constant_int(factor)
            if constant is not None and var not in expr_names(factor):
                sign = _slope(other, var)
                return None if sign is None else sign * ((constant > 0) - (constant < 0))
    return None


def _widest_bounds(inner: n.For, nest: list, varying: set):
    """``[start, stop, step]`` of a loop inside a region whose trip count is at least the
    inner loop's in every iteration of the region: its own bounds when they are region
    invariant; when they move with the region's loop variables (the triangular
    ``range(i + 1, n)``), its bounds where each is widest: an affine bound evaluated at the
    first or the last value of each variable. None when neither holds."""
    parts = [inner.start, inner.stop, inner.step]
    for e in parts:
        if expr_names(e) & varying or any(isinstance(x, n.Call) and not (
                x.kind == "builtin" and x.func in _PURE_CALLS) for x in n.walk(e)):
            return None
    if not any(expr_names(e) & {outer.var.id for outer in nest} for e in parts):
        return parts
    if _constant_int(inner.step) is None or _constant_int(inner.step) <= 0:
        return None
    widest = [copy.deepcopy(inner.start), copy.deepcopy(inner.stop), inner.step]
    for outer in nest:
        var = outer.var.id
        if not any(var in expr_names(e) for e in parts[:2]):
            continue
        step = _constant_int(outer.step)
        if step is None or step <= 0:
            return None
        first = outer.start
        last = n.BinOp("-", outer.stop, n.Const(1, type=outer.var.type), type=outer.var.type)
        for k, lowest in ((0, True), (1, False)):  # the lowest start, the highest stop
            sign = _slope(widest[k], var)
            if sign is None:
                return None
            if sign:
                value = first if (sign > 0) == lowest else last
                widest[k] = replace_names(widest[k], lambda name, var=var, value=value: copy.deepcopy(value)
                                          if name.id == var else None)
                constant = _constant_int(widest[k])
                if constant is not None:  # range(0 + 1, n) -> range(1, n)
                    widest[k] = n.Const(constant, type=widest[k].type, loc=widest[k].loc)
    return widest


def _bounds_text(bounds) -> str:
    start, stop, step = (format_expr(e) for e in bounds)
    return f"range({start}, {stop})" if step == "1" else f"range({start}, {stop}, {step})"


@register
class CostGuard(Pass):
    """Set ``serial_below`` from an estimate of the work of one iteration.

    The guard compares the region's iteration count (the product of the
    collapsed extents for an MDRange) with ``serial_below`` at run time and runs
    the region serially below it: ``SERIAL_WORK`` divided by the estimated
    operations of one iteration (loops with constant trip counts, such as the
    star stencil's ``k`` loop once ``propagate-constants`` ran, are multiplied
    out; helper calls are costed through). A straight-line body of array
    arithmetic without reductions counts ``1 / VECTOR_WIDTH`` of its operations
    (the compiler vectorizes it); a reduction's update counts 4 more (a chain).
    Loops inside an iteration whose trip counts are only known at run time are
    listed in ``serial_work``, and the generated code multiplies their trip counts
    in; a loop whose bounds move affinely with the region's variable (the
    Lennard-Jones ``range(i + 1, n)``) is listed at its widest bounds, and the
    threshold doubles (a triangle averages half its widest row). Regions whose work cannot
    be estimated that way (``while`` loops, trip counts read from arrays, calls of functions
    with such loops) keep ``serial_below=None`` and get ``learn_below``: below ``LEARN_BELOW``
    iterations the region times both paths per size class of its trip count and keeps the faster.
    In a kernel without ``parallel=True``, which Numba runs serially, every region learns so at
    every size (``learn_every_size``): kpc's parallel launch must measure faster to be kept.

    Before::

        func @scale(x: f64[:], a: f64) -> none   role=entry
          parallel_for Range i: i64 in range(0, len(x)):
            x[i] = a * x[i]

    After (report)::

        @scale (role entry)
          line 4, i in range: parallel_for [Range]: independent writes to x[i]; serial or parallel learned at every size (Numba runs this kernel serially); serial below 32768 iterations (~1 operations each)
    """

    name = "cost-guard"
    transforms = False

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            serial_in_numba = function.options.get("parallel") is not True
            for node in n.walk(function):
                if isinstance(node, n.For) and node.parallel is not None:
                    info = node.parallel
                    estimate = iteration_cost(node, module)
                    info.serial_work = []
                    info.learn_below = None
                    info.learn_every_size = serial_in_numba
                    if serial_in_numba and EVERY_SIZE_NOTE not in info.reason:
                        info.reason = f"{info.reason}; {EVERY_SIZE_NOTE}" if info.reason else EVERY_SIZE_NOTE
                    if estimate is None:
                        info.serial_below = None
                        info.learn_below = LEARN_BELOW
                        note = f"work per iteration unknown: serial or parallel learned below {LEARN_BELOW} iterations"
                        if note not in info.reason:
                            info.reason = f"{info.reason}; {note}" if info.reason else note
                        continue
                    cost, loops, triangle = estimate
                    info.serial_below = -(-SERIAL_WORK * (2 if triangle else 1) // cost)
                    info.serial_work = loops
                    unit = "iterations" if not loops else "iterations x inner trips (" + " or ".join(dict.fromkeys(
                        " x ".join(_bounds_text(bounds) for bounds in path) for path in loops)) + ")"
                    shape = "; a triangle: half its widest trips on average" if triangle else ""
                    note = f"serial below {info.serial_below} {unit} (~{cost} operations each{shape})"
                    if note not in info.reason:
                        info.reason = f"{info.reason}; {note}" if info.reason else note
