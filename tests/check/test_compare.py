"""kpc.check.compare: exact integers, tolerant floats, the first differing index."""

import numpy as np
import pytest

from kpc.check.compare import Outcome, compare_outcomes, compare_values, default_rtol


def test_default_tolerances_follow_precision():
    assert default_rtol("float64") == 1e-12
    assert default_rtol(np.float32) == 1e-5
    assert default_rtol("int64") == 0.0
    assert default_rtol("bool") == 0.0


@pytest.mark.parametrize("value", [3, 2.5, True, None, (1, 2.0, np.arange(3))])
def test_equal_values_match(value):
    assert compare_values(value, value) is None


def test_reports_first_differing_index_of_2d_array():
    expected = np.arange(12, dtype=np.int64).reshape(3, 4)
    actual = expected.copy()
    actual[1, 2] += 1
    actual[2, 0] -= 5
    found = compare_values(expected, actual)
    assert found.reason == "value"
    assert found.index == (1, 2)
    assert (found.expected, found.actual) == (6, 7)
    assert "at index (1, 2)" in found.message
    assert "2 of 12 elements differ" in found.message


def test_integers_are_exact():
    big = np.array([2**53 + 1], dtype=np.int64)
    assert compare_values(big, big + 1).index == (0,)
    assert compare_values(7, 8).reason == "value"


def test_float64_within_rtol_matches_and_beyond_does_not():
    x = np.linspace(1.0, 2.0, 5)
    assert compare_values(x, x * (1 + 1e-14)) is None
    found = compare_values(x, x * (1 + 1e-9))
    assert found.index == (0,) and "rtol" in found.message


def test_float32_uses_looser_rtol():
    x = np.linspace(1.0, 2.0, 5, dtype=np.float32)
    assert compare_values(x, x * np.float32(1 + 2e-6)) is None
    assert compare_values(x, x * np.float32(1 + 1e-4)) is not None


def test_absolute_floor_scales_with_data_magnitude():
    # a near-zero result of cancelling large terms: reassociation error is relative to the terms
    expected = np.array([1e6, 3e-11])
    actual = np.array([1e6, 3.5e-11])
    assert compare_values(expected, actual) is None
    assert compare_values(np.array([3e-11]), np.array([3.5e-11])) is not None
    assert compare_values(3e-11, 3.5e-11, scale=1e6) is None


def test_scalar_float_and_float32_compare_at_float32_precision():
    assert compare_values(1.0000001, np.float32(1.0)) is None
    assert compare_values(1.001, np.float32(1.0)) is not None


def test_nan_and_inf():
    assert compare_values(np.array([np.nan, np.inf, -np.inf]), np.array([np.nan, np.inf, -np.inf])) is None
    assert compare_values(np.array([1.0, np.nan]), np.array([1.0, 2.0])).index == (1,)
    assert compare_values(np.array([np.inf]), np.array([-np.inf])).index == (0,)
    assert compare_values(np.array([np.inf]), np.array([1e308])).index == (0,)


def test_shape_kind_dtype_type_and_length():
    assert compare_values(np.zeros(3), np.zeros(4)).reason == "shape"
    assert compare_values(np.zeros(3), np.zeros(3, dtype=np.int64)).reason == "kind"
    assert compare_values(1, 1.0).reason == "kind"
    assert compare_values(np.zeros(3), np.zeros(3, dtype=np.float32)).reason == "dtype"
    assert compare_values(np.zeros(3), np.zeros(3, dtype=np.float32), check_dtype=False) is None
    assert compare_values(0, 0.0, check_dtype=False) is None
    assert compare_values(np.arange(3), np.arange(3.0) + 1e-9, check_dtype=False).index == (0,)
    assert compare_values(1.0, 1j, check_dtype=False).reason == "kind"
    assert compare_values((1, 2), 1).reason == "type"
    assert compare_values(np.zeros(1), 0.0).reason == "type"
    assert compare_values((1, 2), (1, 2, 3)).reason == "length"
    assert compare_values(None, 0).reason == "type"
    assert compare_values(True, np.bool_(False)).reason == "value"


def test_tuple_member_is_named():
    found = compare_values((1.0, np.array([1, 2, 3])), (1.0, np.array([1, 2, 4])))
    assert found.where == "return[1]" and found.index == (2,)
    assert found.message.startswith("return[1]: value mismatch at index (2,): expected 3, got 4")


def test_outcomes_compare_written_arguments_by_name():
    out = np.arange(5.0)
    bad = out.copy()
    bad[3] = -1.0
    expected = Outcome(returned=2.0, written={"out": out})
    assert compare_outcomes(expected, Outcome(returned=2.0, written={"out": out.copy()})) is None
    found = compare_outcomes(expected, Outcome(returned=2.0, written={"out": bad}))
    assert (found.where, found.index, found.expected, found.actual) == ("arg 'out'", (3,), 3.0, -1.0)
    assert compare_outcomes(expected, Outcome(returned=2.0)).reason == "missing"


def test_outcome_return_value_is_compared_first():
    found = compare_outcomes(Outcome(returned=(1, 2)), Outcome(returned=(1, 3)))
    assert found.where == "return[1]"


def test_stray_writes_are_a_mismatch():
    found = compare_outcomes(Outcome(None), Outcome(None, stray_writes=("x (outside the strided view)",)))
    assert found.reason == "stray write" and "outside the strided view" in found.message


def test_docstring_examples():
    import doctest

    import kpc.check.compare as compare_module
    import kpc.check.inputs as inputs_module

    for module in (compare_module, inputs_module):
        failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert failed == 0 and attempted > 0, module.__name__


def test_exceptions_match_by_type_and_raising_against_returning_is_a_mismatch():
    zero = Outcome(None, raised="ZeroDivisionError: division by zero")
    assert compare_outcomes(zero, Outcome(None, raised="ZeroDivisionError: float division by zero")) is None
    other = compare_outcomes(zero, Outcome(None, raised="ValueError: operands could not be broadcast"))
    assert other.reason == "exception" and "ValueError" in other.message
    assert compare_outcomes(zero, Outcome(np.inf)).actual == "no exception"
    assert compare_outcomes(Outcome(np.inf), zero).expected == "no exception"
