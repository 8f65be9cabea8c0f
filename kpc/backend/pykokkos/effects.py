"""Which arrays a function writes, and which names a code region reads from outside.

The caller copies a converted (non-contiguous, bool) array back into the user's
array only when the kernel may write it; workunits receive exactly the names
their body reads from the enclosing function.

>>> from kpc.ir import nodes as n
>>> body = [n.Assign(n.Index(n.Name("out"), [n.Name("i")]), n.Index(n.Name("x"), [n.Name("i")]))]
>>> f = n.Function("copy", [n.Param("x"), n.Param("out")], body)
>>> sorted(written_params({"copy": f})["copy"])
['out']

A name that swaps with a parameter (``src, dst = a, b`` then ``src, dst = dst, src``) writes it:

>>> arr = ArrayType(ScalarType("float64"), 1, "C")
>>> a, b, src, dst = (n.Name(x, arr) for x in ("a", "b", "src", "dst"))
>>> body = [n.Assign(n.TupleExpr([src, dst]), n.TupleExpr([a, b])),
...         n.Assign(n.Index(n.Name("dst"), [n.Name("i")]), n.Index(n.Name("src"), [n.Name("i")])),
...         n.Assign(n.TupleExpr([n.Name("src", arr), n.Name("dst", arr)]),
...                  n.TupleExpr([n.Name("dst", arr), n.Name("src", arr)]))]
>>> sorted(written_params({"heat": n.Function("heat", [n.Param("a"), n.Param("b")], body)})["heat"])
['a', 'b']
"""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.types import ArrayType, ScalarType  # noqa: F401  (doctest)
from kpc.passes.aliasing import view_roots


def _base_name(expr) -> str | None:
    while isinstance(expr, n.Index):
        expr = expr.base
    return expr.id if isinstance(expr, n.Name) else None


def written_params(functions: dict) -> dict:
    """``function name -> set of parameter names it may write`` (through subviews and calls)."""
    written = {name: set() for name in functions}
    changed = True
    while changed:
        changed = False
        for name, function in functions.items():
            roots = view_roots(function)
            params = {p.name for p in function.params}
            found = set()
            for node in n.walk(function):
                targets = []
                if isinstance(node, (n.Assign, n.AugAssign)) and isinstance(node.target, n.Index):
                    targets.append(_base_name(node.target))
                elif isinstance(node, n.Call) and node.kind == "kernel" and node.func in functions:
                    callee = functions[node.func]
                    for param, arg in zip(callee.params, node.args):
                        if param.name in written[node.func]:
                            targets.append(_base_name(arg))
                    for key, arg in node.kwargs.items():
                        if key in written[node.func]:
                            targets.append(_base_name(arg))
                for target in targets:
                    if target is not None:
                        found |= roots.get(target, {target}) & params
            if found - written[name]:
                written[name] |= found
                changed = True
    return written


def names_read(stmts: list) -> list:
    """Names read in ``stmts`` (in first-use order), including loop bounds and store targets' bases."""
    seen: dict = {}
    for node in n.walk(stmts):
        if isinstance(node, n.Name):
            seen.setdefault(node.id, node)
    return list(seen)


def names_bound(stmts: list) -> set:
    """Names assigned or used as loop variables in ``stmts``."""
    bound = set()
    for node in n.walk(stmts):
        if isinstance(node, n.Assign):
            targets = node.target.elements if isinstance(node.target, n.TupleExpr) else [node.target]
            bound |= {t.id for t in targets if isinstance(t, n.Name)}
        elif isinstance(node, n.AugAssign) and isinstance(node.target, n.Name):
            bound.add(node.target.id)
        elif isinstance(node, n.For):
            bound.add(node.var.id)
    return bound


def names_loaded(node) -> set:
    """Names whose value is read somewhere (a plain assignment target is not a read)."""
    loaded = set()
    for item in n.walk(node):
        if isinstance(item, n.Assign):
            targets = item.target.elements if isinstance(item.target, n.TupleExpr) else [item.target]
            parts = [item.value] + [t for t in targets if not isinstance(t, n.Name)]
        elif isinstance(item, (n.AugAssign, n.Return, n.ExprStmt, n.If, n.While, n.For)):
            parts = [getattr(item, f) for f in ("target", "value", "test", "start", "stop", "step")
                     if getattr(item, f, None) is not None]
        else:
            continue
        for part in parts:
            loaded |= {x.id for x in n.walk(part) if isinstance(x, n.Name)}
    return loaded


def undefined_names(function: n.Function) -> list:
    """Names read in ``function`` that no parameter, assignment or loop defines (an inconsistent IR)."""
    defined = {p.name for p in function.params} | names_bound(function.body)
    return sorted(names_loaded(function) - defined)
