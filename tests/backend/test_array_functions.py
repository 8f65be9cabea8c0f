"""np.convolve, np.bincount and slice steps held in a variable raise what Numba raises, with
Numba's message, on the Kokkos target (empty operands, negative values and minlength, weights
of another length, a zero step); a variable negative step writes what Numba writes; forms kpc
does not translate (np.fill_diagonal of a 3-D array) stay Numba with a reason; on the CUDA
space the host routines of np.bincount are refused before any compiler runs; np.kron of an
integer by a float matrix is in the integer dtype, as Numba's (NumPy's is float64)."""

from __future__ import annotations

import doctest
from pathlib import Path

import numpy as np
import pytest

from kpc.check.runner import import_path
from kpc.passes.numpy_lowering import array_functions
from numba_errors import assert_raises_as_numba, kokkos_dropin

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "array_function_kernels.py"
SIGNATURES = {
    "convolve": ["convolve(float64[:], float64[:])"],
    "convolve_valid": ["convolve_valid(float64[:], float64[:])"],
    "bincount": ["bincount(int64[:], int64)"],
    "weighted_bincount": ["weighted_bincount(int64[:], float64[:])"],
    "every": ["every(float64[:], int64)"],
    "thin_out": ["thin_out(float64[:], int64)"],
    "kron": ["kron(int64[:, ::1], float64[:, ::1])"],
}


@pytest.fixture(scope="module")
def kokkos(tmp_path_factory):
    return kokkos_dropin(tmp_path_factory, KERNELS, SIGNATURES, "array_functions")[0]


@pytest.fixture(scope="module")
def numba():
    return import_path(KERNELS, "kpc_array_functions_numba")


ERRORS = [
    ("convolve", (np.zeros(0), np.zeros(0))),
    ("convolve", (np.ones(2), np.zeros(0))),
    ("convolve_valid", (np.ones(2), np.zeros(0))),
    ("bincount", (np.array([-1, 2]), -1)),
    ("bincount", (np.array([1, -2]), 0)),
    ("weighted_bincount", (np.array([-1, 2]), np.ones(3))),
    ("weighted_bincount", (np.array([1, 2]), np.ones(3))),
    ("every", (np.ones(4), 0)),
    ("thin_out", (np.ones(4), 0)),
]


@pytest.mark.compile
@pytest.mark.parametrize("kernel, args", ERRORS, ids=lambda v: v if isinstance(v, str) else "")
def test_errors_are_numbas(kokkos, numba, kernel, args):
    assert_raises_as_numba(getattr(kokkos, kernel), getattr(numba, kernel), args)


@pytest.mark.compile
@pytest.mark.parametrize("step", [-3, -1, 2, 7])
def test_a_variable_step_writes_what_numba_writes(kokkos, numba, step):
    a = np.arange(10.0)
    np.testing.assert_array_equal(kokkos.thin_out(a.copy(), step), numba.thin_out(a.copy(), step))
    assert kokkos.every(a, step) == numba.every(a, step)


@pytest.mark.compile
def test_kron_of_an_integer_by_a_float_matrix_is_in_the_integer_dtype_as_numba(kokkos, numba):
    a, b = np.array([[1, -2], [3, 4]]), np.array([[0.5, -1.7, 2.9]])
    result = kokkos.kron(a, b)
    assert result.dtype == np.int64
    np.testing.assert_array_equal(result, numba.kron(a, b))


def test_fill_diagonal_of_a_3d_array_stays_numba_with_a_reason(tmp_path):
    from kpc.api import build

    source = tmp_path / "cube.py"
    source.write_text("import numpy as np\nfrom numba import njit\n\n\n@njit\ndef fill(a):\n"
                      "    np.fill_diagonal(a, 1.0)\n")
    result = build(source, tmp_path / "out", signatures={"fill": ["fill(float64[:, :, :])"]}, space="openmp")
    assert "fill_diagonal" in result.rejected["fill"]


def test_bincount_is_refused_on_the_cuda_space_before_compiling(tmp_path):
    from kpc import pipeline
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
    from kpc.backend.kokkos.expressions import BackendError
    from kpc.runtime.argument_types import typeof

    text = KERNELS.read_text()
    module = pipeline.typed_specialization(str(KERNELS), text, {"bincount": (typeof(np.zeros(3, np.int64)),
                                                                             ("scalar", "int64"))}, True)
    with pytest.raises(BackendError, match="host execution spaces only"):
        emit_translation_unit([Specialization(module, ["bincount"])], space="cuda", source=str(KERNELS))


def test_module_examples():
    result = doctest.testmod(array_functions)
    assert result.attempted > 0 and result.failed == 0
