"""Integer intervals of IR expressions: where C semantics provably equal Python's.

Upstream PyKokkos emits C ``/``, ``%`` and raw view indexing. The emitter only writes
them as they are when the operands are provably non-negative (C and Python agree);
otherwise it emits an explicit correction. This module answers "is this expression
>= 0?" from loop ranges, array extents and locals assigned exactly once.

>>> from kpc.ir import nodes as n
>>> i = n.Name("i")
>>> loop = n.For(i, n.Const(1), n.Name("m"), n.Const(1), [])
>>> b = Bounds(n.Function("f", [n.Param("m")], [loop]))
>>> b.enter(loop)  # while lowering the loop's body
>>> b.interval(n.BinOp("-", i, n.Const(1)))
Interval(lo=0, hi=None)
>>> b.interval(n.BinOp("-", i, n.Const(2))).nonneg
False
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from kpc.ir import nodes as n


@dataclass(frozen=True)
class Interval:
    """Closed integer interval; ``None`` = unbounded on that side."""

    lo: int | None = None
    hi: int | None = None

    @property
    def nonneg(self) -> bool:
        return self.lo is not None and self.lo >= 0

    @property
    def positive(self) -> bool:
        return self.lo is not None and self.lo > 0

    def fits_int32(self) -> bool:
        return self.lo is not None and self.hi is not None and -(2**31) <= self.lo and self.hi < 2**31


UNBOUNDED = Interval()
SIZE = Interval(0, None)


def _add(a, b):
    return None if a is None or b is None else a + b


def assignment_counts(function: n.Function) -> Counter:
    """How many times each name is bound (assignment, augmented assignment, loop variable)."""
    counts: Counter = Counter()
    for node in n.walk(function):
        if isinstance(node, n.Assign):
            targets = node.target.elements if isinstance(node.target, n.TupleExpr) else [node.target]
            for t in targets:
                if isinstance(t, n.Name):
                    counts[t.id] += 1
        elif isinstance(node, n.AugAssign) and isinstance(node.target, n.Name):
            counts[node.target.id] += 2
        elif isinstance(node, n.For):
            counts[node.var.id] += 2
    return counts


class Bounds:
    """Intervals for one function: loop variables per loop, single-assignment locals."""

    def __init__(self, function: n.Function):
        self.counts = assignment_counts(function)
        self.names: dict[str, Interval] = {}
        self.loops: dict[int, Interval] = {}
        self._active: list[tuple[str, Interval]] = []
        self._scan(function.body)

    # -- pre-pass in textual order: the interval of a single-assigned name is taken at its definition
    def _scan(self, body: list) -> None:
        for stmt in body:
            if isinstance(stmt, n.Assign):
                self._define(stmt.target, stmt.value)
            elif isinstance(stmt, n.For):
                interval = self.loop_interval(stmt)
                self.loops[id(stmt)] = interval
                self._active.append((stmt.var.id, interval))
                self._scan(stmt.body)
                self._active.pop()
            elif isinstance(stmt, n.While):
                self._scan(stmt.body)
            elif isinstance(stmt, n.If):
                self._scan(stmt.body)
                self._scan(stmt.orelse)

    def _define(self, target, value) -> None:
        if isinstance(target, n.Name) and self.counts[target.id] == 1:
            self.names[target.id] = self.interval(value)
        elif isinstance(target, n.TupleExpr):
            shape = isinstance(value, n.Attribute) and value.attr == "shape"
            for element in target.elements:
                if isinstance(element, n.Name) and self.counts[element.id] == 1:
                    self.names[element.id] = SIZE if shape else UNBOUNDED

    def loop_interval(self, loop: n.For) -> Interval:
        step = loop.step.value if isinstance(loop.step, n.Const) else None
        if not isinstance(step, int) or step == 0:
            return UNBOUNDED
        start, stop = self.interval(loop.start), self.interval(loop.stop)
        if step > 0:
            return Interval(start.lo, None if stop.hi is None else stop.hi - 1)
        return Interval(None if stop.lo is None else stop.lo + 1, start.hi)

    def enter(self, loop: n.For) -> None:
        """Make ``loop.var`` carry its loop's interval (while lowering that loop's body)."""
        self._active.append((loop.var.id, self.loops.get(id(loop)) or self.loop_interval(loop)))

    def leave(self) -> None:
        self._active.pop()

    def interval(self, expr) -> Interval:
        if isinstance(expr, n.Const):
            if isinstance(expr.value, bool) or not isinstance(expr.value, int):
                return UNBOUNDED
            return Interval(expr.value, expr.value)
        if isinstance(expr, n.GlobalConst):
            if isinstance(expr.value, int) and not isinstance(expr.value, bool):
                return Interval(expr.value, expr.value)
            return UNBOUNDED
        if isinstance(expr, n.Name):
            for name, interval in reversed(self._active):
                if name == expr.id:
                    return interval
            return self.names.get(expr.id, UNBOUNDED)
        if is_extent(expr):
            return SIZE
        if isinstance(expr, n.UnaryOp) and expr.op == "-":
            inner = self.interval(expr.operand)
            return Interval(None if inner.hi is None else -inner.hi, None if inner.lo is None else -inner.lo)
        if isinstance(expr, n.BinOp):
            return self._binop(expr.op, self.interval(expr.left), self.interval(expr.right))
        if isinstance(expr, n.IfExp):
            a, b = self.interval(expr.body), self.interval(expr.orelse)
            return Interval(None if a.lo is None or b.lo is None else min(a.lo, b.lo),
                            None if a.hi is None or b.hi is None else max(a.hi, b.hi))
        if isinstance(expr, n.Call) and expr.kind == "builtin" and expr.func in ("min", "max") and expr.args:
            parts = [self.interval(a) for a in expr.args]
            if expr.func == "min":
                los = [p.lo for p in parts]
                his = [p.hi for p in parts if p.hi is not None]
                return Interval(None if None in los else min(los), min(his) if his else None)
            his = [p.hi for p in parts]
            los = [p.lo for p in parts if p.lo is not None]
            return Interval(max(los) if los else None, None if None in his else max(his))
        return UNBOUNDED

    @staticmethod
    def _binop(op: str, a: Interval, b: Interval) -> Interval:
        if op == "+":
            return Interval(_add(a.lo, b.lo), _add(a.hi, b.hi))
        if op == "-":
            return Interval(
                None if a.lo is None or b.hi is None else a.lo - b.hi,
                None if a.hi is None or b.lo is None else a.hi - b.lo,
            )
        if op == "*" and a.nonneg and b.nonneg:
            return Interval(a.lo * b.lo, None if a.hi is None or b.hi is None else a.hi * b.hi)
        if op == "//" and a.nonneg and b.nonneg:
            # A zero divisor raises in Numba: only non-zero divisors matter.
            return Interval(0 if b.hi is None or b.hi == 0 else a.lo // b.hi, a.hi)
        if op == "%" and b.nonneg:
            # Python's modulo takes the divisor's sign, whatever the dividend.
            return Interval(0, None if b.hi is None else b.hi - 1)
        return UNBOUNDED


def is_extent(expr) -> bool:
    """``a.shape[d]``, ``len(a)``, ``a.size``: array sizes, never negative."""
    if isinstance(expr, n.Index) and isinstance(expr.base, n.Attribute) and expr.base.attr == "shape":
        return True
    if isinstance(expr, n.Attribute) and expr.attr in ("size", "ndim"):
        return True
    return isinstance(expr, n.Call) and expr.kind == "builtin" and expr.func == "len"
