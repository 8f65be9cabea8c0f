"""lower-numpy broadcasts by run-time extents, as NumPy does: an operand axis of extent 1
stretches unless its extent is known at compile time to be something else.

The lowered IR of ``x - m`` (two 2-D parameters) and of a store ``out[:] = x - m`` is
pinned below; the same functions then run in the reference interpreter
(``lower_numpy_eval``) for broadcastable and incompatible shapes, against NumPy.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from kpc.ir.printer import format_function
from kpc.passes.lower_numpy import array_level_nodes, lower_function
from lower_numpy_eval import run
from lower_numpy_source import typed_function

SUBTRACT = """
    def subtract(x, m):
        return x - m
"""

SUBTRACT_BEFORE = """
func @subtract(x: f64[:, :] C, m: f64[:, :] C) -> f64[:, :] C   role=entry
  return x - m
"""

# One check of both shapes, the result extents, and per operand axis a broadcast
# stride (0 where that axis has extent 1 at run time): nothing is compared per element.
SUBTRACT_AFTER = """
func @subtract(x: f64[:, :] C, m: f64[:, :] C) -> f64[:, :] C   role=entry
  broadcast_operands((x.shape[0], x.shape[1]), (m.shape[0], m.shape[1]))
  ext0: i64 = m.shape[0] if x.shape[0] == 1 else x.shape[0]
  ext1: i64 = m.shape[1] if x.shape[1] == 1 else x.shape[1]
  bs0: i64 = 0 if x.shape[0] == 1 else 1
  bs1: i64 = 0 if x.shape[1] == 1 else 1
  bs2: i64 = 0 if m.shape[0] == 1 else 1
  bs3: i64 = 0 if m.shape[1] == 1 else 1
  tmp0: f64[:, :] C = np.empty((ext0, ext1), dtype=np.float64)
  if bs0 == 1 and bs1 == 1 and bs2 == 1 and bs3 == 1:
    for i2: i64 in range(0, ext0):
      for i3: i64 in range(0, ext1):
        tmp0[i2, i3] = x[i2, i3] - m[i2, i3]
  else:
    for i0: i64 in range(0, ext0):
      for i1: i64 in range(0, ext1):
        tmp0[i0, i1] = x[i0 * bs0, i1 * bs1] - m[i0 * bs2, i1 * bs3]
  return tmp0
"""

STORE = """
    def store(x, m, out):
        out[:] = x - m
"""

# The stored shape does not stretch: the loops run over it and the operands broadcast
# into it directly (no result extents); the check says so (``broadcast_into``).
STORE_AFTER = """
func @store(x: f64[:, :] C, m: f64[:] C, out: f64[:, :] C) -> none   role=entry
  broadcast_into((out.shape[0], out.shape[1]), (x.shape[0], x.shape[1]), (m.shape[0],))
  bs0: i64 = 0 if x.shape[0] == 1 else 1
  bs1: i64 = 0 if x.shape[1] == 1 else 1
  bs2: i64 = 0 if m.shape[0] == 1 else 1
  if bs0 == 1 and bs1 == 1 and bs2 == 1:
    for i2: i64 in range(0, out.shape[0]):
      for i3: i64 in range(0, out.shape[1]):
        out[i2, i3] = x[i2, i3] - m[i3]
  else:
    for i0: i64 in range(0, out.shape[0]):
      for i1: i64 in range(0, out.shape[1]):
        out[i0, i1] = x[i0 * bs0, i1 * bs1] - m[i1 * bs2]
"""


def lowered_text(source: str, **types) -> tuple:
    function = typed_function(source, **types)
    before = format_function(function)
    lower_function(function)
    assert array_level_nodes(function) == []
    return function, before, format_function(function)


def test_subtract_before_and_after():
    _, before, after = lowered_text(SUBTRACT, x="f64[:, :]", m="f64[:, :]")
    assert before == SUBTRACT_BEFORE.strip()
    assert after == SUBTRACT_AFTER.strip()


def test_store_after():
    _, _, after = lowered_text(STORE, x="f64[:, :]", m="f64[:]", out="f64[:, :]")
    assert after == STORE_AFTER.strip()


def test_same_expression_extents_need_no_check():
    """Slices of one array (``x[1:] - x[:-1]``) have the same extent expression: no check."""
    _, _, after = lowered_text("""
        def diff(x):
            return x[1:] - x[:-1]
    """, x="f64[:]")
    assert "broadcast" not in after and "bs0" not in after


def test_a_stencil_shares_one_check_and_one_stride_per_axis():
    _, _, after = lowered_text("""
        def smooth(a, b):
            b[1:-1] = a[:-2] + a[1:-1] + a[2:]
    """, a="f64[:]", b="f64[:]")
    assert after.count("broadcast_into") == 1 and after.count("bs0: i64") == 1
    assert "b[i0 + 1] = a[i0 * bs0] + a[i0 * bs0 + 1] + a[i0 * bs0 + 2]" in after


@pytest.mark.parametrize("xs,ms", [((3, 5), (3, 1)), ((3, 5), (1, 5)), ((1, 5), (3, 1)),
                                   ((3, 1), (1, 1)), ((0, 5), (1, 5)), ((3, 5), (3, 5))])
def test_subtract_broadcasts_like_numpy(xs, ms):
    function, _, _ = lowered_text(SUBTRACT, x="f64[:, :]", m="f64[:, :]")
    rng = np.random.default_rng(0)
    x, m = rng.random(xs), rng.random(ms)
    np.testing.assert_array_equal(run(function, x, m), x - m)


@pytest.mark.parametrize("xs,ms", [((3, 5), (4, 5)), ((3, 5), (3, 2))])
def test_incompatible_shapes_raise_value_error(xs, ms):
    function, _, _ = lowered_text(SUBTRACT, x="f64[:, :]", m="f64[:, :]")
    with pytest.raises(ValueError):
        run(function, np.ones(xs), np.ones(ms))


@pytest.mark.parametrize("xs,ms,outs", [((3, 5), (5,), (3, 5)), ((3, 1), (1,), (3, 5)), ((1, 5), (5,), (4, 5))])
def test_store_broadcasts_into_the_stored_shape(xs, ms, outs):
    function, _, _ = lowered_text(STORE, x="f64[:, :]", m="f64[:]", out="f64[:, :]")
    rng = np.random.default_rng(1)
    x, m, out = rng.random(xs), rng.random(ms), np.zeros(outs)
    run(function, x, m, out)
    np.testing.assert_array_equal(out, np.broadcast_to(x - m, outs))


def test_store_does_not_stretch_the_stored_array():
    function, _, _ = lowered_text(STORE, x="f64[:, :]", m="f64[:]", out="f64[:, :]")
    out = np.zeros((3, 1))
    with pytest.raises(ValueError):
        run(function, np.ones((3, 5)), np.ones(5), out)
    assert not out.any()


def test_in_place_update_broadcasts_its_operand():
    function, _, after = lowered_text(textwrap.dedent("""
        def update(a, b):
            a += b
    """), a="f64[:, :]", b="f64[:, :]")
    assert "a[i0, i1] += b[i0 * bs0, i1 * bs1]" in after
    a, b = np.ones((3, 4)), np.arange(4.0).reshape(1, 4)
    run(function, a, b)
    np.testing.assert_array_equal(a, 1.0 + b + np.zeros((3, 4)))
