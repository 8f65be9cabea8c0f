"""Argument types of runtime values: Numba's typing of arguments and Numba's spelling of types."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import kpc.runtime.argument_types as argument_types_module
from kpc.runtime.argument_types import format_type, typeof


@pytest.mark.parametrize("value,expected", [
    (np.zeros((2, 3)), ("array", "float64", 2, "C")),
    (np.zeros((2, 3), order="F"), ("array", "float64", 2, "F")),
    (np.zeros((2, 6))[:, ::2], ("array", "float64", 2, "A")),
    (np.zeros(5, dtype=np.float32), ("array", "float32", 1, "C")),
    (np.zeros((3, 1)), ("array", "float64", 2, "C")),
    (np.zeros(0, dtype=np.int64), ("array", "int64", 1, "C")),
    (7, ("scalar", "int64")),
    (2.5, ("scalar", "float64")),
    (True, ("scalar", "bool")),
    (np.float32(1.0), ("scalar", "float32")),
    (np.int32(1), ("scalar", "int32")),
    ([1.0], None),
    ("text", None),
])
def test_typeof_follows_numba(value, expected):
    assert typeof(value) == expected


def test_format_type_uses_numbas_grammar():
    assert format_type(("array", "float64", 2, "C")) == "float64[:, ::1]"
    assert format_type(("array", "float64", 2, "F")) == "float64[::1, :]"
    assert format_type(("array", "int64", 3, "A")) == "int64[:, :, :]"
    assert format_type(("scalar", "bool")) == "bool"


def test_docstring_examples():
    result = doctest.testmod(argument_types_module)
    assert result.failed == 0 and result.attempted > 0
