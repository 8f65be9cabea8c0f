"""np.digitize and np.interp raise what Numba raises, with Numba's message, on the Kokkos target
(bins neither increasing nor decreasing, in a parallel loop too, where Numba loses it; no sample points, or samples and
values of different lengths), for one value and for arrays; an invalid np.searchsorted side is
the diagnostic Numba's typing error corresponds to, at the call's line and column."""

from __future__ import annotations

import doctest
from pathlib import Path

import numpy as np
import pytest

from kpc.check.runner import import_path
from kpc.passes.numpy_lowering import searches
from numba_errors import assert_raises_as_numba, kokkos_dropin

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "search_kernels.py"
SIGNATURES = {
    "digitize": ["digitize(float64[:], float64[:])"],
    "digitize_one": ["digitize_one(float64, int64[:])"],
    "digitize_each": ["digitize_each(float64[:], float64[:])"],
    "interp": ["interp(float64[:], float64[:], float64[:])"],
    "interp_one": ["interp_one(float64, float64[:], int64[:])"],
}
UNSORTED = np.array([0.0, 2.0, 1.0])

ERRORS = [
    ("digitize", (np.linspace(-1, 3, 9), UNSORTED)),
    ("digitize_one", (0.5, np.array([3, 1, 2]))),
    ("interp", (np.ones(4), np.zeros(0), np.zeros(0))),
    ("interp", (np.ones(4), np.arange(3.0), np.arange(4.0))),
    ("interp_one", (0.5, np.zeros(0), np.zeros(0, np.int64))),
    ("interp_one", (0.5, np.arange(2.0), np.arange(3))),
]


@pytest.fixture(scope="module")
def kokkos(tmp_path_factory):
    return kokkos_dropin(tmp_path_factory, KERNELS, SIGNATURES, "searches")[0]


@pytest.fixture(scope="module")
def numba():
    return import_path(KERNELS, "kpc_searches_numba")


@pytest.mark.compile
@pytest.mark.parametrize("kernel, args", ERRORS, ids=lambda v: v if isinstance(v, str) else "")
def test_errors_are_numbas(kokkos, numba, kernel, args):
    assert_raises_as_numba(getattr(kokkos, kernel), getattr(numba, kernel), args)


@pytest.mark.compile
def test_an_error_inside_a_parallel_loop_is_raised(kokkos):
    # Numba loses an exception raised inside a prange body (the kernel returns uninitialized
    # memory); kpc flags it in the loop and raises Numba's message of the serial form.
    with pytest.raises(ValueError, match="bins must be monotonically increasing or decreasing"):
        kokkos.digitize_each(np.linspace(-1, 3, 300), UNSORTED)


@pytest.mark.compile
def test_after_an_error_the_next_call_is_right(kokkos, numba):
    x, bins = np.linspace(-1, 3, 9), np.array([0.0, 1.0, 2.0])
    with pytest.raises(ValueError):
        kokkos.digitize(x, UNSORTED)
    np.testing.assert_array_equal(kokkos.digitize(x, bins), numba.digitize(x, bins))


def test_an_invalid_side_is_a_diagnostic_at_the_call(tmp_path):
    from kpc.api import build

    source = tmp_path / "side.py"
    source.write_text("import numpy as np\nfrom numba import njit\n\n\n@njit\ndef find(a, v):\n"
                      "    return np.searchsorted(a, v, side='middle')\n")
    result = build(source, tmp_path / "out", signatures={"find": ["find(float64[:], float64)"]}, space="openmp")
    reason = result.rejected["find"]
    assert "invalid 'side', valid are 'left', 'right'" in reason and "side.py:7:" in reason


def test_module_examples():
    result = doctest.testmod(searches)
    assert result.attempted > 0 and result.failed == 0


def test_on_cuda_the_searches_are_emitted_for_the_device(tmp_path):
    # kpc_order.hpp runs in any space (its errors are not raised on a device, as the sorts'):
    # the CUDA emission keeps these kernels, in a parallel loop too, before any compile.
    from kpc.pipeline import failing_requests

    vector = ("array", "float64", 1, "C")
    requests = [("digitize_each", (vector, vector)), ("interp", (vector, vector, vector)),
                ("digitize", (vector, vector))]
    assert failing_requests(str(KERNELS), KERNELS.read_text(), requests, space="cuda") == {}
