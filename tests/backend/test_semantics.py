"""Python semantics survive the translation: each kernel of ``semantics_kernels.py`` runs as
Kokkos C++ and as Numba on the same arguments, and the results are identical (one C++
module holds every signature below)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kpc.runtime.argument_types import format_type, typeof
from kpc.check.runner import import_path

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "semantics_kernels.py"

f64 = np.float64
NAN_VECTORS = [np.array([1.0, np.nan, 3.0]), np.array([np.nan, 1.0, 3.0]), np.array([1.0, 3.0, np.nan]),
               np.array([np.nan] * 3), np.array([2.0, -1.0, 5.0]),
               np.concatenate([np.linspace(0.0, 1.0, 999), [np.nan], np.linspace(0.0, 2.0, 999)])]
NAN_ROWS = np.array([[1.0, np.nan, 2.0], [np.nan, 5.0, 1.0], [3.0, 2.0, np.nan], [1.0, 2.0, 3.0]])
CASES = [
    ("floor_ops", (7, 2)), ("floor_ops", (-7, 2)), ("floor_ops", (7, -2)), ("floor_ops", (-7, -2)),
    ("float_floor_ops", (-7.5, 2.0)), ("float_floor_ops", (7.5, -2.0)), ("float_floor_ops", (-0.0, 3.0)),
    ("powers", (1.5, 3)), ("powers", (-2.0, -3)),
    ("true_division", (7, 2)), ("true_division", (-7, 2)),
    ("last_and_first", (np.arange(5.0),)),
    ("wrap_index", (np.arange(6.0), -2)), ("wrap_index", (np.arange(6.0), 3)),
    ("extremes", (3, 3, -1)), ("extremes", (-2.5, 4.0, 1.0)),
    ("chained", (0.5, 0.0, 1.0)), ("chained", (1.0, 0.0, 1.0)),
    ("countdown", (9,)), ("countdown", (0,)),
    ("stepped", (10, -3, -4)), ("stepped", (-3, 10, 4)), ("stepped", (5, 5, 1)),
    ("float32_math", (np.linspace(0, 2, 7, dtype=np.float32),)),
    ("float32_product", (np.float32(1.1), np.float32(3.3))),
    ("as_bool", (np.array([True, False, True, True, False, True]),)),
    ("shape_and_size", (np.zeros((4, 7)),)), ("shape_and_size", (np.zeros((3, 5))[:, ::2],)),
    ("carried", (np.array([1.0, 4.0, 2.0, 8.0]),)),
    ("int_overflow", (2 ** 40,)),
    ("truncation", (2.7,)),
    ("squares_until", (5,)),
    ("int_overflow", (2 ** 62,)),
    ("true_div", (7.5, 2.0)), ("floor_div", (-7.5, 2.0)), ("modulo", (-7.5, 2.0)),
    ("numpy_divisions", (1.0, 0.0)), ("numpy_divisions", (-1.0, 0.0)), ("numpy_divisions", (0.0, 0.0)),
    ("numpy_divisions", (7, 0)),
    ("array_divisions", (np.array([1.0, -2.0, 0.0, 9.0]), np.array([2.0, 0.0, 0.0, -4.0]))),
    ("array_divisions", (np.array([7, -7, 5]), np.array([2, 0, -3]))),
    ("loop_division", (np.array([1.0, 2.0, 3.0]), np.array([4.0, 0.0, 6.0]))),
    ("division_before_loop", (np.array([1.0, 2.0, 3.0]), np.array([4.0, 0.0, 6.0]))),
    ("serial_loop_division", (np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]))),
    ("divide_in_place", (3.0, 4.0)),
    ("checked_get", (np.arange(5.0), 4)), ("checked_get", (np.arange(5.0), -5)),
    ("checked_column_sum", (np.arange(12.0).reshape(4, 3), 2)),
    ("complex_div", (1 + 2j, 0.5 - 1j)), ("complex_div", (1 + 2j, 4.0)),
] + [(name, (a,)) for name in ("nan_extremes", "nan_extremes_parallel") for a in NAN_VECTORS] + [
    (name, (NAN_ROWS,)) for name in ("nan_rows", "nan_rows_parallel")] + [
    ("nan_ufuncs", (np.array([1.0, np.nan, 3.0, np.nan, -0.0, 2.0]), np.array([np.nan, 2.0, 1.0, np.nan, 0.0, 2.0]))),
]
# Zero divisors and indices out of bounds: Numba raises; so must the translation, with the same message.
RAISING = [
    ("true_div", (1.0, 0.0)), ("true_div", (1, 0)), ("true_div", (0.0, -0.0)),
    ("floor_div", (1.0, 0.0)), ("floor_div", (1, 0)),
    ("modulo", (1.0, 0.0)), ("modulo", (1, 0)),
    ("division_before_loop", (np.array([1.0, 2.0, 3.0]), np.array([0.0, 5.0, 6.0]))),
    ("serial_loop_division", (np.array([1.0, 2.0, 3.0]), np.array([4.0, 0.0, 6.0]))),
    ("divide_in_place", (3.0, 0.0)),
    ("checked_get", (np.arange(5.0), 5)), ("checked_get", (np.arange(5.0), -6)),
    ("complex_div", (1 + 2j, 0j)), ("complex_div", (1 + 2j, 0.0)),
]



@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    from kpc.api import build

    signatures: dict = {}
    for name, args in CASES + RAISING:
        text = f"{name}({', '.join(format_type(typeof(a)) for a in args)})"
        if text not in signatures.setdefault(name, []):
            signatures[name].append(text)
    signatures["scale_rows"] = ["scale_rows(float64[:, :], float64[:, :])"]
    signatures["fill"] = ["fill(float64[::1], float64)"]
    signatures["divide_all"] = ["divide_all(int64[::1], int64)"]
    out = tmp_path_factory.mktemp("semantics")
    result = build(KERNELS, out, signatures=signatures, strict=True)
    kokkos = import_path(result.module_path, "kpc_semantics_dropin")
    numba = import_path(KERNELS, "kpc_semantics_numba")
    return kokkos, numba, result


@pytest.mark.compile
@pytest.mark.parametrize("name,args", CASES, ids=[f"{n}{a!r}"[:60] for n, a in CASES])
def test_same_result_as_numba(modules, name, args):
    kokkos, numba, _ = modules
    expected = getattr(numba, name)(*args)
    actual = getattr(kokkos, name)(*args)
    assert type(actual) is type(expected)
    if isinstance(expected, np.ndarray):
        assert actual.dtype == expected.dtype
        np.testing.assert_array_equal(actual, expected)
    elif isinstance(expected, tuple):
        assert [type(v) for v in actual] == [type(v) for v in expected]
        np.testing.assert_array_equal(np.array(actual), np.array(expected))
    else:
        assert actual == expected or (actual != actual and expected != expected)


@pytest.mark.compile
def test_strided_arguments_are_viewed_in_place(modules):
    kokkos, numba, _ = modules
    base = np.arange(24.0).reshape(4, 6)
    a = base[:, ::2]
    out = np.zeros((8, 6))[::2, 1::2]
    kokkos.scale_rows(a, out)
    np.testing.assert_array_equal(out, 2.0 * a)


@pytest.mark.compile
def test_eager_signature_mismatch_names_the_parameter(modules):
    kokkos, _, _ = modules
    with pytest.raises(TypeError, match="argument 'out'"):
        kokkos.fill(np.zeros(4, dtype=np.float32), 1.0)
    with pytest.raises(TypeError, match="argument 'out'"):
        kokkos.fill(np.zeros((4, 2)), 1.0)


@pytest.mark.compile
def test_read_only_array_that_the_kernel_writes_is_refused(modules):
    kokkos, _, _ = modules
    out = np.zeros(5)
    out.setflags(write=False)
    with pytest.raises(ValueError, match="argument 'out' is read-only"):
        kokkos.fill(out, 2.0)
    a = np.ones((2, 3))
    a.setflags(write=False)
    result = np.zeros((2, 3))
    kokkos.scale_rows(a, result)
    np.testing.assert_array_equal(result, 2.0)


@pytest.mark.compile
def test_argument_that_is_not_an_array_names_the_parameter(modules):
    kokkos, _, _ = modules
    with pytest.raises(TypeError, match="argument 'out'"):
        kokkos.fill([0.0, 0.0], 1.0)


@pytest.mark.compile
def test_negative_strides_are_refused_for_written_arrays(modules):
    kokkos, _, _ = modules
    a = np.arange(6.0).reshape(2, 3)[:, ::-1]
    out = np.zeros((2, 3))
    kokkos.scale_rows(a, out)
    np.testing.assert_array_equal(out, 2.0 * a)
    with pytest.raises(ValueError, match="negative strides"):
        kokkos.scale_rows(np.ones((2, 3)), np.zeros((2, 3))[:, ::-1])


@pytest.mark.compile
def test_integer_division_by_zero_raises_like_numba(modules):
    kokkos, numba, _ = modules
    with pytest.raises(ZeroDivisionError):
        numba.floor_ops(7, 0)
    with pytest.raises(ZeroDivisionError, match="integer (division|modulo) by zero"):
        kokkos.floor_ops(7, 0)
    # Inside a prange loop of a parallel=True kernel Numba follows NumPy: 0, no exception.
    a, b = np.arange(2000), np.arange(2000)
    kokkos.divide_all(a, 0)
    numba.divide_all(b, 0)
    np.testing.assert_array_equal(a, b)
    a = np.arange(10)
    kokkos.divide_all(a, 3)
    np.testing.assert_array_equal(a, np.arange(10) // 3)


@pytest.mark.compile
@pytest.mark.parametrize("name,args", RAISING, ids=[f"{n}{a!r}"[:60] for n, a in RAISING])
def test_raises_what_numba_raises(modules, name, args):
    kokkos, numba, _ = modules
    with pytest.raises((ZeroDivisionError, IndexError)) as expected:
        getattr(numba, name)(*args)
    with pytest.raises(expected.type) as actual:
        getattr(kokkos, name)(*args)
    assert str(actual.value) == str(expected.value)
    np.testing.assert_array_equal(kokkos.checked_get(np.arange(3.0), 1), 1.0)  # the error is cleared


@pytest.mark.compile
def test_an_index_out_of_bounds_in_a_prange_loop_raises_index_error(modules):
    kokkos, _, _ = modules
    # Numba sets the IndexError inside the parallel loop but returns anyway (SystemError).
    with pytest.raises(IndexError, match="index is out of bounds"):
        kokkos.checked_column_sum(np.arange(12.0).reshape(4, 3), 3)


def test_the_pykokkos_target_keeps_boundscheck_kernels_as_numba(tmp_path):
    from kpc.build_file import build

    source = tmp_path / "checked.py"
    source.write_text("from numba import njit\n\n@njit(boundscheck=True)\ndef get(a, i):\n    return a[i]\n\n"
                      "@njit\ndef ratio(x, y):\n    return x / y\n")
    report = build(source, target="pykokkos", out=tmp_path / "out")
    assert report.kernel("get").status == "numba"
    assert report.kernel("get").construct == "boundscheck=True in 'get'"
    assert "cannot raise IndexError" in report.kernel("get").reason
    assert report.kernel("ratio").status == "translated"
