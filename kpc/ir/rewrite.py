"""Small queries and rewrites of IR trees shared by passes."""

from __future__ import annotations

from . import nodes as n
from .types import INT64

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


class FreshNames:
    """Names for the new locals of a rewritten function: none taken by its locals, parameters
    or any name it reads."""

    def __init__(self, function: n.Function):
        self.taken = set(function.locals) | {p.name for p in function.params}
        self.taken |= {node.id for node in n.walk(function) if isinstance(node, n.Name)}

    def fresh(self, hint: str) -> str:
        """``hint``, else ``hint2``, ``hint3``, ...: the first not taken, taken from now on."""
        name, k = hint, 1
        while name in self.taken:
            k += 1
            name = f"{hint}{k}"
        self.taken.add(name)
        return name


def is_zero(expr) -> bool:
    return isinstance(expr, n.Const) and expr.value == 0


def is_size(expr) -> bool:
    """``len(a)`` or ``a.shape[k]``: an array's size, non-negative and cheap to read again."""
    if isinstance(expr, n.Index) and isinstance(expr.base, n.Attribute) and expr.base.attr == "shape":
        return True
    return isinstance(expr, n.Call) and expr.kind == "builtin" and expr.func == "len"


def nonnegative(expr) -> bool:
    """Is ``expr`` provably >= 0 (a constant, an array's size)?"""
    if isinstance(expr, n.Const):
        return expr.value >= 0
    return is_size(expr)


def difference(a, b):
    """``a - b`` without ``- -1`` or ``- 0``."""
    if isinstance(b, n.Const) and type(b.value) is int and b.value <= 0:
        return a if b.value == 0 else n.BinOp("+", a, n.Const(-b.value, INT64, b.loc), INT64, b.loc)
    return n.BinOp("-", a, b, INT64, getattr(a, "loc", n.NOLOC))


def step_value(loop: n.For):
    """The loop's constant step as an int (``-2`` for ``UnaryOp('-', 2)``), None when not constant."""
    step, sign = loop.step, 1
    if isinstance(step, n.UnaryOp) and step.op == "-":
        step, sign = step.operand, -1
    return sign * step.value if isinstance(step, n.Const) and type(step.value) is int else None


def trip_count(loop: n.For):
    """The trip count of a unit-step loop: ``max(stop - start, 0)`` (``stop`` when provably enough).

    Clamping matters: two empty dimensions with negative extents would multiply
    into a positive iteration count.

    >>> from kpc.ir.nodes import format_expr
    >>> i, size = n.Name("i"), n.Index(n.Attribute(n.Name("a"), "shape"), [n.Const(0)])
    >>> format_expr(trip_count(n.For(i, n.Const(0), size, n.Const(1), [])))
    'a.shape[0]'
    >>> format_expr(trip_count(n.For(i, n.Const(1), size, n.Const(1), [])))
    'max(a.shape[0] - 1, 0)'
    """
    if is_zero(loop.start) and nonnegative(loop.stop):
        return loop.stop
    extent = difference(loop.stop, loop.start)
    return n.Call("max", [extent, n.Const(0, INT64, loop.loc)], "builtin", type=INT64, loc=loop.loc)
