"""Decide how each function is emitted (entry kernel, device function, or both) and each region's pattern."""

from __future__ import annotations

import ast

import networkx as nx

from kpc.ir import nodes as n
from kpc.ir import python_source

from .manager import Pass, register


def python_callers(module) -> set:
    """Jitted functions that plain Python code of the module refers to (calls, ``__all__``).

    Such a function is callable from Python even when kernels call it too, so it
    is emitted both as an entry point and as a device function.
    """
    try:
        tree = python_source.parse(module.source or "")
    except SyntaxError:
        return set()
    jitted = set(module.functions)
    found: set = set()
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in jitted:
            continue
        if isinstance(node, ast.Name) and node.id in jitted and isinstance(node.ctx, ast.Load):
            found.add(node.id)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                for t in node.targets):
            found |= {c.value for c in ast.walk(node.value)
                      if isinstance(c, ast.Constant) and c.value in jitted}
        stack.extend(ast.iter_child_nodes(node))
    return found


def callers_first(module) -> list:
    """Function names, every caller before its callees (source order when the graph has a cycle)."""
    try:
        order = list(nx.topological_sort(module.callgraph))
    except nx.NetworkXUnfeasible:
        order = list(module.functions)
    return [name for name in order if name in module.functions]


def calls_by_context(function: n.Function) -> tuple:
    """``(callees called inside parallel regions, callees called from host code)``."""
    in_regions: set = set()
    in_host: set = set()

    def calls(nodes) -> set:
        return {c.func for c in n.walk(nodes) if isinstance(c, n.Call) and c.kind == "kernel"}

    def block(stmts):
        for stmt in stmts:
            if isinstance(stmt, n.For) and stmt.parallel is not None:
                in_host.update(calls([stmt.start, stmt.stop, stmt.step]))
                in_regions.update(calls(stmt.body))
                continue
            in_host.update(calls([e for e in n.children(stmt) if isinstance(e, n.Expr)]))
            if isinstance(stmt, (n.For, n.While)):
                block(stmt.body)
            elif isinstance(stmt, n.If):
                block(stmt.body)
                block(stmt.orelse)

    block(function.body)
    return in_regions, in_host


def region_pattern(info: n.ParallelInfo) -> str:
    if info.scan is not None:
        return "scan"
    return "reduce" if info.reductions else "for"


@register
class InferDispatch(Pass):
    """Set ``Function.role`` from the call graph and ``ParallelInfo.pattern`` per region.

    A function is an ``entry`` when Python or host code calls it, a ``device``
    function when only parallel regions (or other device functions) call it,
    ``both`` when both do (it is emitted twice; its device version runs every
    loop serially). A region is a ``parallel_reduce`` when it has reductions, a
    ``parallel_scan`` when it has a prefix sum, a ``parallel_for`` otherwise.

    Before::

        func @lj(r: f64) -> f64   role=entry
          sr6: f64 = (1.0 / r) ** 6
          return 4.0 * (sr6 * sr6 - sr6)

        func @energy(r: f64[:]) -> f64   role=entry parallel
          e: f64 = 0.0
          parallel_for(sum:e) Range i: i64 in prange(0, len(r)):
            e += call @lj(r[i])
          return e

        callgraph @energy -> @lj

    After::

        func @lj(r: f64) -> f64   role=device
          sr6: f64 = (1.0 / r) ** 6
          return 4.0 * (sr6 * sr6 - sr6)

        func @energy(r: f64[:]) -> f64   role=entry parallel
          e: f64 = 0.0
          parallel_reduce(sum:e) Range i: i64 in prange(0, len(r)):
            e += call @lj(r[i])
          return e

        callgraph @energy -> @lj
    """

    name = "infer-dispatch"
    transforms = False

    def apply(self, ctx, module) -> None:
        module.rebuild_callgraph()
        host = python_callers(module) | {name for name in module.functions if not module.callers(name)}
        device: set = set()
        for name in callers_first(module):
            function = module.functions[name]
            in_regions, in_host = calls_by_context(function)
            if name in host:
                host |= in_host
                device |= in_regions
            if name in device:
                device |= in_regions | in_host
            function.role = "both" if name in host and name in device else (
                "device" if name in device else "entry")
            for node in n.walk(function):
                if isinstance(node, n.For) and node.parallel is not None:
                    node.parallel.pattern = region_pattern(node.parallel)
