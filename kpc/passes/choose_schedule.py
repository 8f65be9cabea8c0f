"""Give regions with unbalanced iterations (triangular loops, while loops) a dynamic schedule."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.queries import assigned_names, expr_names, statements
from kpc.ir.rewrite import step_value

from .manager import Pass, register
from .recognize_reductions import region_nest


def _uneven(loop: n.For):
    """The first cause of unequal iterations in a region: ``("for", names)``, an inner ``for``
    whose trip count depends on ``names`` (the region's variables or values set in its body),
    ``("while", [])``, or None when the iterations look balanced."""
    nest = region_nest(loop)
    varying = {inner.var.id for inner in nest} | assigned_names(nest[-1].body)
    for stmt in statements(nest[-1].body):
        if isinstance(stmt, n.For):
            names = expr_names(stmt.start) | expr_names(stmt.stop) | expr_names(stmt.step)
            depends = sorted(names & varying)
            if depends:
                return "for", depends
        if isinstance(stmt, n.While):
            return "while", []
    return None


def imbalance(loop: n.For) -> str | None:
    """Why the iterations of a region do unequal work, or None when they look balanced."""
    cause = _uneven(loop)
    if cause is None:
        return None
    kind, depends = cause
    return f"inner trip count depends on {', '.join(depends)}" if kind == "for" else \
        "inner while loop (data-dependent trip count)"


def pairable(loop: n.For) -> bool:
    """A unit-step 1-D Range region (not a scan) whose inner ``for`` trip counts depend on its
    index, with no ``while`` loop (data-dependent work that pairing iterations ``t`` and
    ``n - 1 - t`` would not balance)."""
    info = loop.parallel
    if info is None or info.policy != "Range" or info.depth != 1 or info.pattern == "scan":
        return False
    if step_value(loop) != 1 or any(isinstance(stmt, n.While) for stmt in statements(loop.body)):
        return False
    cause = _uneven(loop)
    return cause is not None and cause[0] == "for" and loop.var.id in cause[1]


@register
class ChooseSchedule(Pass):
    """Set ``schedule = dynamic`` on regions whose inner trip count varies per iteration.

    ``for j in range(i + 1, n)`` inside a region over ``i`` does ``n - i``
    iterations: static chunks give the first thread most of the work
    (PERFORMANCE_NOTES.md: the Lennard-Jones kernel needs
    ``Schedule<Dynamic>`` to beat Numba). Inner ``while`` loops count too.

    Before::

        func @pairs(x: f64[:]) -> f64   role=entry parallel
          s: f64 = 0.0
          parallel_reduce(sum:s) Range i: i64 in prange(0, len(x)):
            for j: i64 in range(i + 1, len(x)):
              s += x[i] * x[j]
          return s

    After::

        func @pairs(x: f64[:]) -> f64   role=entry parallel
          s: f64 = 0.0
          parallel_reduce(sum:s) Range schedule=dynamic i: i64 in prange(0, len(x)):
            for j: i64 in range(i + 1, len(x)):
              s += x[i] * x[j]
          return s
    """

    name = "choose-schedule"
    transforms = False

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            for loop in n.walk(function):
                if isinstance(loop, n.For) and loop.parallel is not None:
                    why = imbalance(loop)
                    loop.parallel.schedule = "dynamic" if why else "static"
                    loop.parallel.paired = bool(why) and pairable(loop)
                    note = f"dynamic schedule: {why}"
                    if loop.parallel.paired:
                        note += ("; on host spaces iterations t and n - 1 - t paired in one work item "
                                 "under a static schedule instead (no work stealing)")
                    if why and note not in loop.parallel.reason:
                        loop.parallel.reason += f"; {note}"
