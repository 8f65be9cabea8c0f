"""Numba's signature grammar (kpc.ir.signature): eager signatures and ``kpc ir --signature``."""

from __future__ import annotations

import doctest

import pytest

import kpc.ir.signature as signature_module
from kpc.ir.signature import SignatureError, parse_named_signature, parse_signature, parse_type
from kpc.ir.types import (BOOL, COMPLEX128, FLOAT32, FLOAT64, INT8, INT32, INT64, NONE, UINT8, UINT64,
                          ArrayType, TupleType)


@pytest.mark.parametrize("text, expected", [
    ("f8", FLOAT64), ("float64", FLOAT64), ("f4", FLOAT32), ("float32", FLOAT32), ("double", FLOAT64),
    ("i8", INT64), ("int64", INT64), ("intp", INT64), ("i4", INT32), ("int32", INT32), ("i1", INT8),
    ("u1", UINT8), ("uint64", UINT64), ("b1", BOOL), ("boolean", BOOL), ("c16", COMPLEX128),
    ("void", NONE), ("none", NONE),
    ("f8[:]", ArrayType(FLOAT64, 1)), ("f8[:, :]", ArrayType(FLOAT64, 2)),
    ("float32[::1]", ArrayType(FLOAT32, 1, "C")), ("int64[:, ::1]", ArrayType(INT64, 2, "C")),
    ("f8[::1, :]", ArrayType(FLOAT64, 2, "F")), ("f8[:,:,::1]", ArrayType(FLOAT64, 3, "C")),
    ("Array(float64, 2, 'C')", ArrayType(FLOAT64, 2, "C")), ('Array(int32, 1, "A")', ArrayType(INT32, 1)),
    ("Array(float32, 3, 'F', readonly=True)", ArrayType(FLOAT32, 3, "F", True)),
    ("array(float64, 2d, C)", ArrayType(FLOAT64, 2, "C")),
    ("readonly array(float64, 1d, A)", ArrayType(FLOAT64, 1, "A", True)),
    ("UniTuple(f8, 3)", TupleType((FLOAT64,) * 3)), ("Tuple(f8, i8)", TupleType((FLOAT64, INT64))),
    ("(f8, i8[:])", TupleType((FLOAT64, ArrayType(INT64, 1)))),
    ("nb.float64[:, :]", ArrayType(FLOAT64, 2)), ("numba.types.int64", INT64),
])
def test_types(text, expected):
    assert parse_type(text) == expected


@pytest.mark.parametrize("text, name, args, ret", [
    ("f8(f8[:, :], i8)", None, (ArrayType(FLOAT64, 2), INT64), FLOAT64),
    ("void(f8[:], f8)", None, (ArrayType(FLOAT64, 1), FLOAT64), NONE),
    ("(f8[:, :], i8)", None, (ArrayType(FLOAT64, 2), INT64), None),
    ("(f8[:],)", None, (ArrayType(FLOAT64, 1),), None),
    ("float64[:](float64[:])", None, (ArrayType(FLOAT64, 1),), ArrayType(FLOAT64, 1)),
    ("(f8, i8)(f8)", None, (FLOAT64,), TupleType((FLOAT64, INT64))),
    ("i8()", None, (), INT64),
    ("potential(float64[:, :])", "potential", (ArrayType(FLOAT64, 2),), None),
    ("potential(float64[:, ::1]) -> float64", "potential", (ArrayType(FLOAT64, 2, "C"),), FLOAT64),
    ("sum2d(Array(float32, 2, 'F'))", "sum2d", (ArrayType(FLOAT32, 2, "F"),), None),
])
def test_signatures(text, name, args, ret):
    sig = parse_signature(text)
    assert (sig.name, sig.args, sig.return_type) == (name, args, ret)


@pytest.mark.parametrize("text, message", [
    ("f8(f8[::2])", "only '::1'"),
    ("f8(quux)", "unknown type 'quux'"),
    ("f8(f8", "expected ')'"),
    ("f8(f8[:, :]) trailing", "unexpected 'trailing'"),
    ("f8(f8[::1, :, ::1])", "'::1' may only mark"),
    ("f8(f8[:]) -> i8", "one return type"),
    ("f8(f8[:] $)", "unexpected character '$'"),
    ("", "expected a type"),
])
def test_errors_say_where(text, message):
    with pytest.raises(SignatureError) as info:
        parse_signature(text)
    assert message in str(info.value)
    assert "(at column" in str(info.value)


def test_module_docstring_example():
    result = doctest.testmod(signature_module)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("name", ["b1", "i4", "f8", "float64", "void", "int"])
def test_a_function_named_like_a_type_is_named_by_its_signature(name):
    named = parse_named_signature(f"{name}(float64, int64[:])")
    assert (named.name, named.args, named.return_type) == (name, (FLOAT64, ArrayType(INT64, 1)), None)
    given = parse_signature(f"{name}(float64, int64[:])", name)
    assert (given.name, given.args, given.return_type) == (name, (FLOAT64, ArrayType(INT64, 1)), None)
    # Numba's grammar: without the function's name, a leading type is the return type.
    assert parse_signature(f"{name}(float64)").name is None


def test_a_named_signature_keeps_numbas_forms():
    assert parse_named_signature("(f8[:],)").name is None
    assert parse_named_signature("f(f8) -> b1").return_type == BOOL
    assert parse_signature("b1(f8)", "other").return_type == BOOL
