"""A region whose body is only ``dst[i] = src[i]`` over C-contiguous 1-D arrays of one dtype runs
on host spaces as one ``memmove`` per thread's block (as Numba's loop compiles to ``memcpy``);
other regions, strided arrays and CUDA keep the loop. The compiled copies equal NumPy's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kpc.api import build, load_module
from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
from kpc.check.runner import import_path
from kpc.passes.manager import PassContext, run_pipeline

STREAM = Path(__file__).resolve().parents[2] / "corpus" / "stream_triad.py"


def cpp(signature: str, space: str = "openmp") -> str:
    module = load_module(STREAM, signatures=[signature])
    run_pipeline(module, PassContext(target="kokkos"))
    return emit_translation_unit([Specialization(module, [signature.split("(")[0]])], space=space,
                                 source=str(STREAM)).source


def test_contiguous_element_copies_are_memmoves_and_nothing_else_is():
    text = cpp("stream_copy(float64[::1], float64[::1])")
    assert "std::memmove(&c(kpc_lo), &a(kpc_lo), static_cast<size_t>(kpc_hi - kpc_lo) * sizeof(double));" in text
    # the loop stays for extents the arrays do not cover (and for the serial path)
    assert "kpc_end1 <= kpc::extent(c, 0) && kpc_end1 <= kpc::extent(a, 0)" in text
    assert "Kokkos::RangePolicy<kpc_exec_space, Kokkos::IndexType<int64_t>>(kpc_begin1, kpc_end1), kpc_body)" in text
    assert "memmove" not in cpp("stream_copy(float64[:], float64[:])")  # strided
    assert "memmove" not in cpp("stream_copy(float64[::1], float32[::1])")  # a conversion
    assert "memmove" not in cpp("stream_scale(float64[::1], float64[::1], float64)")  # arithmetic
    assert "memmove" not in cpp("stream_copy(float64[::1], float64[::1])", space="cuda")


@pytest.mark.compile
def test_element_copies_equal_numpy(tmp_path, monkeypatch):
    monkeypatch.setenv("KPC_SERIAL_THRESHOLD", "0")  # the parallel path at every size
    signatures = ["stream_copy(float64[::1], float64[::1])", "stream_copy(float32[::1], float32[::1])",
                  "stream_copy(float64[:], float64[:])"]
    module = import_path(build(STREAM, tmp_path, signatures=signatures, strict=True).module_path, "copy_regions")
    rng = np.random.default_rng(5)
    for n in (0, 1, 3, 16383, 16384, 16385, 100_001):
        for dtype in (np.float64, np.float32):
            a = rng.standard_normal(n).astype(dtype)
            c = np.zeros(n, dtype)
            module.stream_copy(a, c)
            assert np.array_equal(a, c)
        strided = rng.standard_normal(2 * n)[::2]
        c = np.zeros(n)
        module.stream_copy(strided, c)
        assert np.array_equal(strided, c)
