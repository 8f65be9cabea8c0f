"""An array unpacked into names whose length is not the number of names raises ValueError on
the Kokkos target, as Numba does, on the host and inside a ``prange`` kernel (where Numba 0.68
reports a SystemError instead: the translation raises Python's ValueError there); the kernels
are the corpus's (tests/corpus/array_unpacking.py), which check the values."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from kpc.check.runner import import_path

KERNELS = Path(__file__).resolve().parents[1] / "corpus" / "array_unpacking.py"
SIGNATURES = {
    "segment_lengths": ["segment_lengths(float64[:, :])"],
    "follow_pairs": ["follow_pairs(int64[:, :], int64)"],
    "row_difference": ["row_difference(float64[:, :])"],
    "unpack_computed": ["unpack_computed(float64[:])"],
}


@pytest.fixture(scope="module")
def kokkos(tmp_path_factory):
    from kpc.api import build

    out = tmp_path_factory.mktemp("array_unpacking_openmp")
    result = build(KERNELS, out, signatures=SIGNATURES, space="openmp", strict=True)
    return import_path(result.module_path, "kpc_array_unpacking_dropin_openmp")


@pytest.fixture(scope="module")
def numba():
    return import_path(KERNELS, "kpc_array_unpacking_numba")


WRONG_LENGTHS = [
    ("follow_pairs", (np.zeros((3, 3), dtype=np.int64), 2)),
    ("row_difference", (np.ones((3, 4)),)),
    ("row_difference", (np.ones((1, 4)),)),
    ("unpack_computed", (np.ones(4),)),
    ("unpack_computed", (np.ones(0),)),
]


@pytest.mark.compile
@pytest.mark.parametrize("kernel, args", WRONG_LENGTHS, ids=lambda v: v if isinstance(v, str) else "")
def test_wrong_lengths_raise_as_in_numba(kokkos, numba, kernel, args):
    with pytest.raises(ValueError):
        getattr(numba, kernel)(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to Numba: the translation raises
        with pytest.raises(ValueError, match="cannot unpack"):
            getattr(kokkos, kernel)(*args)


@pytest.mark.compile
@pytest.mark.parametrize("columns", [1, 3])
def test_wrong_length_in_a_prange_kernel_raises_value_error(kokkos, columns):
    line = np.ones((300, columns))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="cannot unpack"):
            kokkos.segment_lengths(line)
    assert kokkos.segment_lengths(np.ones((300, 2))).tolist() == [0.0] * 299
