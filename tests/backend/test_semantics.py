"""Python semantics survive the translation: each kernel of ``semantics_kernels.py`` runs as
Kokkos C++ and as Numba on the same arguments, and the results are identical (one C++
module holds every signature below)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from kpc.runtime.dispatch import format_type, typeof

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "semantics_kernels.py"

f64 = np.float64
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
]


def import_file(path, name: str):
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    from kpc.api import build

    signatures: dict = {}
    for name, args in CASES:
        text = f"{name}({', '.join(format_type(typeof(a)) for a in args)})"
        if text not in signatures.setdefault(name, []):
            signatures[name].append(text)
    signatures["scale_rows"] = ["scale_rows(float64[:, :], float64[:, :])"]
    signatures["fill"] = ["fill(float64[::1], float64)"]
    signatures["divide_all"] = ["divide_all(int64[::1], int64)"]
    out = tmp_path_factory.mktemp("semantics")
    result = build(KERNELS, out, signatures=signatures, strict=True)
    kokkos = import_file(result.module_path, "kpc_semantics_dropin")
    numba = import_file(KERNELS, "kpc_semantics_numba")
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
    with pytest.raises(ZeroDivisionError, match="division or modulo by zero"):
        kokkos.floor_ops(7, 0)
    with pytest.raises(ZeroDivisionError):
        kokkos.divide_all(np.arange(2000), 0)
    a = np.arange(10)
    kokkos.divide_all(a, 3)
    np.testing.assert_array_equal(a, np.arange(10) // 3)
