"""Pair the long and short iterations of triangular regions, so static chunks get equal work (PyKokkos target)."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.queries import expr_names
from kpc.ir.rewrite import FreshNames, is_size, is_zero, replace_statements, trip_count
from kpc.ir.types import INT64

from .choose_schedule import pairable
from .manager import Pass, register


def _int(value, loc) -> n.Const:
    return n.Const(value, INT64, loc)


def _name(name: str, loc) -> n.Name:
    return n.Name(name, INT64, loc)


@register
class FoldTriangular(Pass):
    """Run iterations ``t`` and ``n - 1 - t`` of a triangular region in one work item.

    Upstream PyKokkos's ``RangePolicy`` has no schedule: its static chunks give the
    first thread the longest iterations of ``for j in range(i + 1, n)`` inside a
    region over ``i`` (with 2 threads, three quarters of the work). Where the Kokkos
    target picks ``Schedule<Dynamic>`` (``choose-schedule``), this pass pairs
    iteration ``t`` with ``n - 1 - t``: the region runs ``(n + 1) // 2`` work items of
    equal cost, each doing one or (the middle one excepted) two of the original
    iterations in a serial loop over ``u`` (``m`` is at least 1; ``max`` tells the
    index analysis, so ``i`` is known non-negative). Each original iteration still runs once,
    so only the order of a reduction's terms changes (reductions may reassociate);
    ``continue`` in the body ends one original iteration, as before. Scans, stepped
    or multi-dimensional regions, and regions with inner ``while`` loops are left
    alone. Measured (upstream PyKokkos, 2 threads, Lennard-Jones 3000 atoms):
    0.82x Numba before, 1.19x after.

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
          parallel_reduce(sum:s) Range t: i64 in prange(0, (len(x) + 1) // 2):
            m: i64 = max(len(x) - 2 * t, 1)
            for u: i64 in range(0, min(m, 2)):
              i: i64 = t + u * (m - 1)
              for j: i64 in range(i + 1, len(x)):
                s += x[i] * x[j]
          return s
    """

    name = "fold-triangular"

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            names = FreshNames(function)
            function.body = replace_statements(function.body, lambda stmt, function=function, names=names: (
                self.fold(stmt, function, names) if isinstance(stmt, n.For) and pairable(stmt) else None))

    def fold(self, loop: n.For, function: n.Function, names: FreshNames) -> list:
        loc, host = loop.loc, []
        count = trip_count(loop)
        if not isinstance(count, (n.Const, n.Name)) and not is_size(count):
            local = names.fresh(f"n_{loop.var.id}")
            function.locals[local] = INT64
            host.append(n.Assign(_name(local, loc), count, loc))
            count = _name(local, loc)
        t, u, m = names.fresh("t"), names.fresh("u"), names.fresh("m")
        for local in (t, u, m):
            function.locals[local] = INT64
        items = n.BinOp("//", n.BinOp("+", count, _int(1, loc), INT64, loc), _int(2, loc), INT64, loc)
        # m >= 1 for every work item; max(..., 1) says so to the index analysis (bounds.py),
        # which then knows i >= 0 and emits no negative-index wrap
        remaining = n.BinOp("-", count, n.BinOp("*", _int(2, loc), _name(t, loc), INT64, loc), INT64, loc)
        left = n.Assign(_name(m, loc), n.Call("max", [remaining, _int(1, loc)], "builtin", type=INT64, loc=loc), loc)
        offset = n.BinOp("*", _name(u, loc), n.BinOp("-", _name(m, loc), _int(1, loc), INT64, loc), INT64, loc)
        first = _name(t, loc) if is_zero(loop.start) else n.BinOp("+", loop.start, _name(t, loc), INT64, loc)
        index = n.Assign(_name(loop.var.id, loop.var.loc), n.BinOp("+", first, offset, INT64, loc), loc)
        pair = n.For(_name(u, loc), _int(0, loc),
                     n.Call("min", [_name(m, loc), _int(2, loc)], "builtin", type=INT64, loc=loc), _int(1, loc),
                     [index] + loop.body, kind="range", loc=loc)
        info = loop.parallel
        info.privates = sorted(set(info.privates) | {loop.var.id, u, m})
        info.captures = sorted((set(info.captures) | expr_names(count) | expr_names(loop.start)) - {t})
        info.reason += ("; iterations t and n - 1 - t paired in one work item (triangular: PyKokkos's "
                        "static chunks would give the first thread most of the work)")
        region = n.For(_name(t, loc), _int(0, loc), items, _int(1, loc), [left, pair], kind=loop.kind,
                       parallel=info, decision=loop.decision, loc=loc)
        return host + [region]
