"""if-convert: which `if` statements become branch-free selects, and which keep their branch."""

import pytest
from source_ir import run

from kpc.ir import nodes as n
from kpc.ir.queries import statements

PASSES = ["parallelize", "recognize-reductions", "infer-dispatch", "simplify-powers", "if-convert"]


def converted(body: str, signature: str) -> list:
    """The selects and the `if` statements left in kernel ``k`` after if-convert."""
    module, _ = run(f"""
        @njit
        def k(a, b, x):
{body}
            return a
        """, {"k": signature}, PASSES)
    stmts = list(statements(module.functions["k"].body))
    selects = [s for s in stmts if isinstance(s, n.Assign) and isinstance(s.value, n.IfExp) and s.value.branchless]
    ifs = [s for s in stmts if isinstance(s, n.If)]
    return [n.format_expr(s.value) for s in selects], len(ifs)


CASES = [
    # two arms assigning cheap integers to one local: a select
    ("if a & 1:\n    a = (a >> 1) ^ b\nelse:\n    a >>= 1", "(i8, i8, f8[:])",
     ["select(a & 1, a >> 1 ^ b, a >> 1)"], 0),
    # one arm, the local assigned before: the other value is the local itself
    ("if a > b:\n    a = a - b", "(i8, i8, f8[:])", ["select(a > b, a - b, a)"], 0),
    ("if b < 0:\n    a += 7", "(i8, i8, f8[:])", ["select(b < 0, a + 7, a)"], 0),
    # values that may raise, read memory or cost more keep their branch
    ("if b != 0:\n    a = a // b", "(i8, i8, f8[:])", [], 1),
    ("if b > 0:\n    a = a + int(x[b])", "(i8, i8, f8[:])", [], 1),
    ("if b > 0:\n    a = a << b", "(i8, i8, f8[:])", [], 1),
    # floats are not selected (no measured gain), nor an arm of two statements
    ("if b > 0:\n    a = a * 0.5", "(f8, i8, f8[:])", [], 1),
    ("if b > 0:\n    a = 1\n    b = 2\nelse:\n    a = 3", "(i8, i8, f8[:])", [], 1),
    # arms assigning different locals
    ("if b > 0:\n    a = 1\nelse:\n    b = 1", "(i8, i8, f8[:])", [], 1),
]


@pytest.mark.parametrize("body, signature, selects, ifs", CASES, ids=[c[0].split("\n")[1].strip() for c in CASES])
def test_if_convert(body, signature, selects, ifs):
    text = "\n".join(" " * 12 + line for line in body.splitlines())
    assert converted(text, signature) == (selects, ifs)


def test_a_local_first_assigned_in_the_arm_keeps_its_branch():
    module, _ = run("""
        @njit
        def k(b):
            if b > 0:
                c = b + 1
            else:
                c = 0
            if b > 1:
                d = b - 1
            return c
        """, {"k": "(i8,)"}, PASSES)
    body = module.functions["k"].body
    assert n.format_expr(body[0].value) == "select(b > 0, b + 1, 0)"
    assert isinstance(body[1], n.If)  # d has no value before the `if`


def test_a_reduction_variable_keeps_its_branch():
    module, _ = run("""
        @njit(parallel=True)
        def k(x):
            odd = 0
            for i in prange(x.shape[0]):
                if x[i] & 1:
                    odd += 1
            return odd
        """, {"k": "(i8[:],)"}, PASSES)
    assert any(isinstance(s, n.If) for s in statements(module.functions["k"].body))
