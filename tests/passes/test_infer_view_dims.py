"""infer-view-dims: ranks of views through the call graph, explicit subviews at call sites, conflicts."""

from __future__ import annotations

import doctest
import textwrap

import pytest

import kpc.passes.infer_view_dims as infer_view_dims_module
from kpc.frontend import parse_module
from kpc.ir import nodes as n
from kpc.ir.diagnostics import KpcError
from kpc.ir.printer import format_function
from kpc.ir.types import FLOAT64, ArrayType
from kpc.ir.verifier import verify
from kpc.passes.manager import PassContext, run_pipeline

HEADER = "import numpy as np\nfrom numba import njit, prange\n\n"


def load(source: str, signatures=None):
    return parse_module(HEADER + textwrap.dedent(source), "views.py", signatures=signatures, strict=True)


def run(module, passes=("infer-types", "infer-view-dims")):
    run_pipeline(module, PassContext(verify=True), list(passes), verifier=verify)
    return module


LENNARD_JONES = """
    @njit
    def distance(atom1, atom2):
        dx = atom2[0] - atom1[0]
        dy = atom2[1] - atom1[1]
        return (dx * dx + dy * dy) ** 0.5

    @njit(parallel=True)
    def potential(cluster):
        energy = 0.0
        for i in prange(len(cluster) - 1):
            for j in range(i + 1, len(cluster)):
                energy += distance(cluster[i], cluster[j])
        return energy
"""


def test_module_docstring_example():
    result = doctest.testmod(infer_view_dims_module)
    assert result.attempted > 0 and result.failed == 0


def test_rows_passed_to_helpers_become_explicit_subviews():
    module = run(load(LENNARD_JONES), ["infer-types"])
    before = format_function(module.functions["potential"])
    assert "call @distance(cluster[i], cluster[j])" in before
    run(module, ["infer-view-dims"])
    after = format_function(module.functions["potential"])
    assert "call @distance(cluster[i, :], cluster[j, :])" in after
    changed = [(b, a) for b, a in zip(before.splitlines(), after.splitlines()) if b != a]
    assert changed == [("      energy += call @distance(cluster[i], cluster[j])",
                        "      energy += call @distance(cluster[i, :], cluster[j, :])")]


def test_generic_rank_comes_from_the_callee():
    module = run(load(LENNARD_JONES))
    potential = module.functions["potential"]
    assert potential.params[0].type == ArrayType(FLOAT64, 2)
    assert "rank 2: cluster[i] passed to @distance as atom1, which is at least 1-D" in potential.assumptions[0]
    assert module.functions["distance"].params[0].type == ArrayType(FLOAT64, 1)


def test_typed_mode_keeps_layouts_of_rows():
    module = run(load(LENNARD_JONES, signatures={"potential": "(f8[:, ::1],)"}))
    assert str(module.functions["distance"].params[0].type) == "f64[:] C"
    assert not module.functions["potential"].assumptions


def test_ranks_flow_through_locals_and_three_levels_of_calls():
    module = run(load("""
        @njit
        def first(item):
            return item[0]

        @njit
        def plane(p):
            s = 0.0
            for i in range(p.shape[0]):
                row = p[i]
                s += first(row)
            return s

        @njit
        def volume(v):
            s = 0.0
            for k in range(v.shape[0]):
                s += plane(v[k])
            return s
    """))
    assert str(module.functions["volume"].params[0].type) == "f64[:, :, :]"
    text = format_function(module.functions["volume"])
    assert "call @plane(v[k, :, :])" in text
    assert "row: f64[:] = p[i, :]" in format_function(module.functions["plane"])


def _generic_types(source: str, kernel: str) -> list:
    return [str(p.type) for p in run(load(source)).functions[kernel].params]


def test_a_product_that_must_be_an_array_is_matrix_vector():
    assert _generic_types("""
        @njit
        def project_back(A, x):
            return np.dot(A.T, np.dot(A, x))
    """, "project_back") == ["f64[:, :]", "f64[:]"]
    assert _generic_types("""
        @njit
        def normal_equations(A, b):
            return (A.T @ (A @ b)) - b
    """, "normal_equations") == ["f64[:, :]", "f64[:]"]


def test_names_inside_an_elementwise_product_operand_become_arrays():
    source = """
        @njit
        def step(Y, X, w):
            return np.dot((1.0 / (1.0 + np.exp(-Y * np.dot(X, w))) - 1.0) * Y, X)
    """
    assert _generic_types(source, "step") == ["f64[:]", "f64[:, :]", "f64[:]"]


def test_a_scalar_factor_of_a_known_array_stays_a_scalar():
    assert _generic_types("""
        @njit
        def scaled_dot(alpha, x, y):
            n = x.shape[0]
            return np.dot(alpha * x, y) + n
    """, "scaled_dot") == ["f64", "f64[:]", "f64[:]"]


def test_a_name_updated_in_place_with_an_array_takes_its_rank():
    module = run(load("""
        @njit
        def rank1_update(A, x, y, alpha):
            A += alpha * np.outer(x, y)

        @njit
        def accumulate(acc, B, x):
            acc -= np.ones((3, 4)) * B[0, 0] + x
    """))
    rank1 = module.functions["rank1_update"]
    assert [str(p.type) for p in rank1.params] == ["f64[:, :]", "f64[:]", "f64[:]", "f64"]
    assert "rank 2: A += alpha * np.outer(x, y) updates it with a 2-D array" in rank1.assumptions[0]
    assert [str(p.type) for p in module.functions["accumulate"].params] == ["f64[:, :]", "f64[:, :]", "f64"]


def test_a_callee_that_needs_a_least_rank_takes_arguments_of_more_dimensions():
    # head(a) of a 2-D a is a row, head(a[i]) an element: Numba types head once per call, and
    # so does kpc; the guess for a is the least rank both calls need (2), not a conflict.
    module = run(load("""
        @njit
        def head(v):
            return v[0]

        @njit
        def both(a, i):
            return head(a) + head(a[i])
    """))
    assert "both" in module.functions and "both" not in module.rejected
    assert str(module.functions["both"].params[0].type) == "f64[:, :]"
    assert "which is at least 1-D" in module.functions["both"].assumptions[0]


def test_conflicting_uses_name_both_sites():
    module = run(load("""
        @njit
        def head(v):
            return v.shape[0]

        @njit
        def both(a, i):
            n, m = a.shape
            return head(a[i, 0]) + n
    """))
    assert list(module.functions) == ["head"], "the generic kernel with conflicting uses stays Numba"
    diagnostic = module.rejected["both"].diagnostic
    assert diagnostic.construct == "rank conflict"
    assert "conflicting ranks for 'a'" in diagnostic.message
    assert "a[i, 0] passed to @head as v, which is at least 1-D" in diagnostic.format()
    assert "unpacked as 2 dimensions" in diagnostic.format()


def test_call_sites_passing_two_ranks_get_a_copy_of_the_callee_each():
    module = run(load("""
        @njit
        def head(v):
            return v[0]

        @njit
        def both(a, b):
            return head(a) + head(b)[0]
    """, signatures={"both": "(f8[:, :], f8[:, :, :])"}))
    assert {name: str(f.params[0].type) for name, f in module.functions.items() if name != "both"} == {
        "head": "f64[:, :]", "head_2": "f64[:, :, :]"}


def test_checker_reports_an_argument_that_does_not_match_the_parameter():
    module = run(load("""
        @njit
        def head(v):
            return v[0]

        @njit
        def caller(a):
            return head(a)
    """, signatures={"caller": "(f8[:],)"}), ["infer-types"])
    module.functions["head"].params[0].type = ArrayType(FLOAT64, 2)
    with pytest.raises(KpcError) as info:
        run(module, ["infer-view-dims"])
    assert "does not match parameter 'v: f64[:, :]' of 'head'" in str(info.value)
    assert info.value.diagnostic.loc.line == 11


def test_only_subviews_get_trailing_slices():
    module = run(load("""
        @njit
        def f(a, i):
            element = a[i, 0]
            column = a[:, 0]
            row = a[i]
            expanded = a[i][:, None]
            return element + column[0] + row[0] + expanded[0, 0]
    """, signatures={"f": "(f8[:, :], i8)"}))
    indices = {str(s.target): str(s.value) for s in module.functions["f"].body if isinstance(s, n.Assign)}
    assert indices == {"element": "a[i, 0]", "column": "a[:, 0]", "row": "a[i, :]",
                       "expanded": "a[i, :, None]"}


def test_a_guess_that_contradicts_a_fact_is_dropped():
    module = run(load("""
        @njit
        def total(v):
            s = 0.0
            for k in range(v.shape[0]):
                s += v[k]
            return s

        @njit
        def f(A, x):
            n, = A.shape
            return np.dot(np.dot(A, x), x) + total(A) + n
    """))
    # A is 1-D by its unpacking: the product guess (A a matrix) is dropped, and typing says what is wrong.
    assert "np.dot/@ needs two arrays" in module.rejected["f"].diagnostic.message