"""The decision report: every loop of every function, how it runs and why (``kpc ir --explain``)."""

from __future__ import annotations

from kpc.ir import nodes as n


def describe(loop: n.For) -> str:
    """One loop's decision, e.g. ``parallel_reduce (sum: s) [Range]: no writes to shared arrays; ...``."""
    info = loop.parallel or loop.team
    if info is None:
        return f"serial: {loop.decision or 'not analyzed'}"
    detail = [f"{r.op}: {r.var}" for r in info.reductions]
    if info.scan is not None:
        detail.append(f"prefix {info.scan.op}: {info.scan.var}")
    head = ("parallel" if loop.parallel else info.level) + "_" + info.pattern + (f" ({', '.join(detail)})" if detail else "")
    policy = f"MDRange {info.depth}-D" if info.policy == "MDRange" else info.policy
    return f"{head} [{policy}]: {info.reason}" if info.reason else f"{head} [{policy}]"


def explain(module) -> str:
    """The report for a module after the pipeline, one line per loop, nested loops indented; an
    entry without loops says so, and one typed without a signature says which of its types are
    only guessed (each call's argument types decide what runs).

    >>> from kpc.ir.nodes import Const, For, Function, Name
    >>> from kpc.ir.module import Module
    >>> loop = For(Name("i"), Const(0), Name("n"), Const(1), [], decision="auto-parallelization disabled")
    >>> module = Module("m.py", "")
    >>> module.add(Function("f", [], [loop]))
    >>> module.add(Function("g", [], [], guessed=["x: f64 (no signature; a scalar not used as an integer)"]))
    >>> print(explain(module))
    @f (role entry)
      line 0, i in range: serial: auto-parallelization disabled
    @g (role entry)
      no loops: runs as one serial call
      types guessed, each call compiles for its own: x: f64 (no signature; a scalar not used as an integer)
    """
    lines = []

    def block(stmts, depth):
        for stmt in stmts:
            if isinstance(stmt, n.For):
                lines.append(f"{'  ' * depth}line {stmt.loc.line}, {stmt.var.id} in {stmt.kind}: {describe(stmt)}")
                block(stmt.body, depth + 1)
            elif isinstance(stmt, n.While):
                block(stmt.body, depth)
            elif isinstance(stmt, n.If):
                block(stmt.body, depth)
                block(stmt.orelse, depth)

    for function in module.functions.values():
        start = len(lines)
        block(function.body, 1)
        if len(lines) == start and function.role != "device":
            lines.append("  no loops: runs as one serial call")
        if function.placement is not None:
            lines.append(f"  placement (--space cuda): {function.placement[1]}")
        if function.guessed:
            lines.append(f"  types guessed, each call compiles for its own: {'; '.join(function.guessed)}")
        if len(lines) > start:
            lines.insert(start, f"@{function.name} (role {function.role})")
    return "\n".join(lines) if lines else "no loops"
