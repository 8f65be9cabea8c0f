"""simplify-powers: which powers become products or square roots, with which types."""

import math
import random

import numba
import pytest
from source_ir import run

from kpc.ir import nodes as n
from kpc.ir.nodes import format_expr

CASES = [
    ("x ** 2", "(f8,)", "x * x", "f64"),
    ("x ** 3", "(f8,)", "x * (x * x)", "f64"),
    ("x ** 6", "(f8,)", "x * x * (x * x * (x * x))", "f64"),
    ("x ** 8", "(f8,)", "x * x * (x * x) * (x * x * (x * x))", "f64"),
    ("x ** 2.0", "(f8,)", "x * x", "f64"),
    ("x ** 1", "(f8,)", "x", "f64"),
    ("x ** 0", "(f8,)", "1.0", "f64"),
    ("x ** -2", "(f8,)", "1.0 / (x * x)", "f64"),
    ("x ** 0.5", "(f8,)", "math.sqrt(x)", "f64"),
    ("x ** -0.5", "(f8,)", "1.0 / math.sqrt(x)", "f64"),
    ("x ** 17", "(f8,)", "x ** 17", "f64"),
    ("x ** 1.5", "(f8,)", "x ** 1.5", "f64"),
    ("x ** 2", "(i8,)", "x * x", "i64"),
    ("x ** -1", "(i8,)", "x ** (-1)", "i64"),
    ("2 ** 10", "(i8,)", "1024", "i64"),
    ("math.pow(x, 3)", "(f8,)", "x * (x * x)", "f64"),
    ("x ** 2", "(f4,)", "x * x", "f32"),
]


@pytest.mark.parametrize("expr, signature, expected, ty", CASES, ids=[c[0] + " " + c[1] for c in CASES])
def test_power(expr, signature, expected, ty):
    module, _ = run(f"""
        @njit
        def k(x):
            y = {expr}
            return y
        """, {"k": signature}, ["simplify-powers"])
    assign = module.functions["k"].body[0]
    assert format_expr(assign.value) == expected
    assert str(assign.value.type) == ty


def test_integer_base_of_a_square_root_is_cast():
    module, _ = run("""
        @njit
        def k(i):
            return i ** 0.5
        """, {"k": "(i8,)"}, ["simplify-powers"])
    assert format_expr(module.functions["k"].body[0].value) == "math.sqrt(f64(i))"


def test_a_base_with_a_call_is_computed_once_into_a_local():
    module, _ = run("""
        @njit
        def f(x):
            return 2.0 * x

        @njit
        def k(x):
            y = f(x) ** 4
            return y
        """, {"k": "(f8,)"}, ["simplify-powers"])
    function = module.functions["k"]
    assert [f"{s.target.id} = {s.value}" for s in function.body[:2]] == [
        "y_base = call @f(x)", "y = y_base * y_base * (y_base * y_base)"]
    assert str(function.locals["y_base"]) == "f64"


def test_conditional_powers_are_not_hoisted():
    module, _ = run("""
        @njit
        def f(x):
            return 2.0 * x

        @njit
        def k(x, c):
            return x if c else f(x) ** 2 + (x + 1.0) ** 2
        """, {"k": "(f8, b1)"}, ["simplify-powers"])
    assert str(module.functions["k"].body[0].value) == "x if c else call @f(x) ** 2 + (x + 1.0) * (x + 1.0)"


def test_locals_introduced_in_a_region_are_privates():
    module, _ = run("""
        @njit(parallel=True)
        def k(x, y):
            for i in prange(x.shape[0]):
                y[i] = (x[i] + 1.0) ** 3
        """, {"k": "(f8[:], f8[:])"}, ["parallelize", "simplify-powers"])
    loop = module.functions["k"].body[0]
    assert loop.parallel.privates == ["base"]
    assert [str(s.value) for s in loop.body] == ["x[i] + 1.0", "base * (base * base)"]


@numba.njit
def _numba_powers(x):
    return x ** 3, x ** 5, x ** 6, x ** 7, x ** 8, x ** -3, x ** 12, x ** 16


def test_products_are_bit_identical_to_numba():
    module, _ = run("""
        @njit
        def k(x):
            return (x ** 3, x ** 5, x ** 6, x ** 7, x ** 8, x ** -3, x ** 12, x ** 16)
        """, {"k": "(f8,)"}, ["simplify-powers"])
    rewritten = [format_expr(e) for e in module.functions["k"].body[0].value.elements]
    rng = random.Random(4)
    for _ in range(2000):
        x = rng.uniform(-3.0, 3.0) * 10.0 ** rng.randint(-30, 30)
        ours = tuple(eval(text, {"x": x, "math": math}) for text in rewritten)
        assert ours == _numba_powers(x)


def test_no_power_is_left_in_the_expression_tree_of_lennard_jones():
    module, _ = run("""
        @njit
        def lj(r):
            sr6 = (1.0 / r) ** 6
            return 4.0 * (sr6 * sr6 - sr6)
        """, {"lj": "(f8,)"}, ["simplify-powers"])
    assert not [e for e in n.walk(module.functions["lj"]) if isinstance(e, n.BinOp) and e.op == "**"]
