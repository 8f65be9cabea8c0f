"""Module constants folded from expressions (read, never run) and loops over tuples of constants."""

from __future__ import annotations

import ast
import math

import numpy as np
import pytest

from kpc.frontend.scope import ModuleScope
from kpc.ir import nodes as n
from kpc.ir.printer import format_function
from frontend_support import typed


def constants(source: str) -> dict:
    return ModuleScope.from_tree(ast.parse(source)).constants


def test_constants_have_the_values_and_types_the_module_gets():
    found = constants(
        "import math\nimport numpy as np\n"
        "WR, WG, WB = 0.299, 0.587, 0.114\n"
        "SQRT_2PI = np.sqrt(2.0 * np.pi)\n"
        "INV3 = 1.0 / 3.0\n"
        "N = 2 ** 10\n"
        "EPS = np.finfo(np.float64).eps\n"
        "TWO_PI = 2 * math.pi\n"
        "HALF = TWO_PI / 2 + N // 4\n"
        "K = int(N * 0.75) + max(1, 2) + abs(-3) + round(2.5)\n"
        "(A, B), C = (1, 2.5), np.abs(-4)\n"
        "E = np.exp(1.0)\n")
    expected = {"WR": 0.299, "WG": 0.587, "WB": 0.114, "SQRT_2PI": float(np.sqrt(2.0 * np.pi)),
                "INV3": 1.0 / 3.0, "N": 1024, "EPS": float(np.finfo(np.float64).eps), "TWO_PI": 2 * math.pi,
                "HALF": math.pi + 256, "K": 768 + 2 + 3 + 2, "A": 1, "B": 2.5, "C": 4, "E": float(np.exp(1.0))}
    assert {k: found[k] for k in expected} == expected
    assert {k: type(found[k]) for k in expected} == {k: type(v) for k, v in expected.items()}


@pytest.mark.parametrize("statement", [
    "X = np.float32(0.5)",  # Numba freezes a float32, not a float64
    "X = np.finfo(np.float32).eps",
    "X = 2 ** 64",  # beyond int64
    "X = np.zeros(3)",
    "X = [1, 2]",
    "X, *Y = 1, 2, 3",
    "X, Y = 1, 2, 3",
    "X = np.sqrt(True)",  # float16 in NumPy
    "X = len('ab')",
])
def test_values_that_are_not_numbers_numba_freezes_stay_variables(statement):
    scope = ModuleScope.from_tree(ast.parse(f"import numpy as np\n{statement}"))
    assert "X" not in scope.constants and "X" in scope.variables


def test_kernels_freeze_folded_constants(load):
    module = typed(load("""
        import numpy as np
        from numba import njit

        WR, WG, WB = 0.299, 0.587, 0.114
        SQRT_2PI = np.sqrt(2.0 * np.pi)

        @njit
        def f(x):
            return WR * x + WG + WB, np.exp(-x) / SQRT_2PI
    """, signatures=["f(float64)"]))
    consts = {(g.name, g.value) for g in n.walk(module.functions["f"]) if isinstance(g, n.GlobalConst)}
    assert consts == {("WR", 0.299), ("WG", 0.587), ("WB", 0.114), ("SQRT_2PI", float(np.sqrt(2.0 * np.pi)))}


def test_a_constant_that_cannot_be_folded_is_refused_as_before(load):
    module = load("""
        import numpy as np
        from numba import njit

        W = np.ones(3)

        @njit
        def f(x):
            return x * W[0]
    """)
    diagnostic = module.rejected["f"].diagnostic
    assert diagnostic.construct == "module-level variable"
    assert "W is not a numeric constant at module level" in diagnostic.message


def test_loop_over_a_tuple_runs_over_its_positions(load):
    module = typed(load("""
        from numba import njit

        W = (0.25, 0.5, 0.25)

        @njit
        def f(a):
            s = 0.0
            for c in (0, 1):
                if c == 1:
                    break
                s += a[c]
            for w in W:
                s += w
            return s, c
    """, signatures=["f(float64[:])"]))
    text = format_function(module.functions["f"])
    assert "for c_index: i64 in range(0, 2):\n    c: i64 = 0 if c_index == 0 else 1\n    if c == 1:\n      break" in text
    assert "for w_index: i64 in range(0, 3):\n    w: f64 = 0.25 if w_index == 0 else 0.5 if w_index == 1 else 0.25" \
        in text
    assert str(module.functions["f"].return_type) == "(f64, i64)"


def test_a_loop_over_a_table_of_tuples_selects_each_name_per_row(load):
    module = typed(load("""
        from numba import njit

        STEPS = ((1, 0.5), (-2, 0.25))

        @njit
        def f(a):
            s = 0.0
            for di, dj, w in ((-1, 0, -1.0), (0, 1, 4.0)):
                s += w * (di + dj)
            for step, w in STEPS:
                s += w * step
            return s
    """, signatures=["f(float64[:])"]))
    text = format_function(module.functions["f"])
    assert ("for di_index: i64 in range(0, 2):\n    di: i64 = -1 if di_index == 0 else 0\n"
            "    dj: i64 = 0 if di_index == 0 else 1\n    w: f64 = -1.0 if di_index == 0 else 4.0") in text
    assert "step: i64 = 1 if step_index == 0 else -2" in text


@pytest.mark.parametrize("loop, detail", [
    ("for c in (0, 1.5):", "mixes float and int"),
    ("for c in (0, x):", "for ... in (0, x)"),
    ("for c, d in ((0, 1), (2.5, 3)):", "mixes float and int"),
    ("for c in ((0, 1), (2, 3)):", "c (unpack each inner tuple into 2 names)"),
    ("for c, d in ((0, 1), (2, 3, 4)):", "c, d"),
])
def test_loops_over_tuples_numba_does_not_iterate_are_refused(load, loop, detail):
    module = load(f"""
        from numba import njit

        @njit
        def f(x):
            s = 0.0
            {loop}
                s += 1.0
            return s
    """)
    assert detail in module.rejected["f"].diagnostic.message


def test_a_module_array_of_numbers_is_built_at_the_top_of_each_kernel_that_reads_it(load):
    module = typed(load("""
        import numpy as np
        from numba import njit

        W = np.array([[1, 2], [3, 4]], dtype=np.int32) * 2 + 1

        @njit
        def f(x):
            return x * W[1, 0] + W[0, 1]
    """, signatures=["f(float64)"]))
    first = module.functions["f"].body[0]
    assert isinstance(first, n.Assign) and first.target.id == "W"
    assert str(first.value) == "np.array(((3, 5), (7, 9)), dtype=np.int32)"
    assert str(module.functions["f"].locals["W"]) == "i32[:, :] C"


def test_a_module_array_written_at_module_level_is_refused(load):
    module = load("""
        import numpy as np
        from numba import njit

        W = np.array([1.0, 2.0])
        W[0] = 5.0

        @njit
        def f(x):
            return x * W[0]
    """)
    assert module.rejected["f"].diagnostic.construct == "module-level variable"
