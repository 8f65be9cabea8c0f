"""error-model: which divisions raise ZeroDivisionError (the docstring example runs here)."""

from __future__ import annotations

import doctest

from source_ir import load

import kpc.passes.error_model as error_model_module
from kpc.ir import nodes as n
from kpc.ir.nodes import format_expr
from kpc.passes.manager import PassContext, run_pipeline


def test_module_docstring_example():
    result = doctest.testmod(error_model_module)
    assert result.attempted > 0 and result.failed == 0


def checked(source: str, signatures: dict) -> dict:
    module = load(source, signatures)
    run_pipeline(module, PassContext(), ["error-model"])
    return {name: [(_text(node), node.checked) for node in n.walk(f) if isinstance(node, (n.BinOp, n.AugAssign))
                   and node.op in ("/", "//", "%")] for name, f in module.functions.items()}


def _text(node) -> str:
    if isinstance(node, n.AugAssign):
        return f"{format_expr(node.target)} {node.op}= {format_expr(node.value)}"
    return format_expr(node)


def test_prange_bodies_of_parallel_kernels_follow_numpy_like_numba_parfors():
    marks = checked("""
        @njit(parallel=True)
        def scaled(x, d):
            t = x[0] / d[0]
            for i in prange(x.shape[0]):
                x[i] = x[i] / d[i] + t
            for i in range(x.shape[0]):
                x[i] %= d[i]
        """, {"scaled": "(f8[:], f8[:])"})
    assert sorted(marks["scaled"], key=lambda m: m[0]) == [
        ("x[0] / d[0]", True), ("x[i] %= d[i]", True), ("x[i] / d[i]", False)]
