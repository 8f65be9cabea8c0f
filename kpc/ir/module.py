"""The IR module: the jitted functions of one source file and their call graph.

The call graph is a networkx ``DiGraph``: nodes are function names, an edge
``caller -> callee`` carries ``sites``, a list of ``CallSite`` (the ``Call`` node,
its location and the argument bindings ``param name -> argument expression``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from .nodes import Call, Function, Loc, walk


@dataclass(eq=False)
class CallSite:
    """One call of ``callee`` inside ``caller``: the node and how arguments bind to parameters."""

    caller: str
    callee: str
    call: Call
    bindings: dict
    loc: Loc


@dataclass(eq=False)
class Rejected:
    """A jitted function the frontend could not translate: kept as Numba in the output."""

    name: str
    diagnostic: object
    loc: Loc
    # rejected by infer-types under the types it guessed (no signature on it nor on its callers)
    guessed: bool = False


@dataclass(eq=False)
class Module:
    """Functions of one source module, in source order, plus the call graph."""

    path: str
    source: str
    functions: dict = field(default_factory=dict)
    rejected: dict = field(default_factory=dict)
    imports: list = field(default_factory=list)
    callgraph: nx.DiGraph = field(default_factory=nx.DiGraph)

    def add(self, function: Function) -> None:
        self.functions[function.name] = function

    def rebuild_callgraph(self) -> nx.DiGraph:
        """Recompute the call graph from the ``Call`` nodes of kind ``kernel``."""
        graph = nx.DiGraph()
        for name in self.functions:
            graph.add_node(name)
        for name, function in self.functions.items():
            for node in walk(function):
                if isinstance(node, Call) and node.kind == "kernel" and node.func in self.functions:
                    callee = self.functions[node.func]
                    bindings = {p.name: a for p, a in zip(callee.params, node.args)}
                    for key, value in node.kwargs.items():
                        bindings[key] = value
                    site = CallSite(name, node.func, node, bindings, node.loc)
                    if graph.has_edge(name, node.func):
                        graph.edges[name, node.func]["sites"].append(site)
                    else:
                        graph.add_edge(name, node.func, sites=[site])
        self.callgraph = graph
        return graph

    def keep_only(self, names) -> None:
        """Drop every function that is not in ``names`` nor called from one of them, directly or not."""
        keep = set(names)
        for name in names:
            keep |= nx.descendants(self.callgraph, name)
        for name in [f for f in self.functions if f not in keep]:
            del self.functions[name]
        self.rebuild_callgraph()

    def callers(self, name: str) -> list:
        return list(self.callgraph.predecessors(name))

    def callees(self, name: str) -> list:
        return list(self.callgraph.successors(name))

    def sites(self, caller: str, callee: str) -> list:
        return self.callgraph.edges[caller, callee]["sites"]

    def bottom_up(self) -> list:
        """Function names, callees before callers (emission order for C++ and PyKokkos)."""
        order = list(reversed(list(nx.topological_sort(self.callgraph))))
        return [n for n in order if n in self.functions]
