"""Scalar data flow around loops: names read before their assignment in an iteration, names live after a loop.

``exposed_reads`` tells which names an iteration reads before assigning them (a value
carried in from the previous iteration); ``live_out_of_loops`` which names each loop
leaves to the code after it.

>>> from kpc.ir.nodes import Assign, AugAssign, Const, For, Function, Index, Name, Param, Return
>>> i, s = Name("i"), Name("s")
>>> loop = For(i, Const(0), Name("n"), Const(1), [AugAssign(s, "+", Index(Name("a"), [i]))])
>>> exposed, assigned = exposed_reads(loop.body, {"i"})
>>> sorted(exposed), sorted(assigned)
(['a', 's'], ['i', 's'])
>>> f = Function("f", [Param("a"), Param("n")], [Assign(s, Const(0)), loop, Return(s)])
>>> live_out_of_loops(f)[id(loop)]
{'s'}
"""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.queries import stmt_defs, stmt_uses


# --------------------------------------------------------------------------- upward-exposed reads

_UNREACHABLE = None  # "defined" set after a break/continue/return: everything counts as defined


def _meet(a, b):
    if a is _UNREACHABLE:
        return b
    if b is _UNREACHABLE:
        return a
    return a & b


def exposed_reads(body, defined: set) -> tuple:
    """(names read before any assignment in the same iteration, names surely assigned at the end)."""
    exposed: set = set()

    def block(stmts, done):
        for stmt in stmts:
            if done is _UNREACHABLE:
                return done
            exposed.update(stmt_uses(stmt) - done)
            if isinstance(stmt, n.If):
                done = _meet(block(stmt.body, set(done)), block(stmt.orelse, set(done)))
            elif isinstance(stmt, n.For):
                block(stmt.body, done | {stmt.var.id})
            elif isinstance(stmt, n.While):
                block(stmt.body, set(done))
            elif isinstance(stmt, (n.Break, n.Continue, n.Return, n.Raise)):
                return _UNREACHABLE
            else:
                done = done | set(stmt_defs(stmt))
        return done

    after = block(body, set(defined))
    return exposed, (set() if after is _UNREACHABLE else after)


# --------------------------------------------------------------------------- liveness


def live_out_of_loops(function: n.Function) -> dict:
    """``id(loop) -> names read after the loop`` (before being reassigned) for every ``For``."""
    result: dict = {}

    def block(stmts, live, exits):
        for stmt in reversed(stmts):
            live = statement(stmt, live, exits)
        return live

    def statement(stmt, live, exits):
        if isinstance(stmt, (n.Return, n.Raise)):
            return stmt_uses(stmt)
        if isinstance(stmt, n.Break):
            return set(exits[0]) if exits else set(live)
        if isinstance(stmt, n.Continue):
            return set(exits[1]) if exits else set(live)
        if isinstance(stmt, n.If):
            return stmt_uses(stmt) | block(stmt.body, live, exits) | block(stmt.orelse, live, exits)
        if isinstance(stmt, (n.For, n.While)):
            result[id(stmt)] = set(live)
            header = set(live)
            while True:
                body_in = block(stmt.body, header, (live, header))
                if isinstance(stmt, n.For):
                    body_in = body_in - {stmt.var.id}
                new_header = header | body_in | stmt_uses(stmt)
                if new_header == header:
                    return header
                header = new_header
        return (live - set(stmt_defs(stmt))) | stmt_uses(stmt)

    block(function.body, set(), None)
    return result
