"""Rewrite MDRange and stepped regions as a unit-stride 1-D Range from 0 (PyKokkos target)."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.queries import expr_names
from kpc.ir.rewrite import FreshNames, difference, is_zero, nonnegative, replace_statements, step_value, trip_count
from kpc.ir.types import INT64

from .manager import Pass, register
from .recognize_reductions import region_nest


def _name(name: str, loc) -> n.Name:
    return n.Name(name, INT64, loc)


@register
class FlattenMDRange(Pass):
    """Turn each MDRange region into a Range over ``t`` with the indices recomputed from it.

    Upstream PyKokkos cannot run an MDRangePolicy with standalone workunits
    (PYKOKKOS_CONTRACT.md §4), so ``for i in range(i0, i1): for j in range(j0, j1)``
    becomes ``for t in range(0, ni * nj)`` with ``i = t // nj + i0`` and
    ``j = t % nj + j0`` (3-D: ``i = t // (nj * nk) + i0; j = t // nk % nj + j0;
    k = t % nk + k0``). Extents are clamped at 0 unless provably non-negative
    (``a.shape[0]``, ``len(a)``, constants); extents other than constants and
    plain ``a.shape[k]``/``len(a)`` are computed once into host locals (``n_j``)
    before the region; ``i``, ``j`` become privates of the region, the names
    the index computations read captures. A Range region with a constant
    step ``s`` (PyKokkos policies have none) likewise becomes ``for t in
    range(0, n_i)`` with ``i = a + t * s`` and ``n_i = max((b - a + s - 1) // s, 0)``.

    Before::

        func @add(a: f64[:, :], b: f64[:, :]) -> none   role=entry
          parallel_for MDRange2D i: i64 in range(0, a.shape[0]):
            for j: i64 in range(1, a.shape[1]):
              b[i, j] = a[i, j] + a[i, j - 1]

    After::

        func @add(a: f64[:, :], b: f64[:, :]) -> none   role=entry
          n_j: i64 = max(a.shape[1] - 1, 0)
          parallel_for Range t: i64 in range(0, a.shape[0] * n_j):
            i: i64 = t // n_j
            j: i64 = t % n_j + 1
            b[i, j] = a[i, j] + a[i, j - 1]
    """

    name = "flatten-mdrange"

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            names = FreshNames(function)

            def rewrite(stmt, function=function, names=names):
                if isinstance(stmt, n.For) and stmt.parallel is not None and stmt.parallel.depth > 1:
                    return self.flatten(stmt, function, names)
                if isinstance(stmt, n.For) and stmt.parallel is not None and step_value(stmt) != 1:
                    return self.unit_stride(stmt, function, names)
                return None

            function.body = replace_statements(function.body, rewrite)

    def unit_stride(self, loop: n.For, function: n.Function, names: FreshNames) -> list:
        """``for i in range(a, b, s)`` -> ``for t in range(0, n_i)`` with ``i = a + t * s``."""
        step, loc = step_value(loop), loop.loc
        first, last = (loop.start, loop.stop) if step > 0 else (loop.stop, loop.start)
        span = difference(last, first)
        if abs(step) > 1:
            span = n.BinOp("//", n.BinOp("+", span, n.Const(abs(step) - 1, INT64, loc), INT64, loc),
                           n.Const(abs(step), INT64, loc), INT64, loc)
        count = names.fresh(f"n_{loop.var.id}")
        function.locals[count] = INT64
        host = n.Assign(_name(count, loc), n.Call("max", [span, n.Const(0, INT64, loc)], "builtin", type=INT64,
                                                 loc=loc), loc)
        flat = names.fresh("t")
        function.locals[flat] = INT64
        offset = _name(flat, loc) if abs(step) == 1 else n.BinOp("*", _name(flat, loc),
                                                                 n.Const(abs(step), INT64, loc), INT64, loc)
        index = n.Assign(_name(loop.var.id, loop.var.loc),
                         n.BinOp("+" if step > 0 else "-", loop.start, offset, INT64, loc), loc)
        info = loop.parallel
        info.privates = sorted(set(info.privates) | {loop.var.id})
        info.captures = sorted((set(info.captures) | expr_names(index.value))
                               - {flat})
        info.reason += f"; step {step} normalized to a unit-stride Range (PyKokkos regions have no step)"
        region = n.For(_name(flat, loc), n.Const(0, INT64, loc), _name(count, loc), n.Const(1, INT64, loc),
                       [index] + loop.body, kind=loop.kind, parallel=info, decision=loop.decision, loc=loc)
        return [host, region]

    def flatten(self, loop: n.For, function: n.Function, names: FreshNames) -> list:
        nest = region_nest(loop)
        loc = loop.loc
        host, extents = [], []
        for inner in nest:
            extent = trip_count(inner)
            if not isinstance(extent, n.Const) and not nonnegative(extent):
                local = names.fresh(f"n_{inner.var.id}")
                function.locals[local] = INT64
                host.append(n.Assign(_name(local, loc), extent, loc))
                extent = _name(local, loc)
            extents.append(extent)
        flat = names.fresh("t")
        function.locals[flat] = INT64
        total = extents[0]
        for extent in extents[1:]:
            total = n.BinOp("*", total, extent, INT64, loc)
        indices = []
        for k, inner in enumerate(nest):
            value = _name(flat, loc)
            if k + 1 < len(nest):
                stride = extents[k + 1]
                for extent in extents[k + 2:]:
                    stride = n.BinOp("*", stride, extent, INT64, loc)
                value = n.BinOp("//", value, stride, INT64, loc)
            if k > 0:
                value = n.BinOp("%", value, extents[k], INT64, loc)
            if not is_zero(inner.start):
                value = n.BinOp("+", value, inner.start, INT64, loc)
            indices.append(n.Assign(_name(inner.var.id, inner.var.loc), value, inner.loc))
        info = loop.parallel
        info.policy, info.depth = "Range", 1
        info.privates = sorted(set(info.privates) | {inner.var.id for inner in nest})
        read = expr_names([a.value for a in indices])
        info.captures = sorted((set(info.captures) | read) - {flat})
        info.reason += f"; MDRange{len(nest)}D flattened to a 1-D Range (PyKokkos has no MDRange workunits)"
        region = n.For(_name(flat, loc), n.Const(0, INT64, loc), total, n.Const(1, INT64, loc),
                       indices + nest[-1].body, kind=loop.kind, parallel=info, decision=loop.decision, loc=loc)
        return host + [region]
