"""``walk`` and ``children``: every node of a kernel, depth first in source order, and rewrites seen."""

from __future__ import annotations

import dataclasses
import glob
import os

from kpc.api import load_module
from kpc.ir import nodes as n
from kpc.passes.manager import PassContext, run_pipeline

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def reference_children(node) -> list:
    """The children as the field-by-field definition says (every field but type/loc/to/parallel)."""
    if isinstance(node, n.Function):
        return list(node.body)
    if not isinstance(node, (n.Expr, n.Stmt)):
        return []
    out = []
    for field in dataclasses.fields(node):
        if field.name in ("type", "loc", "to", "parallel"):
            continue
        value = getattr(node, field.name)
        items = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else [value]
        out += [item for item in items if isinstance(item, (n.Expr, n.Stmt))]
    return out


def reference_walk(node) -> list:
    if node is None:
        return []
    if isinstance(node, list):
        return [x for item in node for x in reference_walk(item)]
    return [node] + [x for child in reference_children(node) for x in reference_walk(child)]


def test_walk_and_children_match_the_field_definition_on_the_corpus():
    paths = sorted(glob.glob(os.path.join(ROOT, "tests", "corpus", "[!t_]*.py")))
    assert paths
    for path in paths:
        module = load_module(path)
        run_pipeline(module, PassContext(), ["infer-types"])
        for function in module.functions.values():
            assert [id(x) for x in n.walk(function)] == [id(x) for x in reference_walk(function)]
            for node in n.walk(function):
                assert [id(x) for x in n.children(node)] == [id(x) for x in reference_children(node)]


def test_walk_reads_children_after_yielding_their_parent():
    index = n.Index(n.Name("a"), [n.Name("i")])
    seen = []
    for node in n.walk(n.ExprStmt(index)):
        seen.append(node)
        if node is index:
            index.indices.append(n.Slice())
    assert [type(x).__name__ for x in seen] == ["ExprStmt", "Index", "Name", "Name", "Slice"]
    assert list(n.walk([None, n.Break()]))[0].__class__ is n.Break
