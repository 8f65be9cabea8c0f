"""kpc.ir.rewrite: the loop and naming helpers the region-rewriting passes share."""

from __future__ import annotations

import doctest

import kpc.ir.rewrite as rewrite_module
from kpc.ir import nodes as n
from kpc.ir.nodes import format_expr
from kpc.ir.rewrite import FreshNames, step_value, trip_count
from kpc.ir.types import INT64


def test_doctests():
    result = doctest.testmod(rewrite_module)
    assert result.failed == 0 and result.attempted > 0


def _loop(start, stop, step=n.Const(1)):
    return n.For(n.Name("i"), start, stop, step, [])


def test_fresh_names_skip_every_name_the_function_has():
    body = [n.For(n.Name("t"), n.Const(0), n.Name("n"), n.Const(1), [])]
    function = n.Function("f", [n.Param("n", INT64)], body, INT64, locals={"t2": INT64})
    names = FreshNames(function)
    assert [names.fresh("t"), names.fresh("t"), names.fresh("n"), names.fresh("u")] == ["t3", "t4", "n2", "u"]


def test_step_value_reads_constant_steps_only():
    assert step_value(_loop(n.Const(0), n.Name("n"), n.UnaryOp("-", n.Const(2)))) == -2
    assert step_value(_loop(n.Const(0), n.Name("n"), n.Const(3))) == 3
    assert step_value(_loop(n.Const(0), n.Name("n"), n.Name("s"))) is None


def test_trip_count_clamps_what_may_be_negative():
    assert format_expr(trip_count(_loop(n.Const(0), n.Const(5)))) == "5"
    assert format_expr(trip_count(_loop(n.Const(0), n.Name("n")))) == "max(n, 0)"
    assert format_expr(trip_count(_loop(n.Const(-1), n.Name("n")))) == "max(n + 1, 0)"
    assert format_expr(trip_count(_loop(n.Name("a"), n.Name("b")))) == "max(b - a, 0)"
