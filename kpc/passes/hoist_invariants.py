"""Compute a math call that does not change inside a serial loop once, before the loop."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.queries import assigned_names, nested_bodies
from kpc.ir.rewrite import FreshNames
from kpc.ir.types import ScalarType

from .manager import Pass, register

SKIPPED_FIELDS = ("type", "loc", "to")


def _children(expr) -> list:
    out = []
    for name in expr.__dataclass_fields__:
        if name in SKIPPED_FIELDS:
            continue
        value = getattr(expr, name)
        if isinstance(value, n.Expr):
            out.append(value)
        elif isinstance(value, list):
            out += [v for v in value if isinstance(v, n.Expr)]
        elif isinstance(value, dict):
            out += [v for v in value.values() if isinstance(v, n.Expr)]
    return out


def _pure_node(expr) -> bool:
    """A node that reads no array element, writes nothing and cannot raise (Numba's math functions
    return nan or inf, never raise; a checked division may)."""
    if isinstance(expr, (n.Const, n.GlobalConst, n.Name, n.Compare, n.BoolOp, n.IfExp, n.Cast, n.UnaryOp)):
        return True
    if isinstance(expr, n.BinOp):
        return not expr.checked and expr.op not in ("@", "**")
    if isinstance(expr, n.Call):
        return expr.kind == "math"
    if isinstance(expr, n.Attribute):
        return expr.attr == "shape"
    if isinstance(expr, n.Index):  # a.shape[k]
        return isinstance(expr.base, n.Attribute) and expr.base.attr == "shape"
    return False


def invariant(expr, varying: set) -> bool:
    """True when ``expr`` is pure and reads no name in ``varying``."""
    if not _pure_node(expr):
        return False
    if isinstance(expr, n.Name) and expr.id in varying:
        return False
    return all(invariant(child, varying) for child in _children(expr))


def serial_statements(body):
    """The statements of ``body``, nested ones included, except the bodies of parallel regions
    (what they read is captured when the region starts)."""
    for stmt in body:
        yield stmt
        if not (isinstance(stmt, n.For) and stmt.parallel is not None):
            for inner in nested_bodies(stmt):
                yield from serial_statements(inner)


def _has_math_call(expr) -> bool:
    if isinstance(expr, n.Call) and expr.kind == "math":
        return True
    return any(_has_math_call(child) for child in _children(expr))


class Hoister:
    """Hoists the invariant math of the serial loops of one function."""

    def __init__(self, function):
        self.function = function
        self.names = FreshNames(function)
        self.created: set = set()  # the locals this pass made, each assigned once

    def replace(self, expr, varying: set, hoisted: list, guard=None):
        """``expr`` with each largest invariant subexpression that calls a math function replaced by
        a fresh local, whose assignment is appended to ``hoisted``. ``guard``: ``(test, taken)`` when
        ``expr`` is an arm of a conditional whose test is invariant too: the local computes the
        value only where that arm is taken (a zero elsewhere), so the arms' calls are not all made."""
        if isinstance(expr, n.Name) or not isinstance(expr, n.Expr):
            return expr
        if isinstance(expr.type, ScalarType) and _has_math_call(expr) and invariant(expr, varying):
            name = self.names.fresh("inv")
            self.function.locals[name] = expr.type
            self.created.add(name)
            value = expr
            if guard is not None:
                test, taken = guard
                zero = n.Const(0j if expr.type.is_complex else 0.0 if expr.type.is_float else 0, expr.type, expr.loc)
                value = n.IfExp(test, expr, zero, expr.type, expr.loc) if taken else \
                    n.IfExp(test, zero, expr, expr.type, expr.loc)
            hoisted.append(n.Assign(n.Name(name, expr.type, expr.loc), value, expr.loc))
            return n.Name(name, expr.type, expr.loc)
        if isinstance(expr, n.IfExp) and guard is None and invariant(expr.test, varying):
            expr.body = self.replace(expr.body, varying, hoisted, (expr.test, True))
            expr.orelse = self.replace(expr.orelse, varying, hoisted, (expr.test, False))
            return expr
        for field_name in expr.__dataclass_fields__:
            if field_name in SKIPPED_FIELDS:
                continue
            value = getattr(expr, field_name)
            if isinstance(value, n.Expr):
                setattr(expr, field_name, self.replace(value, varying, hoisted, guard))
            elif isinstance(value, list):
                setattr(expr, field_name, [self.replace(v, varying, hoisted, guard) for v in value])
            elif isinstance(value, dict):
                setattr(expr, field_name, {k: self.replace(v, varying, hoisted, guard) for k, v in value.items()})
        return expr

    def hoist_from(self, loop) -> list:
        """The assignments to put before ``loop``, its body rewritten to read them."""
        varying = assigned_names(loop.body) | {loop.var.id}
        hoisted: list = []
        # What an inner loop's hoisting put at the top of this body moves on when it is invariant here too.
        lead = 0
        while lead < len(loop.body) and self.made_here(loop.body[lead]):
            lead += 1
        stays = varying - self.created
        for stmt in loop.body[:lead]:
            if invariant(stmt.value, stays):
                hoisted.append(stmt)
            else:
                stays.add(stmt.target.id)
        loop.body = [s for s in loop.body[:lead] if s not in hoisted] + loop.body[lead:]
        for stmt in serial_statements(loop.body):
            for field_name in ("value", "test", "start", "stop", "step"):
                value = getattr(stmt, field_name, None)
                if isinstance(value, n.Expr):
                    setattr(stmt, field_name, self.replace(value, varying, hoisted))
            if isinstance(stmt, (n.Assign, n.AugAssign)) and isinstance(stmt.target, n.Index):
                stmt.target.indices = [self.replace(i, varying, hoisted) for i in stmt.target.indices]
        return hoisted

    def made_here(self, stmt) -> bool:
        return isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name) and stmt.target.id in self.created

    def block(self, body: list, region, collapsed: int) -> list:
        """``collapsed``: how many loops at the top of ``body`` belong to an enclosing MDRange."""
        out = []
        for stmt in body:
            if isinstance(stmt, n.For):
                inner_region = stmt if stmt.parallel is not None else region
                inner_collapsed = stmt.parallel.depth - 1 if stmt.parallel is not None else max(collapsed - 1, 0)
                stmt.body = self.block(stmt.body, inner_region, inner_collapsed)
                if stmt.parallel is None and stmt.team is None and collapsed == 0:
                    hoisted = self.hoist_from(stmt)
                    if hoisted and region is not None:
                        new = [a.target.id for a in hoisted]
                        region.parallel.privates = sorted(set(region.parallel.privates) | set(new))
                    out += hoisted
            elif isinstance(stmt, n.While):
                stmt.body = self.block(stmt.body, region, 0)
            elif isinstance(stmt, n.If):
                stmt.body = self.block(stmt.body, region, 0)
                stmt.orelse = self.block(stmt.orelse, region, 0)
            out.append(stmt)
        return out


@register
class HoistInvariants(Pass):
    """A scalar expression inside a serial loop that calls a math function and reads nothing the
    loop changes is computed once before the loop, into a new local.

    GCC does not move ``exp`` or ``sin`` out of a loop (they may set errno); Numba's LLVM does. A
    NumPy expression whose broadcast factor is a math function of the row (an FFT's twiddle
    ``np.exp(-1j * np.pi * np.arange(m) / m).reshape(-1, 1) * X_odd``) is lowered into a loop
    nest that would compute it once per element. Only pure parts move: math calls (which return
    nan or inf rather than raise), arithmetic without a checked division, sizes; no array
    element. Loops collapsed into an MDRange region keep their body.

    Before::

        func @twiddle(x: c128[:, :]) -> none   role=entry
          parallel_for Range i: i64 in range(0, x.shape[0]):
            for j: i64 in range(1, x.shape[1]):
              x[i, j] = x[i, j - 1] * np.exp((-0-1j) * np.pi * i / x.shape[0])

    After::

        func @twiddle(x: c128[:, :]) -> none   role=entry
          parallel_for Range i: i64 in range(0, x.shape[0]):
            inv: c128 = np.exp((-0-1j) * np.pi * i / x.shape[0])
            for j: i64 in range(1, x.shape[1]):
              x[i, j] = x[i, j - 1] * inv
    """

    name = "hoist-invariants"

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            function.body = Hoister(function).block(function.body, None, 0)
