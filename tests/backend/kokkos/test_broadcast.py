"""NumPy broadcasting by run-time extents on the Kokkos target (issue 15).

``x - m`` is compiled once per pair of ranks (1..4 x 1..4: 16 specializations of one
function) and called with every pair of shapes of those ranks whose extents are 1, 2 or
3: the extents vary at run time within a specialization. Broadcastable pairs must give
NumPy's result (and, for the shapes of the bug report, Numba's), the others NumPy's
ValueError. Stores, in-place updates, checks of a parallel loop (hoisted before it, or
inside it) and NPBench's 4-D softmax (which returned 111.9 for 64.0, NaN in
float32, and crashed at 16x16x16x128) run on OpenMP and Serial.
"""

from __future__ import annotations

import importlib.util
import itertools
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from kpc.api import build

KERNELS = Path(__file__).resolve().parent / "broadcast_kernels.py"
EXTENTS = (1, 2, 3)


def array_type(rank: int, dtype: str = "float64") -> str:
    return f"{dtype}[{', '.join([':'] * rank)}]"


SIGNATURES = {
    "subtract": [f"subtract({array_type(rx)}, {array_type(ry)})"
                 for rx in range(1, 5) for ry in range(1, 5)],
    "store_difference": ["store_difference(float64[:, :], float64[:], float64[:, :])"],
    "add_into": ["add_into(float64[:, :], float64[:, :])"],
    "subtract_rows": ["subtract_rows(float64[:, :], float64[:], float64[:, :])"],
    "subtract_prefixes": ["subtract_prefixes(float64[:, :], float64[:], float64[:, :])"],
    "softmax4d": ["softmax4d(float64[:, :, :, ::1])", "softmax4d(float32[:, :, :, ::1])"],
}


def _import(path, name):
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def numba_kernels():
    return _import(KERNELS, "broadcast_kernels_numba")


@pytest.fixture(scope="module", params=["openmp", "serial"])
def kernels(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(f"broadcast_{request.param}")
    result = build(KERNELS, out, signatures=SIGNATURES, space=request.param, strict=True)
    return _import(result.module_path, f"broadcast_kernels_{request.param}")


def shape_text(shape) -> str:
    """A shape as NumPy's broadcast errors print it: ``(3,5)``, ``(4,)``."""
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def broadcastable(a, b) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


@pytest.mark.compile
def test_every_pair_of_shapes_up_to_rank_4(kernels):
    rng = np.random.default_rng(15)
    pairs = raised = 0
    for rx, ry in itertools.product(range(1, 5), repeat=2):
        for xs in itertools.product(EXTENTS, repeat=rx):
            for ms in itertools.product(EXTENTS, repeat=ry):
                x, m = rng.random(xs), rng.random(ms)
                pairs += 1
                if broadcastable(xs, ms):
                    got = kernels.subtract(x, m)
                    assert got.shape == np.broadcast_shapes(xs, ms), f"{xs} - {ms}"
                    np.testing.assert_array_equal(got, x - m, err_msg=f"{xs} - {ms}")
                    continue
                raised += 1
                message = f"operands could not be broadcast together with shapes {shape_text(xs)} {shape_text(ms)}"
                with pytest.raises(ValueError, match=re.escape(message)):
                    kernels.subtract(x, m)
    assert (pairs, raised) == (120 * 120, 120 * 120 - broadcastable_pairs())


def broadcastable_pairs() -> int:
    shapes = [s for r in range(1, 5) for s in itertools.product(EXTENTS, repeat=r)]
    return sum(broadcastable(a, b) for a in shapes for b in shapes)


@pytest.mark.compile
@pytest.mark.parametrize("xs,ms", [((3, 5), (3, 1)), ((3, 5), (1, 5)), ((1, 5), (3, 1)), ((3, 5), (5,)),
                                   ((2, 3, 5), (2, 3, 1)), ((2, 3, 5), (1, 1, 5)), ((2, 1, 5), (2, 3, 1))])
def test_the_reported_shapes_match_numba(kernels, numba_kernels, xs, ms):
    rng = np.random.default_rng(4)
    x, m = rng.random(xs), rng.random(ms)
    np.testing.assert_array_equal(kernels.subtract(x, m), numba_kernels.subtract(x, m))


@pytest.mark.compile
def test_views_broadcast_too(kernels):
    """A column of a 2-D array (strided) against a row view of extent 1."""
    x = np.arange(12.0).reshape(3, 4)
    m = np.arange(8.0).reshape(4, 2)[:1, ::2]
    np.testing.assert_array_equal(kernels.subtract(x[:, 1:], m[:, :1]), x[:, 1:] - m[:, :1])


@pytest.mark.compile
@pytest.mark.parametrize("xs,ms,outs", [((3, 5), (5,), (3, 5)), ((3, 1), (1,), (3, 5)),
                                        ((1, 5), (1,), (4, 5)), ((3, 5), (1,), (3, 5))])
def test_store_broadcasts_into_the_stored_array(kernels, xs, ms, outs):
    rng = np.random.default_rng(1)
    x, m, out = rng.random(xs), rng.random(ms), np.zeros(outs)
    kernels.store_difference(x, m, out)
    np.testing.assert_array_equal(out, np.broadcast_to(x - m, outs))


@pytest.mark.compile
@pytest.mark.parametrize("xs,ms,outs,message", [
    ((3, 5), (4,), (3, 5), "operands could not be broadcast together with shapes (3,5) (4,)"),
    ((3, 5), (5,), (3, 1), "could not broadcast input array from shape (3,5) into shape (3,1)"),
    ((3, 5), (5,), (4, 5), "could not broadcast input array from shape (3,5) into shape (4,5)"),
])
def test_store_of_incompatible_shapes_raises_before_writing(kernels, xs, ms, outs, message):
    out = np.full(outs, 7.0)
    with pytest.raises(ValueError, match=re.escape(message)):
        kernels.store_difference(np.ones(xs), np.ones(ms), out)
    assert (out == 7.0).all()


@pytest.mark.compile
def test_in_place_update_broadcasts_its_operand(kernels):
    a, b = np.ones((3, 4)), np.arange(4.0).reshape(1, 4)
    kernels.add_into(a, b)
    np.testing.assert_array_equal(a, 1.0 + np.broadcast_to(b, (3, 4)))
    with pytest.raises(ValueError, match=re.escape("from shape (3,4) into shape (1,4)")):
        kernels.add_into(np.ones((1, 4)), np.ones((3, 4)))


@pytest.mark.compile
def test_check_of_a_parallel_loop_runs_before_it(kernels):
    """``out[i] = x[i] - m`` in a prange body checks the same shapes in every iteration:
    the check runs once, on the host, before the loop writes anything. (Numba's own
    parallel loops reject an ``m`` of extent 1 here: "Sizes of ... do not match".)"""
    x = np.random.default_rng(2).random((6, 5))
    for m in (np.arange(5.0), np.array([2.5])):
        out = np.zeros((6, 5))
        kernels.subtract_rows(x, m, out)
        np.testing.assert_array_equal(out, x - m)
    out = np.full((6, 5), 7.0)
    with pytest.raises(ValueError, match=re.escape("operands could not be broadcast together with shapes (5,) (4,)")):
        kernels.subtract_rows(x, np.ones(4), out)
    assert (out == 7.0).all()


@pytest.mark.compile
def test_check_inside_a_parallel_loop(kernels):
    """``out[i, :i + 1] = x[i, :i + 1] - m``: the shapes change with ``i``, so the check
    runs in the kernel, which cannot throw; the binding raises the ValueError once the
    kernel returns."""
    x = np.random.default_rng(2).random((6, 5))
    out, expected = np.zeros((6, 5)), np.zeros((6, 5))
    kernels.subtract_prefixes(x, np.array([0.5]), out)
    for i in range(6):
        expected[i, :i + 1] = x[i, :i + 1] - 0.5
    np.testing.assert_array_equal(out, expected)
    with pytest.raises(ValueError, match="could not broadcast"):
        kernels.subtract_prefixes(x, np.ones(5), np.zeros((6, 5)))
    kernels.subtract_prefixes(x, np.ones(1), np.zeros((6, 5)))


@pytest.mark.compile
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(4, 4, 4, 8), (16, 16, 16, 128)], ids=["small", "npbench"])
def test_softmax_4d_matches_numba(kernels, numba_kernels, dtype, shape):
    x = np.random.default_rng(3).random(shape).astype(dtype)
    # Numba's compile of the reference dominates this test: the small size runs the
    # same source as NumPy.
    reference = numba_kernels.softmax4d if shape[-1] == 128 else numba_kernels.softmax4d.py_func
    got, expected = kernels.softmax4d(x), reference(x)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype == "float32" else 1e-12)
    assert got.sum(dtype=np.float64) == pytest.approx(np.prod(shape[:3]), rel=1e-4)
