"""kpc.ir.queries: the names statements read and bind, and their nesting, on IR the frontend builds."""

from __future__ import annotations

import doctest

import kpc.ir.queries as queries_module
from kpc.api import load_module
from kpc.ir import nodes as n
from kpc.ir.queries import (assigned_names, expr_names, nested_bodies, own_exprs, same_expr, statements,
                            stmt_defs, stmt_uses, stmts_exprs, target_names, used_names)

SOURCE = """\
from numba import njit

@njit
def f(a, n):
    s = 0.0
    for i in range(1, n):
        x, (y, z) = a[i], (i, 2)
        a[i] = a[i - 1] + x
        if y > 0:
            s += y * z
        else:
            s -= 1.0
    while s > 100.0:
        s = s / 2
    return s
"""


def body():
    module = load_module("m.py", source=SOURCE)
    assert not module.rejected
    return module.functions["f"].body


def test_doctests():
    result = doctest.testmod(queries_module)
    assert result.failed == 0 and result.attempted > 0


def test_statements_visit_nested_ones_in_source_order():
    kinds = [type(s).__name__ for s in statements(body())]
    assert kinds == ["Assign", "For", "Assign", "Assign", "If", "AugAssign", "AugAssign", "While", "Assign",
                     "Return"]
    loop, branch = body()[1], body()[1].body[2]
    assert nested_bodies(loop) == [loop.body]
    assert nested_bodies(branch) == [branch.body, branch.orelse]
    assert nested_bodies(body()[0]) == []


def test_a_statement_reads_its_own_expressions_only():
    init, loop, loop_while, ret = body()
    unpack, store, branch = loop.body
    assert stmt_uses(init) == set()
    assert stmt_uses(loop) == {"n"}  # the bounds, not the loop variable nor the body
    assert stmt_uses(unpack) == {"a", "i"}  # a tuple target is not read
    assert stmt_uses(store) == {"a", "i", "x"}  # an element store reads its array and index
    assert stmt_uses(branch) == {"y"}
    assert stmt_uses(branch.body[0]) == {"s", "y", "z"}  # s += ... reads s
    assert stmt_uses(loop_while) == {"s"}
    assert stmt_uses(ret) == {"s"}


def test_definitions_follow_nested_tuple_targets_and_loop_variables():
    init, loop, _, _ = body()
    unpack, store, branch = loop.body
    assert stmt_defs(init) == ["s"]
    assert stmt_defs(loop) == ["i"]
    assert stmt_defs(unpack) == ["x", "y", "z"]
    # the frontend unpacks `x, (y, z) = a[i], (i, 2)` flat; a nested target built by hand:
    nested = n.TupleExpr([n.Name("x"), n.TupleExpr([n.Name("y"), n.Name("z")])])
    assert target_names(nested) == ["x", "y", "z"] and target_names(nested.elements[1]) == ["y", "z"]
    assert stmt_defs(store) == []  # an element store binds no name
    assert stmt_defs(branch) == [] and stmt_defs(branch.body[0]) == ["s"]


def test_names_of_whole_bodies():
    loop = body()[1]
    assert assigned_names(body()) == {"s", "i", "x", "y", "z"}
    assert assigned_names(loop.body) == {"x", "y", "z", "s"}
    assert used_names(loop.body) == {"a", "i", "x", "y", "z", "s"}
    assert used_names(body()) == used_names(loop.body) | {"n"}
    assert expr_names(loop.body[1].value) == {"a", "i", "x"}
    assert expr_names([loop.start, loop.stop, loop.step]) == {"n"}


def test_expressions_of_statements():
    loop = body()[1]
    assert own_exprs(loop) == [loop.start, loop.stop, loop.step]  # not the loop variable
    assert own_exprs(loop.body[1]) == [loop.body[1].target, loop.body[1].value]
    assert own_exprs(n.Return(None)) == [] and own_exprs(n.Break()) == []
    exprs = stmts_exprs([loop])
    assert loop.var in exprs and loop.body[0].target in exprs  # loop variables and targets included


def test_same_expr_compares_code_not_identity():
    store = body()[1].body[1]
    assert same_expr(store.target, n.Index(n.Name("a"), [n.Name("i")]))
    assert not same_expr(store.target, store.value.left)  # a[i] vs a[i - 1]
    assert not same_expr(n.Name("a"), n.Const("a"))
