"""Turn an array allocated anew in each iteration of a serial loop and then bound to an older name into two swapped buffers."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.nodes import format_expr
from kpc.ir.queries import expr_names, nested_bodies, statements, stmt_defs
from kpc.ir.types import SLICE, ArrayType, TupleType

from .manager import Pass, register

# Allocations a loop may repeat: the fill (if any) stays in the loop, the memory moves out.
_FILLS = {"np.zeros": 0, "np.zeros_like": 0, "np.ones": 1, "np.ones_like": 1}
_ALLOCATORS = {"np.empty", "np.empty_like", "np.full", "np.full_like", *_FILLS}


@register
class DoubleBuffer(Pass):
    """Hoist ``v = np.empty(...)`` out of a serial loop whose iteration ends in ``u = v`` and swap instead.

    Time-stepping code allocates the next state in every step and rebinds the
    current one to it. In Numba each step gets fresh memory and the old array is
    dropped; kpc's arrays are views that must be allocated once, so the array is
    allocated before the loop and the rebinding becomes a swap (``u, v = v, u``):
    the same values, two buffers, no allocation per step. A ``np.zeros``/``np.ones``/
    ``np.full`` keeps its fill in the loop. Only when it is safe: the loop is serial
    (not ``prange``); ``u`` starts as an array this kernel allocates (so no caller's
    array is ever written) in the block around the loop, with the same shape
    expression as ``v`` (or ``v`` is ``np.*_like(u)``); the shape does not change in
    the loop; ``v`` is assigned nowhere else, not read before its allocation in the
    iteration nor after the loop; and neither array is bound to any other name.

    Before::

        func @relax(n: i64, steps: i64) -> f64[:] C   role=entry
          u: f64[:] C = np.zeros(n)
          for s: i64 in range(0, steps):
            v: f64[:] C = np.zeros(n)
            for i: i64 in range(1, n - 1):
              v[i] = 0.5 * (u[i - 1] + u[i + 1]) + 1.0
            u = v
          return u

    After::

        func @relax(n: i64, steps: i64) -> f64[:] C   role=entry
          u: f64[:] C = np.zeros(n)
          v: f64[:] C = np.empty(n)
          for s: i64 in range(0, steps):
            v[:] = 0.0
            for i: i64 in range(1, n - 1):
              v[i] = 0.5 * (u[i - 1] + u[i + 1]) + 1.0
            u, v = (v, u)
          return u
    """

    name = "double-buffer"

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            _rewrite_block(function, function.body)


def _rewrite_block(function, block: list) -> None:
    index = 0
    while index < len(block):
        stmt = block[index]
        if isinstance(stmt, (n.For, n.While)):
            hoisted = _double_buffer(function, block, index)
            if hoisted is not None:
                block.insert(index, hoisted)
                index += 1
        for body in nested_bodies(stmt):
            _rewrite_block(function, body)
        index += 1


def _double_buffer(function, block: list, index: int):
    """Rewrite the loop ``block[index]`` in place when one of its arrays qualifies; the
    allocation to put before the loop, or None."""
    loop = block[index]
    if isinstance(loop, n.For) and (loop.kind != "range" or loop.parallel is not None):
        return None
    for position, stmt in enumerate(loop.body):
        rebind = _rebinding(stmt)
        if rebind is None:
            continue
        u, v = rebind
        found = _allocation(loop.body[:position], v)
        if found is None:
            continue
        at, allocation = found
        if not _safe(function, block, index, loop, position, at, allocation, u, v):
            continue
        call = allocation.value
        fill = _FILLS.get(call.func)
        if call.func in ("np.full", "np.full_like"):
            fill = call.args[1] if len(call.args) > 1 else call.kwargs.get("fill_value")
        hoisted = n.Assign(allocation.target, _unfilled(call), allocation.loc)
        if fill is None:
            del loop.body[at]
            position -= 1
        else:
            loop.body[at] = _fill(allocation.target, fill, allocation.loc)
        pair = TupleType((stmt.target.type, stmt.target.type))
        loop.body[position] = n.Assign(
            n.TupleExpr([_name(u, stmt), _name(v, stmt)], pair, stmt.loc),
            n.TupleExpr([_name(v, stmt), _name(u, stmt)], pair, stmt.loc), stmt.loc)
        return hoisted
    return None


def _rebinding(stmt):
    """``(u, v)`` of an ``u = v`` between two array names, else None."""
    if (isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name) and isinstance(stmt.value, n.Name)
            and isinstance(stmt.target.type, ArrayType) and stmt.target.id != stmt.value.id
            and stmt.target.type == stmt.value.type):
        return stmt.target.id, stmt.value.id
    return None


def _allocation(statements_before: list, name: str):
    """``(position, statement)`` of ``name = np.<allocator>(...)`` among the loop body's statements."""
    for position, stmt in enumerate(statements_before):
        if (isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name) and stmt.target.id == name
                and _is_allocation(stmt.value)):
            return position, stmt
    return None


def _is_allocation(expr) -> bool:
    return isinstance(expr, n.Call) and expr.kind == "numpy" and expr.func in _ALLOCATORS


def _safe(function, block, index, loop, position, at, allocation, u: str, v: str) -> bool:
    params = {p.name for p in function.params}
    if u in params or v in params:
        return False
    everything = list(statements(function.body))
    # Every binding of u and v: u once before the loop (an allocation or a copy) and by the
    # rebinding; v only by its allocation in the loop.
    writes = {u: [], v: []}
    for stmt in everything:
        for name in stmt_defs(stmt):
            if name in writes:
                writes[name].append(stmt)
    start = next((s for s in block[:index] if isinstance(s, n.Assign) and isinstance(s.target, n.Name)
                  and s.target.id == u), None)
    if start is None or not _is_fresh(start.value) or writes[u] != [start, loop.body[position]]:
        return False
    if writes[v] != [allocation]:
        return False
    # The same shape in every iteration, and the same as u's first array.
    call = allocation.value
    shape_names = expr_names(n.TupleExpr(list(call.args[:1]) + list(call.kwargs.values())))
    # (u itself may appear: its shape is v's in every iteration, as same_shape below requires)
    if (shape_names - {u}) & ({name for s in statements(loop.body) for name in stmt_defs(s)} | {v}):
        return False
    same_shape = (call.func.endswith("_like") and isinstance(call.args[0], n.Name) and call.args[0].id == u) or (
        _is_allocation(start.value) and call.args and start.value.args
        and format_expr(call.args[0]) == format_expr(start.value.args[0])
        and not shape_names & {name for s in block[block.index(start):index] for name in stmt_defs(s)})
    if not same_shape:
        return False
    # v: not read before its allocation in the iteration, nor anywhere after the loop.
    before = loop.body[:at]
    if any(v in _reads(s) for s in statements(before)) or (isinstance(loop, n.While) and v in expr_names(loop.test)):
        return False
    if any(v in _reads(s) for s in statements(block[index + 1:])):
        return False
    # Neither array is bound to another name (as itself or a view of it), nor returned from
    # inside the loop.
    inside = {id(s) for s in statements(loop.body)}
    for stmt in everything:
        if stmt is loop.body[position] or stmt is allocation or stmt is start:
            continue
        if (isinstance(stmt, n.Assign) and isinstance(stmt.target, (n.Name, n.TupleExpr))
                and {u, v} & _aliased(stmt.value)):
            return False
        if isinstance(stmt, n.Return) and id(stmt) in inside:
            return False
    return True


# NumPy calls whose result may share the memory of an argument.
_VIEWS = {".reshape", "np.reshape", ".ravel", "np.ravel", ".transpose", "np.transpose", ".view", "np.asarray",
          "np.flip", "np.fliplr", "np.flipud", ".flatten", "np.atleast_1d", "np.atleast_2d", "np.squeeze"}


def _aliased(expr) -> set:
    """Array names whose memory ``expr``'s value may share (itself, a slice, a view, a tuple of them)."""
    if isinstance(expr, n.Name):
        return {expr.id} if isinstance(expr.type, ArrayType) else set()
    if isinstance(expr, n.Index) and isinstance(expr.type, ArrayType):
        return _aliased(expr.base)
    if isinstance(expr, n.Attribute):
        return _aliased(expr.value) if isinstance(expr.type, ArrayType) else set()
    if isinstance(expr, n.TupleExpr):
        return set().union(*(_aliased(e) for e in expr.elements)) if expr.elements else set()
    if isinstance(expr, n.Call) and expr.kind == "numpy" and expr.func in _VIEWS:
        return set().union(*(_aliased(a) for a in expr.args)) if expr.args else set()
    if isinstance(expr, n.Call) and expr.kind == "kernel":
        return {a.id for a in expr.args if isinstance(a, n.Name)}
    return set()


def _is_fresh(expr) -> bool:
    """An array this kernel allocates: a NumPy allocator or a ``.copy()``."""
    return _is_allocation(expr) or (isinstance(expr, n.Call) and expr.kind == "numpy"
                                    and expr.func in (".copy", "np.copy"))


def _reads(stmt) -> set:
    names = set()
    for attr in ("value", "test", "start", "stop", "step"):
        if hasattr(stmt, attr):
            names |= expr_names(getattr(stmt, attr))
    if isinstance(stmt, (n.Assign, n.AugAssign)) and not isinstance(stmt.target, n.Name):
        names |= expr_names(stmt.target)
    return names


def _unfilled(call: n.Call) -> n.Call:
    """The allocation without its fill: ``np.zeros(n)`` -> ``np.empty(n)``."""
    if call.func in ("np.zeros", "np.ones"):
        return n.Call("np.empty", list(call.args), call.kind, dict(call.kwargs), type=call.type, loc=call.loc)
    if call.func in ("np.zeros_like", "np.ones_like"):
        return n.Call("np.empty_like", list(call.args), call.kind, dict(call.kwargs), type=call.type, loc=call.loc)
    if call.func == "np.full":
        kwargs = {k: w for k, w in call.kwargs.items() if k != "fill_value"}
        return n.Call("np.empty", [call.args[0]], call.kind, kwargs, type=call.type, loc=call.loc)
    if call.func == "np.full_like":
        kwargs = {k: w for k, w in call.kwargs.items() if k != "fill_value"}
        return n.Call("np.empty_like", [call.args[0]], call.kind, kwargs, type=call.type, loc=call.loc)
    return call


def _fill(target: n.Name, value, loc) -> n.Assign:
    """``v[:, :] = value`` in the element type of ``v``."""
    t = target.type
    if not isinstance(value, n.Expr):
        value = n.Const(float(value) if t.dtype.is_float else int(value), t.dtype, loc)
    view = n.Index(n.Name(target.id, t, loc), [n.Slice(type=SLICE, loc=loc) for _ in range(t.ndim)], type=t, loc=loc)
    return n.Assign(view, value, loc)


def _name(name: str, stmt) -> n.Name:
    return n.Name(name, stmt.target.type, stmt.loc)
