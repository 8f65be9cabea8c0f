"""choose-host-forms: which regions host spaces run as element copies or chunked reductions, and
what the report says when a candidate keeps the plain launch."""

import doctest

import pytest
from source_ir import run
from test_pass_examples import EXAMPLES

from kpc.ir import nodes as n
from kpc.ir.printer import format_function
from kpc.passes import choose_host_forms
from kpc.passes.manager import run_pipeline

# the pass docstring's example (run by test_pass_examples.py)
_, COPY_SUM_TYPES, COPY_SUM = EXAMPLES["choose-host-forms"]


def test_module_doctests():
    result = doctest.testmod(choose_host_forms)
    assert result.failed == 0 and result.attempted > 0


def regions(source: str, signature: str):
    module, _ = run(source, {"k": signature})
    return [s for s in n.walk(module.functions["k"]) if isinstance(s, n.For) and s.parallel is not None]


COPY = """
@njit(parallel=True)
def k(a, c):
    for i in prange(a.shape[0]):
        c[i] = a[i]
"""


@pytest.mark.parametrize("signature, why", [
    ("(f8[:], f8[::1])", "no element copy: a is f64[:], not a C-contiguous 1-D array"),
    ("(f4[::1], f8[::1])", "no element copy: a (f32) converts to c (f64)"),
])
def test_copies_that_keep_the_loop_say_why(signature, why):
    (region,) = regions(COPY, signature)
    assert region.parallel.host_form == "" and region.parallel.reason.endswith(why)


def test_a_copy_into_the_same_array_or_with_arithmetic_is_no_element_copy():
    (region,) = regions(COPY.replace("c[i] = a[i]", "a[i] = a[i]"), "(f8[::1], f8[::1])")
    assert region.parallel.host_form == "" and "no element copy: a copied onto itself" in region.parallel.reason
    (region,) = regions(COPY.replace("c[i] = a[i]", "c[i] = 2.0 * a[i]"), "(f8[::1], f8[::1])")
    assert region.parallel.host_form == "" and "element copy" not in region.parallel.reason


def test_reductions_with_unequal_or_collapsed_iterations_are_not_chunked():
    (halvings,) = regions("""
        @njit(parallel=True)
        def k(x):
            n = 0
            for i in prange(x.shape[0]):
                v = x[i]
                while v > 1.0:
                    v = v / 2.0
                    n += 1
            return n
        """, "(f8[::1],)")
    assert halvings.parallel.host_form == ""
    assert halvings.parallel.reason.endswith("reduction not chunked: dynamic schedule")
    (nest,) = regions("""
        @njit
        def k(x, w):
            s = 0.0
            for i in range(x.shape[0]):
                for j in range(x.shape[1]):
                    s += w * x[i, j] * x[i, j]
            return s
        """, "(f8[:, ::1], f8)")
    assert nest.parallel.policy == "MDRange" and nest.parallel.host_form == ""
    assert "reduction not chunked: an MDRange region" in nest.parallel.reason


def test_the_decision_is_printed_and_taken_again_without_repeating_the_reason():
    module, ctx = run(COPY_SUM, COPY_SUM_TYPES)
    once = format_function(module.functions["copy_sum"], show_decisions=True)
    assert "parallel_for Range host=element-copy i" in once
    assert "parallel_reduce(sum:s) Range host=chunked-reduce i" in once
    assert "# prange; serial below 32768 iterations (~1 operations each); element copy: memmove per thread block " \
           "on host spaces" in once
    run_pipeline(module, ctx, ["choose-host-forms"])
    assert format_function(module.functions["copy_sum"], show_decisions=True) == once
