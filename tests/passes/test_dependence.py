"""The dependence analysis on IR the frontend does not produce (yet): side-effect calls, liveness."""

from kpc.ir import nodes as n
from kpc.ir.module import Module
from kpc.ir.types import FLOAT64, INT64, ArrayType
from kpc.passes.array_accesses import call_effects
from kpc.passes.dependence import analyze_nest
from kpc.passes.liveness import exposed_reads, live_out_of_loops

F64_1D = ArrayType(FLOAT64, 1, "C")


def loop_over(body: list, var: str = "i") -> n.For:
    return n.For(n.Name(var, INT64), n.Const(0, INT64), n.Name("m", INT64), n.Const(1, INT64), body)


def test_print_is_a_side_effect_even_in_callees():
    show = n.Function("show", [n.Param("v", FLOAT64)], [n.ExprStmt(n.Call("print", [n.Name("v")], "builtin"))])
    x_i = n.Index(n.Name("x", F64_1D), [n.Name("i", INT64)], FLOAT64)
    loop = loop_over([n.ExprStmt(n.Call("show", [x_i], "kernel"))])
    kernel = n.Function("k", [n.Param("x", F64_1D), n.Param("m", INT64)], [loop])
    module = Module("m.py", "")
    module.add(show)
    module.add(kernel)
    effects = call_effects(module)
    facts = analyze_nest(kernel, [loop], live_out_of_loops(kernel), effects)
    assert facts.blockers() == ["call @show (print() writes output in iteration order)"]


def test_exposed_reads_follow_branches_and_exits():
    t, x = n.Name("t"), n.Name("x")
    body = [
        n.If(n.Name("c"), [n.Assign(t, n.Const(1.0))], [n.Continue()]),
        n.Assign(n.Name("y"), n.BinOp("+", t, x)),
        n.If(n.Name("c"), [n.Assign(n.Name("u"), n.Const(1.0))]),
        n.Assign(n.Name("z"), n.Name("u")),
    ]
    exposed, defined = exposed_reads(body, {"i"})
    assert exposed == {"c", "x", "u"}
    assert defined == {"i", "t", "y", "z"}


def test_live_out_sees_reads_after_the_loop_and_in_the_next_outer_iteration():
    inner = loop_over([n.Assign(n.Name("s"), n.Name("i"))])
    outer = n.For(n.Name("t"), n.Const(0), n.Const(10), n.Const(1),
                  [n.Assign(n.Name("r"), n.Name("s")), inner])
    function = n.Function("f", [], [n.Assign(n.Name("s"), n.Const(0)), outer, n.Return(n.Name("r"))])
    live = live_out_of_loops(function)
    assert "s" in live[id(inner)]  # read by the next iteration of the outer loop
    assert live[id(outer)] == {"r"}
