"""lower-numpy: np.round / np.around / np.rint as Numba computes them (half to even, decimals
by scaling), on scalars and arrays, checked against Numba itself."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from kpc.ir import nodes as n
from kpc.ir.printer import format_function
from lower_numpy_eval import run as interpret
from source_ir import run

SOURCE = """
def f(x, a, k):
    return np.round(x), np.round(x, 2), np.round(x, -1), np.round(x, decimals=25), np.rint(x), \\
        np.round(k, -1), np.round(k), np.round(a), np.round(a, 1), np.around(a / 4.0, -1)
"""


def lowered(source: str, signature: str) -> n.Function:
    module, _ = run("\n@njit\n" + source.strip("\n"), {"f": signature}, passes=["lower-numpy"])
    return module.functions["f"]


@pytest.mark.parametrize("x, k", [(2.5, 25), (-2.5, -15), (0.125, 35), (1.005, 5), (1e306, 7), (-0.0, 0)])
def test_scalars_and_arrays_round_as_numba(x, k):
    a = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.25, 0.35, 1e307, np.inf, np.nan])
    function = lowered(SOURCE, "(float64, float64[::1], int64)")
    namespace = {"np": np}
    exec(SOURCE, namespace)
    expected = njit(namespace["f"])(x, a, k)
    got = interpret(function, x, a.copy(), k)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e))
        assert np.asarray(g).dtype == np.asarray(e).dtype


def test_types_follow_numba():
    function = lowered("""
def f(x, k, a):
    return np.round(x), np.round(k, 1), np.round(a, 2)
""", "(float32, int32, float32[::1])")
    assert str(function.return_type) == "(f64, i64, f32[:] C)"


def test_half_to_even_is_rint_and_overflow_keeps_x():
    text = format_function(lowered("""
def f(x):
    return np.round(x), np.round(x, 3)
""", "(float64,)"))
    assert "np.rint(x), x if np.isinf(x * 1000.0) else np.rint(x * 1000.0) / 1000.0" in text


def test_decimals_that_are_not_constant_keep_the_kernel_in_numba():
    module, _ = run("""
@njit
def f(x, d):
    return np.round(x, d)
""", {"f": "(float64, int64)"}, passes=["lower-numpy"])
    assert "decimals that are not a constant integer" in module.rejected["f"].diagnostic.message
