"""Annotate each parallel region's reductions, prefix sum and atomic scatter updates, in canonical form."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.types import UNKNOWN

from .array_accesses import ArrayScope, array_update, call_effects
from .dependence import analyze_nest, scalar_update
from .liveness import live_out_of_loops
from .manager import Pass, register


def region_nest(loop: n.For) -> list:
    """The loops a region collapses: the region loop, then ``depth - 1`` perfectly nested ones."""
    nest = [loop]
    while len(nest) < loop.parallel.depth:
        nest.append(nest[-1].body[0])
    return nest


def canonical_update(stmt, var: str):
    """The canonical statement of a scalar reduction update, or None when it already is canonical.

    ``s = s + v`` / ``s = v + s`` -> ``s += v``; ``s = s - v`` -> ``s -= v``;
    ``s = s * v`` -> ``s *= v``; ``if v < m: m = v`` -> ``m = min(m, v)`` (and max).
    """
    update = scalar_update(stmt, var)
    if update is None:
        return None
    op, operand, own = update
    target = own[-1] if isinstance(stmt, n.If) else stmt.target
    if isinstance(stmt, n.If):
        name = n.Name(var, target.type, target.loc)
        call = n.Call(op, [name, operand], "builtin", type=target.type, loc=stmt.test.loc)
        return n.Assign(n.Name(var, target.type, target.loc), call, stmt.loc)
    if isinstance(stmt, n.Assign) and isinstance(stmt.value, n.BinOp):
        return n.AugAssign(stmt.target, stmt.value.op, operand, loc=stmt.loc)
    return None


def replace_statements(body: list, replacements: dict) -> list:
    """``body`` with statements replaced by ``replacements[id(stmt)]``, at any depth."""
    out = []
    for stmt in body:
        stmt = replacements.get(id(stmt), stmt)
        if isinstance(stmt, (n.For, n.While)):
            stmt.body = replace_statements(stmt.body, replacements)
        elif isinstance(stmt, n.If):
            stmt.body = replace_statements(stmt.body, replacements)
            stmt.orelse = replace_statements(stmt.orelse, replacements)
        out.append(stmt)
    return out


@register
class RecognizeReductions(Pass):
    """Fill ``ParallelInfo.reductions`` / ``scan`` and mark scatter updates ``atomic``.

    Reductions: ``+=``, ``-=`` (a sum of negated values), ``*=``, ``s = s + v``
    and ``min``/``max``, several per region, integer or float; ``ReductionSpec(var,
    op in sum/prod/min/max, type)``. Updates are rewritten into the forms emitters
    handle: ``s op= v`` for sum/prod, ``m = min(m, v)`` / ``max`` for min/max (the
    ``if v < m: m = v`` form included; both mean ``v if v < m else m``). A prefix
    sum (``s += x[i]`` read in the same iteration) becomes ``ScanSpec``. An array
    update ``a[k] op= v`` (or ``a[k] = a[k] op v``) whose index may repeat across
    iterations becomes ``AugAssign(atomic=True)``.

    Before::

        func @stats(x: i64[:], idx: i64[:], hist: i64[:]) -> (i64, i64)   role=entry
          lo: i64 = x[0]
          total: i64 = 0
          parallel_for Range i: i64 in range(0, len(x)):
            if x[i] < lo:
              lo = x[i]
            total = total + x[i]
            hist[idx[i]] = hist[idx[i]] + 1
          return (lo, total)

    After::

        func @stats(x: i64[:], idx: i64[:], hist: i64[:]) -> (i64, i64)   role=entry
          lo: i64 = x[0]
          total: i64 = 0
          parallel_for(min:lo, sum:total) Range i: i64 in range(0, len(x)):
            lo = min(lo, x[i])
            total += x[i]
            atomic hist[idx[i]] += 1
          return (lo, total)
    """

    name = "recognize-reductions"

    def apply(self, ctx, module) -> None:
        effects = call_effects(module)
        for function in module.functions.values():
            scope = ArrayScope(function)
            live = live_out_of_loops(function)
            replacements: dict = {}
            for loop in n.walk(function):
                if not (isinstance(loop, n.For) and loop.parallel is not None):
                    continue
                facts = analyze_nest(function, region_nest(loop), live, effects, scope)
                info = loop.parallel
                info.reductions = [n.ReductionSpec(c.var, c.op, c.type or UNKNOWN) for c in facts.reductions]
                info.scan = n.ScanSpec(facts.scan.var, "sum", facts.scan.type or UNKNOWN) if facts.scan else None
                for carried in facts.reductions + ([facts.scan] if facts.scan else []):
                    for stmt in carried.stmts:
                        new = canonical_update(stmt, carried.var)
                        if new is not None:
                            replacements[id(stmt)] = new
                for stmt in facts.atomics:
                    if isinstance(stmt, n.AugAssign):
                        stmt.atomic = True
                    elif isinstance(stmt, n.Assign):
                        op, operand = array_update(stmt)
                        replacements[id(stmt)] = n.AugAssign(stmt.target, op, operand, atomic=True, loc=stmt.loc)
            if replacements:
                function.body = replace_statements(function.body, replacements)
