"""A name rebound to a value of another type (``x = x.reshape(n, -1)``) gets a new name from that assignment on.

Numba types each definition of a variable on its own (its IR is in SSA form) and unifies
only where definitions meet (after an ``if``, around a loop); a name whose new binding no
later read shares with the old one may change type. ``infer-types`` calls ``split_rebinding``
when an assignment conflicts with a name's earlier type: the assignment and every statement
after it in the same block use a fresh name, provided no other read can see both bindings
(none after that block, none elsewhere in a loop around the assignment). Otherwise the
conflict stays an error, as in Numba.

Before (``x: f64[:, :, :, :]``)::

    x = x.reshape(n, -1)
    return x.sum(axis=1)

After::

    x_1 = x.reshape(n, -1)
    return x_1.sum(axis=1)

>>> from kpc.frontend import parse_module
>>> from kpc.ir.printer import format_function
>>> m = parse_module('''
... from numba import njit
... @njit
... def f(x, n):
...     x = x.reshape(n, -1)
...     return x.sum(axis=1)
... ''', "m.py")
>>> f = m.functions["f"]
>>> split_rebinding(f, f.body[0], "x")
'x_1'
>>> print(format_function(f))
func @f(x: ?, n: ?) -> ?   role=entry
  x_1 = x.reshape(n, -1)
  return x_1.sum(axis=1)
>>> m = parse_module('''
... from numba import njit
... @njit
... def g(x, n):
...     for i in range(n):
...         x = x.reshape(n, -1)
...     return x
... ''', "m.py")
>>> g = m.functions["g"]
>>> split_rebinding(g, g.body[0].body[0], "x") is None
True
"""

from __future__ import annotations

from kpc.ir import nodes as n


def split_rebinding(function: n.Function, stmt: n.Assign, name: str) -> str | None:
    """Rename ``name`` from ``stmt`` (an assignment to it) to the end of its block; the new
    name, or None where another read could see both bindings."""
    if not (isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name) and stmt.target.id == name):
        return None
    if name in (function.options.get("locals") or {}):
        return None
    found = _find(function.body, stmt, [])
    if found is None:
        return None
    block, index, loops = found
    rest = block[index + 1:]
    renamed = {id(node) for node in n.walk(rest)} | {id(stmt.target)}
    reads_old = set()
    for loop in loops:
        reads_old |= {id(node) for node in n.walk(loop.body)}
        if isinstance(loop, n.While):
            reads_old |= {id(node) for node in n.walk(loop.test)}
    after = {id(node) for node in n.walk(_following(function.body, stmt))}
    for node in n.walk(function.body):
        if isinstance(node, n.Name) and node.id == name and id(node) not in renamed:
            if id(node) in after or id(node) in reads_old:
                return None
    new = _fresh(function, name)
    stmt.target.id = new
    for node in n.walk(rest):
        if isinstance(node, n.Name) and node.id == name:
            node.id = new
    return new


def split_rebinding_at(function: n.Function, name: str, loc) -> str | None:
    """``split_rebinding`` of the assignment to ``name`` whose value is at ``loc`` (the rank
    analysis of kernels without signatures reports a conflict by location)."""
    for stmt in n.walk(function.body):
        if isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name) and stmt.target.id == name \
                and (stmt.value.loc == loc or stmt.loc == loc):
            return split_rebinding(function, stmt, name)
    return None


def _find(body: list, stmt, loops: list):
    """``(block, index, enclosing loops)`` of ``stmt`` under ``body``."""
    for index, current in enumerate(body):
        if current is stmt:
            return body, index, loops
        inner = loops + [current] if isinstance(current, (n.For, n.While)) else loops
        for block in _blocks(current):
            found = _find(block, stmt, inner)
            if found is not None:
                return found
    return None


def _blocks(stmt) -> list:
    if isinstance(stmt, n.If):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, (n.For, n.While)):
        return [stmt.body] + ([stmt.orelse] if getattr(stmt, "orelse", None) else [])
    return []


def _following(body: list, stmt) -> list:
    """The statements that run after the block holding ``stmt`` ends, at every level out."""
    for index, current in enumerate(body):
        if current is stmt:
            return []
        for block in _blocks(current):
            if _find(block, stmt, []) is not None:
                return _following(block, stmt) + body[index + 1:]
    return []


def _fresh(function: n.Function, name: str) -> str:
    used = {p.name for p in function.params} | set(function.locals)
    used |= {node.id for node in n.walk(function.body) if isinstance(node, n.Name)}
    stem = name.rstrip("0123456789")
    name = stem[:-1] if stem.endswith("_") and stem != name and len(stem) > 1 else name
    k = 1
    while f"{name}_{k}" in used:
        k += 1
    return f"{name}_{k}"
