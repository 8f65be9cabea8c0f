"""The IR verifier: names defined before use, every expression typed, ranks consistent on call edges."""

from __future__ import annotations

import doctest
import os
import sys

import pytest

import kpc.ir.verifier as verifier_module
from kpc.api import load_module
from kpc.ir import nodes as n
from kpc.ir.types import FLOAT64, UNKNOWN, ArrayType
from kpc.ir.verifier import VerificationError, verify

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "frontend"))
from frontend_support import typed  # noqa: E402

SOURCE = """\
from numba import njit

@njit
def helper(row):
    return row[0]

@njit
def f(a, n):
    s = 0.0
    for i in range(n):
        if i > 2:
            t = helper(a[i])
        else:
            t = 1.0
        s += t
    while s > 100.0:
        s -= 1.0
    return s
"""


def module(signatures=("f(f8[:, :], i8)",)):
    return load_module("m.py", source=SOURCE, signatures=list(signatures))


def test_valid_ir_passes_untyped_and_typed():
    m = module()
    verify(m, typed=False)
    verify(typed(m))


def test_use_before_assignment_names_the_node():
    m = module()
    loop = m.functions["f"].body[1]
    loop.body.insert(0, n.ExprStmt(n.Name("late", loc=n.Loc("m.py", 11, 8)), loc=n.Loc("m.py", 11, 8)))
    with pytest.raises(VerificationError) as info:
        verify(m, typed=False)
    assert "name 'late' is used before it is assigned" in str(info.value)
    assert str(info.value).startswith("m.py:11:9: error: IR verification failed in 'f'")


def test_loop_carried_names_are_defined_through_the_back_edge():
    m = load_module("m.py", source="from numba import njit\n\n@njit\ndef f(n):\n    x = 0\n"
                                  "    for i in range(n):\n        if i > 0:\n            x = y\n        y = i\n    return x\n")
    verify(m, typed=False)


def test_untyped_expression_is_reported():
    m = typed(module())
    ret = m.functions["f"].body[-1]
    ret.value.type = UNKNOWN
    with pytest.raises(VerificationError, match="expression s has no type"):
        verify(m)


def test_rank_mismatch_on_a_call_edge_is_reported():
    m = typed(module())
    m.functions["helper"].params[0].type = ArrayType(FLOAT64, 2)
    with pytest.raises(VerificationError, match="does not match parameter 'row: f64\\[:, :\\]' of 'helper'"):
        verify(m)


def test_break_outside_a_loop_and_bad_targets():
    m = module()
    m.functions["f"].body.insert(0, n.Break(loc=n.Loc("m.py", 9, 4)))
    with pytest.raises(VerificationError, match="'break' outside a loop"):
        verify(m, typed=False)
    m = module()
    m.functions["f"].body.insert(0, n.Assign(n.Const(1), n.Const(2), loc=n.Loc("m.py", 9, 4)))
    with pytest.raises(VerificationError, match="cannot assign to Const"):
        verify(m, typed=False)


def test_kernel_call_with_wrong_arity():
    m = module()
    call = next(x for x in n.walk(m.functions["f"]) if isinstance(x, n.Call))
    call.args.append(n.Const(1))
    with pytest.raises(VerificationError, match="'helper' takes 1 arguments, the call passes 2"):
        verify(m, typed=False)


def test_module_docstring_example():
    result = doctest.testmod(verifier_module)
    assert result.attempted > 0 and result.failed == 0
