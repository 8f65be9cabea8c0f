"""lower-numpy on the Kokkos target (``flat_reads``): reshapes read C-contiguous arrays at flat
positions instead of splitting each position with ``//`` and ``%``; ``np.kron`` is written block by
block; a name rebound to a transpose of itself is read through; a sum along a leading axis adds
rows in memory order. Each kernel is lowered, run by the
reference interpreter and compared with NumPy."""

from __future__ import annotations

import textwrap

import numpy as np

from kpc.frontend import parse_module
from kpc.ir import nodes as n
from kpc.ir.printer import format_function
from kpc.passes.lower_numpy import array_level_nodes, lower_function
from kpc.passes.manager import PassContext, run_pipeline
from lower_numpy_eval import run
from lower_numpy_source import typed_function

RNG = np.random.default_rng(11)


def check_flat(source: str, types: dict, *args) -> str:
    """Lower ``source`` for the Kokkos target, compare its result with NumPy's on ``args``; the
    lowered IR's text."""
    function = typed_function(source, **types)
    lower_function(function, products=False, flat_reads=True)
    assert array_level_nodes(function) == []
    namespace = {"np": np}
    exec(textwrap.dedent(source), namespace)
    expected = namespace[function.name](*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = run(function, *[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-12)
    return format_function(function)


def splits(text: str) -> int:
    """Modulos in a lowered function: splitting a flat position into indices takes one per axis."""
    return text.count(" % ")


def test_reshape_of_a_contiguous_parameter_reads_flat_positions():
    text = check_flat("""
        def split(x, b):
            c, h, w = x.shape
            return x.reshape(c, h // b, b, w // b, b) * 2.0
    """, dict(x="f64[:, :, :] C", b="i64"), RNG.standard_normal((2, 4, 6)), 2)
    assert "flat_element(x, (((i0 * (h // b) + i1) * b + i2) * (w // b) + i3) * b + i4)" in text
    assert splits(text) == 0


def test_transpose_rebinding_is_read_through_and_the_copy_read_flat():
    text = check_flat("""
        def space_to_depth(x, b):
            c, h, w = x.shape
            y = x.reshape(c, h // b, b, w // b, b)
            y = y.transpose((2, 4, 0, 1, 3))
            return np.ascontiguousarray(y).reshape(c * b * b, h // b, w // b)
    """, dict(x="f64[:, :, :] C", b="i64"), RNG.standard_normal((3, 4, 6)), 2)
    # One copy in the transposed order, one read of it at flat positions; no division per element.
    assert text.count("np.empty(") == 2 and splits(text) == 0
    assert "y_1" not in text


def test_reshape_with_minus_one_computes_its_extent_once():
    text = check_flat("""
        def rows(t):
            x = t.reshape(t.shape[0], -1)
            return x / (x * x).sum(axis=1).reshape(-1, 1)
    """, dict(t="f64[:, :, :] C"), RNG.standard_normal((3, 2, 5)))
    assert "ext0: i64 = 0 if known0 == 0 else" in text and splits(text) == 0


def test_ravel_of_a_strided_slice_copies_it_first():
    text = check_flat("""
        def tail(a, k):
            return a[:, k:].ravel() + 1.0
    """, dict(a="f64[:, :] C", k="i64"), RNG.standard_normal((4, 5)), 2)
    assert splits(text) == 0 and "flat_element(tmp0, " in text


def test_kron_is_written_block_by_block():
    m = parse_module(textwrap.dedent("""
        from numba import njit
        import numpy as np
        @njit("f8[:, :](f8[:, :], f8[:, :])")
        def kron(a, b):
            return np.kron(a, b)
    """), "m.py")
    run_pipeline(m, PassContext(), ["infer-types"])
    function = m.functions["kron"]
    lower_function(function, flat_reads=True)
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((4, 2))
    np.testing.assert_allclose(run(function, a, b), np.kron(a, b), rtol=1e-15)
    text = format_function(function)
    assert "tmp0[i0 * brows0 + i1, i2 * bcols0 + i3] = a[i0, i2] * b[i1, i3]" in text
    assert splits(text) == 0


def test_pykokkos_target_keeps_the_split_positions():
    function = typed_function("""
        def flat(x):
            return x.ravel() + 1.0
    """, x="f64[:, :] C")
    lower_function(function)
    text = format_function(function)
    assert "flat_element" not in text and " % " in text
    assert not any(isinstance(node, n.Call) and node.func == "flat_element" for node in n.walk(function))


def test_sum_along_a_leading_axis_adds_rows_in_memory_order():
    function = typed_function("""
        def centred(x):
            return x - x.sum(axis=0) / x.shape[0] + x.mean(axis=0)
    """, x="f64[:, :] C")
    lower_function(function, products=True, flat_reads=True)
    x = RNG.standard_normal((6, 3))
    np.testing.assert_allclose(run(function, x.copy()), x - x.sum(axis=0) / 6 + x.mean(axis=0), rtol=1e-14)
    text = format_function(function)
    # Each column's slot starts at 0 and gets the rows added in order, the row index outermost.
    assert "tmp0[i2] += x[i1, i2]" in text and "tmp1[i5] += x[i4, i5]" in text
    assert "tmp1[i6] = tmp1[i6] / f64(x.shape[0])" in text


def test_sum_along_a_leading_axis_of_a_fortran_array_reads_each_column():
    function = typed_function("""
        def colsum(x):
            return x.sum(axis=0)
    """, x="f64[:, :] F")
    lower_function(function, products=True, flat_reads=True)
    assert "] += x[" not in format_function(function)
    x = np.asfortranarray(RNG.standard_normal((4, 3)))
    np.testing.assert_allclose(run(function, x), x.sum(axis=0), rtol=1e-14)
