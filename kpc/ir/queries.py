"""Generic structural queries on kernel IR: the names statements read and bind, and their nesting.

Passes and backends ask the same questions of a body of statements (which names
does this statement read, which does it assign, what lies nested inside it);
they are answered here once, from the IR alone, with no knowledge of any pass.
A statement's own reads and definitions never include those of the statements
nested in it; ``statements(body)`` visits those.

>>> from kpc.ir.nodes import Assign, AugAssign, BinOp, Const, For, Index, Name
>>> i, s = Name("i"), Name("s")
>>> loop = For(i, Const(0), Name("n"), Const(1), [AugAssign(s, "+", Index(Name("a"), [i]))])
>>> body = [Assign(s, Const(0)), loop]
>>> sorted(stmt_uses(loop)), sorted(used_names(body)), sorted(assigned_names(body))
(['n'], ['a', 'i', 'n', 's'], ['i', 's'])
"""

from __future__ import annotations

from . import nodes as n


def expr_names(expr) -> set:
    """Names read by an expression, or a list of them (array names used as index bases included)."""
    return {node.id for node in n.walk(expr) if isinstance(node, n.Name)}


def own_exprs(stmt) -> list:
    """The expressions of the statement itself (targets included, loop variables and nested bodies not)."""
    if isinstance(stmt, (n.Assign, n.AugAssign)):
        return [stmt.target, stmt.value]
    if isinstance(stmt, n.For):
        return [stmt.start, stmt.stop, stmt.step]
    if isinstance(stmt, (n.If, n.While)):
        return [stmt.test]
    if isinstance(stmt, (n.Return, n.ExprStmt)):
        return [stmt.value] if stmt.value is not None else []
    return []


def stmt_uses(stmt) -> set:
    """Names read by the statement itself (not by the statements nested in it).

    The target of an assignment is read only when it is an element store (``a[i] = v``
    reads ``a`` and ``i``); ``x = v`` and ``x, y = v`` read only ``v``.
    """
    if isinstance(stmt, n.Assign):
        used = expr_names(stmt.value)
        if not isinstance(stmt.target, (n.Name, n.TupleExpr)):
            used |= expr_names(stmt.target)
        return used
    if isinstance(stmt, n.AugAssign):
        return expr_names(stmt.value) | expr_names(stmt.target)
    if isinstance(stmt, n.For):
        return expr_names(stmt.start) | expr_names(stmt.stop) | expr_names(stmt.step)
    if isinstance(stmt, (n.If, n.While)):
        return expr_names(stmt.test)
    if isinstance(stmt, (n.Return, n.ExprStmt)):
        return expr_names(stmt.value) if stmt.value is not None else set()
    return set()


def target_names(target) -> list:
    """Names bound by an assignment target (``x``, ``x, y``, nested tuples); element stores bind none."""
    if isinstance(target, n.Name):
        return [target.id]
    if isinstance(target, n.TupleExpr):
        return [name for element in target.elements for name in target_names(element)]
    return []


def stmt_defs(stmt) -> list:
    """Names the statement itself assigns (loop variables included)."""
    if isinstance(stmt, (n.Assign, n.AugAssign)):
        return target_names(stmt.target)
    if isinstance(stmt, n.For):
        return [stmt.var.id]
    return []


def nested_bodies(stmt) -> list:
    """The statement lists nested directly in ``stmt`` (a loop's body, an ``if``'s two branches)."""
    if isinstance(stmt, (n.For, n.While)):
        return [stmt.body]
    if isinstance(stmt, n.If):
        return [stmt.body, stmt.orelse]
    return []


def statements(body):
    """Every statement of ``body``, nested ones included, in source order."""
    for stmt in body:
        yield stmt
        for inner in nested_bodies(stmt):
            yield from statements(inner)


def assigned_names(body) -> set:
    """Names assigned anywhere in ``body`` (loop variables included)."""
    return {name for stmt in statements(body) for name in stmt_defs(stmt)}


def used_names(body) -> set:
    """Names read anywhere in ``body``: the union of ``stmt_uses`` over its statements."""
    return {name for stmt in statements(body) for name in stmt_uses(stmt)}


def stmts_exprs(body) -> list:
    """Every expression of the statements in ``body`` (targets and loop variables included)."""
    return [e for stmt in statements(body) for e in n.children(stmt) if isinstance(e, n.Expr)]


def same_expr(a, b) -> bool:
    """Whether two expressions are the same code: the same node type and the same text."""
    return type(a) is type(b) and str(a) == str(b)


def called_inside(module, is_loop) -> set:
    """Names of the functions called inside the loops ``is_loop(for_node)`` accepts, in any
    function of ``module``, and of the functions those call, transitively."""
    found, stack = set(), []
    for function in module.functions.values():
        for loop in n.walk(function):
            if isinstance(loop, n.For) and is_loop(loop):
                stack += [c.func for c in n.walk(loop.body) if isinstance(c, n.Call) and c.kind == "kernel"]
    while stack:
        name = stack.pop()
        if name not in found and name in module.functions:
            found.add(name)
            stack += [c.func for c in n.walk(module.functions[name]) if isinstance(c, n.Call) and c.kind == "kernel"]
    return found


def elementwise_call(callee, call) -> bool:
    """Whether ``call`` of ``callee`` (a ``Function``) calls a ``@vectorize`` kernel with arrays: it
    works on their elements, so its arguments need not match the callee's scalar parameters
    (``lower-numpy`` writes the loop over the broadcast operands)."""
    from .types import ArrayType

    return bool(callee.options.get("vectorize")) and isinstance(call.type, ArrayType)
