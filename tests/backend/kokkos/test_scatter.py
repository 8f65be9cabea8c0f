"""Scatter updates in parallel loops (``hist[idx[i]] += 1``): on OpenMP the region also gets
a privatized version (per-thread copies through a Kokkos ScatterView, summed after the
loop) that runs instead of the atomic one when the copies are small next to the loop, and
the cost guard's serial arm (small sizes) updates in place without atomics;
Serial updates in place without atomics; CUDA keeps atomics. The compiled kernels agree
with NumPy on both sides of that run-time choice."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kpc.api import build, load_module
from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
from kpc.passes.manager import PassContext, run_pipeline
from kpc.check.runner import import_path

KERNELS = Path(__file__).resolve().parent / "scatter_kernels.py"

SIGNATURES = {
    "count_labels": ["count_labels(int64[::1], int64[::1])", "count_labels(int64[::1], int64[:])"],
    "signed_counts": ["signed_counts(int64[::1], int64[::1], float64[::1])"],
    "histogram2d": ["histogram2d(int64[::1], int64[::1], float64[::1], float64[:, ::1])",
                    "histogram2d(int64[::1], int64[::1], float64[::1], float64[::1, :])",
                    "histogram2d(int64[::1], int64[::1], float64[::1], float64[:, :])"],
    "counts_and_total": ["counts_and_total(int64[::1], float64[::1], float64[::1])"],
}


def cpp(signature: str, space: str = "openmp") -> str:
    module = load_module(KERNELS, signatures=[signature])
    run_pipeline(module, PassContext(target="kokkos"))
    name = signature.split("(")[0]
    return emit_translation_unit([Specialization(module, [name])], space=space, source=str(KERNELS)).source


def test_openmp_region_has_a_privatized_version_beside_the_atomic_one():
    text = cpp("count_labels(int64[::1], int64[::1])")
    assert '#include "kpc_scatter.hpp"' in text
    assert "if (kpc::scatter_pays<kpc_exec_space>((kpc_end1 - kpc_begin1), hist)) {" in text
    assert "const auto kpc_scatter1_hist = kpc::scatter_sum_of<kpc_exec_space>(hist);" in text
    assert "auto kpc_access1_hist = kpc_scatter1_hist.view.access();" in text
    assert "kpc_access1_hist(kpc::wrap(idx(i), kpc::extent(hist, 0))) += 1;" in text
    assert "kpc_scatter1_hist.contribute();" in text
    assert "Kokkos::atomic_add(&hist(" in text


def test_reduction_region_with_scatter_updates_keeps_its_reducer_in_both_versions():
    text = cpp("counts_and_total(int64[::1], float64[::1], float64[::1])")
    assert text.count("kpc::Reduce<counts_and_total_acc1>(kpc_result1)") == 2
    # on host spaces the reduction runs in chunks (kpc::reduce_chunk), each body called per iteration
    assert "kpc_scatter_body(kpc_i, kpc_l0);" in text and "kpc_body(kpc_i, kpc_l0);" in text


def test_serial_space_updates_in_place_without_atomics():
    text = cpp("count_labels(int64[::1], int64[::1])", space="serial")
    assert "hist(kpc::wrap(idx(i), kpc::extent(hist, 0))) += 1;" in text
    assert "atomic" not in text and "kpc_scatter" not in text and "scatter_pays" not in text


def test_openmp_serial_arm_updates_without_atomics():
    text = cpp("count_labels(int64[::1], int64[::1])")
    serial_arm = text.split("auto kpc_serial_body = KOKKOS_LAMBDA(const int64_t i) {", 1)[1].split("};", 1)[0]
    assert "hist(kpc::wrap(idx(i), kpc::extent(hist, 0))) += 1;" in serial_arm
    assert "atomic" not in serial_arm
    assert "auto kpc_serial = kpc_serial_body;" in text and "kpc_serial(i);" in text  # the guard's serial arm
    assert "Kokkos::atomic_add(&hist(" in text  # the parallel arm keeps its atomics


def test_cuda_keeps_atomics():
    text = cpp("count_labels(int64[::1], int64[::1])", space="cuda")
    assert "Kokkos::atomic_add(&hist(" in text
    assert "kpc_scatter" not in text and "scatter_pays" not in text



@pytest.fixture(scope="module", params=["openmp", "serial"])
def kernels(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(f"scatter_{request.param}")
    result = build(KERNELS, out, signatures=SIGNATURES, space=request.param, strict=True)
    return import_path(result.module_path, f"scatter_kernels_{request.param}")


# Two OpenMP threads (tests/backend/conftest.py): 10^5 labels into 16 bins take the
# privatized version (2 x 16 elements of copies); 5000 labels into 50000 bins the atomic one.
PRIVATIZED = (100_000, 16)
ATOMIC = (5_000, 50_000)
SERIAL_ARM = (50, 16)  # below the cost guard: one thread, plain updates


@pytest.mark.compile
@pytest.mark.parametrize("n,bins", [PRIVATIZED, ATOMIC, SERIAL_ARM], ids=["privatized", "atomic", "serial-arm"])
def test_counts_match_bincount(kernels, n, bins):
    rng = np.random.default_rng(n)
    idx = rng.integers(0, bins, n)
    hist = np.full(bins, 3, dtype=np.int64)
    kernels.count_labels(idx, hist)
    np.testing.assert_array_equal(hist, 3 + np.bincount(idx, minlength=bins))
    strided = np.zeros(2 * bins, dtype=np.int64)
    kernels.count_labels(idx, strided[::2])
    np.testing.assert_array_equal(strided[::2], np.bincount(idx, minlength=bins))
    assert not strided[1::2].any()


@pytest.mark.compile
@pytest.mark.parametrize("n,bins", [PRIVATIZED, ATOMIC, SERIAL_ARM], ids=["privatized", "atomic", "serial-arm"])
def test_additions_and_subtractions_match_numpy(kernels, n, bins):
    rng = np.random.default_rng(n + 1)
    idx = rng.integers(0, bins, n)
    sign = rng.integers(-1, 2, n)
    out = np.zeros(bins)
    kernels.signed_counts(idx, sign, out)
    expected = np.bincount(idx, weights=np.where(sign > 0, 1.0, -0.5), minlength=bins)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.compile
@pytest.mark.parametrize("order", ["C", "F", "strided"])
@pytest.mark.parametrize("n,shape", [(100_000, (4, 5)), (5_000, (200, 300))], ids=["privatized", "atomic"])
def test_two_dimensional_histogram_in_every_layout(kernels, order, n, shape):
    rng = np.random.default_rng(n)
    rows = rng.integers(0, shape[0], n)
    cols = rng.integers(0, shape[1], n)
    weights = rng.integers(0, 8, n).astype(np.float64)  # exact sums in any order
    if order == "strided":
        storage = np.ones((shape[0], 2 * shape[1]))
        hist = storage[:, ::2]
    else:
        hist = np.ones(shape, order=order)
    kernels.histogram2d(rows, cols, weights, hist)
    expected = 1.0 + np.bincount(rows * shape[1] + cols, weights=weights, minlength=shape[0] * shape[1])
    np.testing.assert_array_equal(hist, expected.reshape(shape))
    if order == "strided":
        assert (storage[:, 1::2] == 1.0).all()


@pytest.mark.compile
def test_scatter_updates_beside_a_sum_reduction(kernels):
    rng = np.random.default_rng(7)
    idx = rng.integers(0, 10, 100_000)
    weights = rng.integers(0, 4, 100_000).astype(np.float64)
    hist = np.zeros(10)
    total = kernels.counts_and_total(idx, weights, hist)
    assert total == weights.sum()
    np.testing.assert_array_equal(hist, np.bincount(idx, weights=weights, minlength=10))
