"""Rewrite a loop index's periodic neighbour ``(i + 1) % n`` or ``(i - 1) % n``, ``i`` in ``range(0.., n)``, into a select."""

from __future__ import annotations

import copy

from kpc.ir import nodes as n
from kpc.ir.nodes import format_expr
from kpc.ir.queries import assigned_names, expr_names
from kpc.ir.rewrite import is_size, step_value
from kpc.ir.types import BOOL, ScalarType

from .manager import Pass, register


def _signed_int(ty) -> bool:
    return isinstance(ty, ScalarType) and ty.is_int and ty.is_signed


def _invariant(stop) -> bool:
    """A loop bound that reads no array element and calls nothing (names, constants, sizes,
    arithmetic): its value stays what the ``range`` saw while the names in it are not assigned."""
    for node in n.walk(stop):
        if isinstance(node, n.Index) and not is_size(node):
            return False
        if isinstance(node, n.Call) and not is_size(node):
            return False
    return True


def _bounded_loop(loop: n.For) -> bool:
    """``for i in range(start, stop, step)`` with a constant ``start >= 0`` and ``step > 0``, a
    bound ``stop`` and a variable that the body leaves alone: every ``i`` seen in the body
    satisfies ``0 <= i < stop``."""
    step = step_value(loop)
    if step is None or step <= 0:
        return False
    if not (isinstance(loop.start, n.Const) and type(loop.start.value) is int and loop.start.value >= 0):
        return False
    if not _invariant(loop.stop) or not _signed_int(loop.var.type):
        return False
    written = assigned_names(loop.body)
    return loop.var.id not in written and not (expr_names(loop.stop) & written)


class _Rewriter:
    """Rewrites the neighbours of one function; ``loops`` maps a loop variable to its bound's text."""

    def __init__(self):
        self.loops: dict = {}

    def neighbour(self, expr):
        """The select that replaces ``expr``, or None when it is not a periodic neighbour."""
        left = expr.left
        if not (expr.op == "%" and isinstance(left, n.BinOp) and left.op in ("+", "-")
                and isinstance(left.left, n.Name) and isinstance(left.right, n.Const)
                and type(left.right.value) is int and left.right.value == 1):
            return None
        stop = self.loops.get(left.left.id)
        if stop is None or format_expr(expr.right) != stop:
            return None
        ty = expr.type
        if not (_signed_int(ty) and left.type == ty and expr.right.type == ty and left.left.type == ty):
            return None
        i, size = left.left, expr.right
        # 0 <= i < n, so n >= 1 and i + 1 <= n, i - 1 >= -1: one comparison picks Python's modulo
        if left.op == "+":
            test = n.Compare("==", copy.deepcopy(left), copy.deepcopy(size), BOOL, expr.loc)
            return n.IfExp(test, n.Const(0, ty, expr.loc), left, ty, expr.loc, branchless=True)
        test = n.Compare("==", copy.deepcopy(i), n.Const(0, ty, expr.loc), BOOL, expr.loc)
        wrapped = n.BinOp("-", copy.deepcopy(size), n.Const(1, ty, expr.loc), ty, expr.loc)
        return n.IfExp(test, wrapped, left, ty, expr.loc, branchless=True)

    def expr(self, expr):
        if isinstance(expr, list):
            return [self.expr(e) for e in expr]
        if isinstance(expr, dict):
            return {k: self.expr(v) for k, v in expr.items()}
        if not isinstance(expr, n.Expr):
            return expr
        for name in expr.__dataclass_fields__:
            if name in ("type", "loc", "to"):
                continue
            value = getattr(expr, name)
            if isinstance(value, (n.Expr, list, dict)):
                setattr(expr, name, self.expr(value))
        if isinstance(expr, n.BinOp):
            select = self.neighbour(expr)
            if select is not None:
                return select
        return expr

    def block(self, body: list) -> None:
        for stmt in body:
            for name in stmt.__dataclass_fields__:
                value = getattr(stmt, name)
                if name in ("loc", "parallel", "team", "var", "body", "orelse"):
                    continue
                if isinstance(value, (n.Expr, list)):
                    setattr(stmt, name, self.expr(value))
            if isinstance(stmt, n.For):
                # the loop's own body cannot change i or its bound (``_bounded_loop``), nor can the
                # loops inside it: they are part of that body
                saved = dict(self.loops)
                if _bounded_loop(stmt):
                    self.loops[stmt.var.id] = format_expr(stmt.stop)
                else:
                    self.loops.pop(stmt.var.id, None)
                self.block(stmt.body)
                self.loops = saved
            elif isinstance(stmt, (n.While, n.If)):
                self.block(stmt.body)
                self.block(getattr(stmt, "orelse", []))


@register
class PeriodicNeighbors(Pass):
    """``(i + 1) % n`` and ``(i - 1) % n``, where ``i`` is the variable of an enclosing
    ``for i in range(start, n, step)`` (constant ``start >= 0``, ``step > 0``, neither ``i`` nor
    the names of ``n`` assigned in the body), become branch-free selects:
    ``select(i + 1 == n, 0, i + 1)`` and ``select(i == 0, n - 1, i - 1)``.

    Periodic boundaries (a ring of points, a torus of spins, a closed polygon) index the next
    and previous element this way. LLVM turns the modulo into a compare because it knows
    ``i < n``; GCC divides: on the 2-core reference machine a 64-bit ``idiv`` per element made a
    closed polygon's area 3x slower than Numba. Inside the loop ``n >= 1``, so the select is
    Python's modulo exactly and no division by zero is possible.

    Before::

        func @area(poly: f64[:, :]) -> f64   role=entry
          n: i64 = poly.shape[0]
          a: f64 = 0.0
          for i: i64 in range(0, n):
            a += poly[i, 0] * poly[(i + 1) % n, 1] - poly[(i + 1) % n, 0] * poly[i, 1]
          for i: i64 in range(0, n):
            a += poly[(i - 1) % n, 0]
          return 0.5 * a

    After::

        func @area(poly: f64[:, :]) -> f64   role=entry
          n: i64 = poly.shape[0]
          a: f64 = 0.0
          for i: i64 in range(0, n):
            a += poly[i, 0] * poly[select(i + 1 == n, 0, i + 1), 1] - poly[select(i + 1 == n, 0, i + 1), 0] * poly[i, 1]
          for i: i64 in range(0, n):
            a += poly[select(i == 0, n - 1, i - 1), 0]
          return 0.5 * a
    """

    name = "periodic-neighbors"

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            _Rewriter().block(function.body)
