"""min, max, argmin and argmax of an empty array raise Numba's ValueError on the Kokkos target,
on the host and per row inside a ``prange`` loop, and in the PyKokkos target's host code; the
kernels are the corpus's (tests/corpus/empty_extremes.py), which check the values."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from kpc.check.runner import import_path

KERNELS = Path(__file__).resolve().parents[1] / "corpus" / "empty_extremes.py"
SIGNATURES = {
    "extremes": ["extremes(float64[:])", "extremes(int32[:])"],
    "extremes_parallel": ["extremes_parallel(float64[:])"],
    "row_ranges": ["row_ranges(float64[:, :])"],
    "selected_extremes": ["selected_extremes(float64[:], float64[:])"],
    "selected_extremes_parallel": ["selected_extremes_parallel(float64[:], float64[:])"],
}
EMPTY = [
    ("extremes", (np.zeros(0),)),
    ("extremes", (np.zeros(0, dtype=np.int32),)),
    ("extremes_parallel", (np.zeros(0),)),
    ("selected_extremes", (np.ones(5), np.zeros(5))),
    ("selected_extremes_parallel", (np.ones(5), np.zeros(5))),
]


def numba_error(numba, kernel, args) -> str:
    with pytest.raises(ValueError) as error:
        getattr(numba, kernel)(*args)
    return str(error.value)


@pytest.fixture(scope="module")
def numba():
    return import_path(KERNELS, "kpc_empty_extremes_numba")


@pytest.fixture(scope="module")
def kokkos(tmp_path_factory):
    from kpc.api import build

    out = tmp_path_factory.mktemp("empty_extremes_openmp")
    result = build(KERNELS, out, signatures=SIGNATURES, space="openmp", strict=True)
    return import_path(result.module_path, "kpc_empty_extremes_dropin_openmp")


@pytest.mark.compile
@pytest.mark.parametrize("kernel, args", EMPTY, ids=lambda v: v if isinstance(v, str) else "")
def test_empty_arrays_raise_numbas_value_error(kokkos, numba, kernel, args):
    expected = numba_error(numba, kernel, args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to Numba: the translation raises
        with pytest.raises(ValueError) as error:
            getattr(kokkos, kernel)(*args)
    assert str(error.value) == expected
    assert getattr(kokkos, kernel)(*[np.arange(1.0, 4.0).astype(a.dtype) for a in args]) is not None


@pytest.mark.compile
@pytest.mark.parametrize("rows", [3, 300])
def test_empty_rows_in_a_prange_kernel_raise_value_error(kokkos, rows):
    # Numba 0.68 loses the exception of a prange body and returns uninitialized memory: the
    # translation raises NumPy's ValueError, as the same loop without prange does in Numba.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="^zero-size array to reduction operation maximum which has no identity$"):
            kokkos.row_ranges(np.zeros((rows, 0)))
    assert kokkos.row_ranges(np.zeros((0, 0))).shape == (0,)
    assert kokkos.row_ranges(np.array([[1.0, 4.0], [2.0, -1.0]])).tolist() == [3.0, 3.0]


def test_pykokkos_host_code_raises_the_value_error(tmp_path, numba):
    from kpc.api import build_pykokkos

    result = build_pykokkos(KERNELS, tmp_path, signatures=["extremes(float64[:])"])
    text = result.source
    assert "def _value_check(ok, message):" in text
    assert repr(numba_error(numba, "extremes", (np.zeros(0),))) in text
    assert [k.name for k in result.kernels if k.status == "numba"] == []
