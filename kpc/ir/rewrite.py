"""Small queries and rewrites of IR trees shared by passes."""

from __future__ import annotations

from . import nodes as n

_LEAVES = ("type", "loc", "to", "parallel")


def has_call(node) -> bool:
    """Does ``node`` (an expression, statement or list of them) contain a call?"""
    return any(isinstance(x, n.Call) for x in n.walk(node))


def replace_names(node, replacement):
    """``node`` with each read of a name replaced by ``replacement(name)`` where that is not None.

    ``node`` is an expression, a statement or a list or dict of them; it is rewritten in
    place and returned. Stores are left alone: loop variables and ``Name`` targets of
    assignments (an ``Index`` target's subscripts are reads, and are replaced).
    """
    if isinstance(node, list):
        return [replace_names(item, replacement) for item in node]
    if isinstance(node, dict):
        return {key: replace_names(item, replacement) for key, item in node.items()}
    if isinstance(node, n.Name):
        new = replacement(node)
        return node if new is None else new
    if not isinstance(node, (n.Expr, n.Stmt)):
        return node
    for field in node.__dataclass_fields__:
        if field in _LEAVES or field == "var" and isinstance(node, n.For):
            continue
        value = getattr(node, field)
        if field == "target" and isinstance(value, n.Name):
            continue
        if isinstance(value, (n.Expr, n.Stmt, list, dict)):
            setattr(node, field, replace_names(value, replacement))
    return node


def replace_statements(body: list, rewrite) -> list:
    """``body`` with every statement, at any depth, for which ``rewrite(stmt)`` returns a list
    replaced by that list (not visited again); ``rewrite`` returns None to keep a statement and
    look inside its blocks."""
    out = []
    for stmt in body:
        replaced = rewrite(stmt)
        if replaced is not None:
            out += replaced
            continue
        if isinstance(stmt, (n.For, n.While)):
            stmt.body = replace_statements(stmt.body, rewrite)
        elif isinstance(stmt, n.If):
            stmt.body = replace_statements(stmt.body, rewrite)
            stmt.orelse = replace_statements(stmt.orelse, rewrite)
        out.append(stmt)
    return out
