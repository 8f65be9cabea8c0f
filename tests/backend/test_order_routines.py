"""np.argsort, np.percentile / np.quantile and np.median on the Kokkos target where the corpus
cannot compare them (it checks Numba against plain NumPy first): Numba's default argsort
order of equal keys (its quicksort, not NumPy's), the ValueError / AssertionError Numba
raises for q out of range and for empty arrays, with its message, also from inside a
parallel loop, and NaNs. An argsort kind Numba does not take is a diagnostic at its column."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from kpc.check.runner import import_path
from kpc.frontend import parse_module
from kpc.ir.diagnostics import KpcError

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "order_kernels.py"
SIGNATURES = {
    "argsort_default": ["argsort_default(int64[:])", "argsort_default(float64[:])"],
    "argsort_method": ["argsort_method(int32[:])"],
    "percentile": ["percentile(float64[:], float64)", "percentile(int64[:], int64)"],
    "quantile": ["quantile(float64[:], float64)"],
    "percentiles": ["percentiles(float64[:], float64[:])"],
    "median": ["median(float64[:])", "median(float32[:])", "median(int32[:])"],
    "row_percentiles": ["row_percentiles(float64[:, :], float64)"],
}


@pytest.fixture(scope="module", params=["openmp", "serial"])
def kokkos(request, tmp_path_factory):
    from kpc.api import build

    out = tmp_path_factory.mktemp(f"order_{request.param}")
    result = build(KERNELS, out, signatures=SIGNATURES, space=request.param, strict=False)
    assert set(result.rejected) == {"argsort_heapsort"}, result.rejected
    return import_path(result.module_path, f"kpc_order_dropin_{request.param}")


@pytest.fixture(scope="module")
def numba():
    return import_path(KERNELS, "kpc_order_numba")


def outcome(func, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fallback to Numba warns: it must not happen here
        try:
            return func(*args)
        except (ValueError, AssertionError) as error:
            return type(error), str(error)


@pytest.mark.parametrize("n", [5, 16, 40, 500])
@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.int32])
def test_argsort_orders_equal_keys_as_numba(kokkos, numba, n, dtype):
    x = np.random.default_rng(n).integers(0, 4, n).astype(dtype)
    if dtype == np.float64:
        x[::7] = np.nan
    kernel = "argsort_method" if dtype == np.int32 else "argsort_default"
    got, expected = getattr(kokkos, kernel)(x), getattr(numba, kernel)(x)
    assert got.dtype == expected.dtype == np.int64
    assert got.tolist() == expected.tolist()


CASES = [
    ("percentile", (np.arange(5.0), 150.0)),
    ("percentile", (np.arange(5.0), -1.0)),
    ("percentile", (np.arange(5.0), np.nan)),
    ("percentile", (np.arange(5), 100)),
    ("percentile", (np.zeros(0), 100.0)),
    ("percentile", (np.zeros(0), 0.0)),
    ("percentile", (np.zeros(0), 50.0)),
    ("percentile", (np.array([1.0, np.inf, 3.0]), 100.0)),
    ("percentile", (np.array([-np.inf, -np.inf, 2.0]), 0.0)),
    ("percentile", (np.array([np.inf, 2.0]), 0.0)),
    ("percentile", (np.array([1.0, np.nan, 3.0]), 30.0)),
    ("quantile", (np.arange(7.0), 1.5)),
    ("quantile", (np.array([1.0, 5.0, 2.0, 7.0]), 0.3)),
    ("percentiles", (np.arange(9.0), np.array([10.0, 50.0, 101.0]))),
    ("percentiles", (np.array([4.0, 1.0, 3.0]), np.array([0.0, 33.3, 100.0]))),
    ("median", (np.array([1.0, np.nan, 3.0]),)),
    ("median", (np.zeros(0),)),
    ("median", (np.array([3.0, 1.0, 2.0, 4.0], np.float32),)),
    ("median", (np.array([7, 1, 2, 4], np.int32),)),
    ("row_percentiles", (np.arange(12.0).reshape(3, 4), 250.0)),
    ("row_percentiles", (np.arange(200.0).reshape(100, 2)[:, ::-1], 40.0)),
]


@pytest.mark.parametrize("kernel,args", CASES)
def test_statistics_return_and_raise_as_numba(kokkos, numba, kernel, args):
    got, expected = outcome(getattr(kokkos, kernel), *args), outcome(getattr(numba, kernel), *args)
    if isinstance(expected, tuple):
        assert got == expected
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-13)
        assert np.asarray(got).dtype == np.asarray(expected).dtype


def test_argsort_kind_numba_rejects_is_a_diagnostic():
    with pytest.raises(KpcError) as caught:
        parse_module(KERNELS.read_text(), str(KERNELS), strict=True)
    message = str(caught.value)
    assert "argsort(kind=...) takes one of 'quicksort', 'mergesort', 'stable'" in message
    assert "order_kernels.py:46:31" in message and "kind='quicksort' (the default)" in message



def _cuda_unit(signature: str) -> str:
    from kpc.api import load_module
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
    from kpc.passes.manager import PassContext, run_pipeline

    module = load_module(KERNELS, signatures=[signature])
    run_pipeline(module, PassContext(target="kokkos"))
    return emit_translation_unit([Specialization(module, [signature.split("(")[0]])], space="cuda",
                                 source=str(KERNELS)).source


def test_window_median_in_a_prange_is_emitted_for_cuda_on_the_thread_stack():
    source = _cuda_unit("window_medians(float64[:])")
    assert '#include "kpc_order.hpp"' in source
    assert "double kpc_scratch_selected0[5];" in source
    assert "kpc::order::select_median(selected0);" in source and "kpc::order::median_sorted(selected0)" in source


def test_row_percentile_of_a_run_time_length_in_a_prange_is_refused_for_cuda():
    from kpc.backend.kokkos.cxx import BackendError

    with pytest.raises(BackendError, match="needs a constant shape"):
        _cuda_unit("row_percentiles(float64[:, :], float64)")
