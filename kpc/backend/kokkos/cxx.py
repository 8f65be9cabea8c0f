"""C++ spellings of IR types, literals and identifiers for the Kokkos backend.

>>> from kpc.ir.types import ArrayType, FLOAT32, FLOAT64, INT64, TupleType
>>> scalar_type(FLOAT32), scalar_type(INT64)
('float', 'int64_t')
>>> view_type(ArrayType(FLOAT64, 2, "C"))
'kpc::view<double, 2, Kokkos::LayoutRight>'
>>> literal(0.5, FLOAT32), literal(float("inf"), FLOAT64), literal(3, INT64), literal(2**40, INT64)
('0.5f', 'kpc::inf<double>()', '3', 'INT64_C(1099511627776)')
>>> literal(1 + 2j)
'Kokkos::complex<double>(1.0, 2.0)'
>>> identifier("new"), identifier("energy")
('new_', 'energy')
"""

from __future__ import annotations

import math

from kpc.ir.types import COMPLEX128, FLOAT32, FLOAT64, ArrayType, NoneType, ScalarType, TupleType, Type


class BackendError(Exception):
    """A construct the Kokkos backend cannot emit; ``loc`` points at the user's code."""

    def __init__(self, message: str, loc=None):
        self.loc = loc
        where = f"{loc}: " if loc is not None and getattr(loc, "line", 0) else ""
        super().__init__(where + message)


SCALAR_CXX = {
    "bool": "bool",
    "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
    "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
    "float32": "float", "float64": "double",
    "complex64": "Kokkos::complex<float>", "complex128": "Kokkos::complex<double>",
}

LAYOUTS = {"C": "Kokkos::LayoutRight", "F": "Kokkos::LayoutLeft", "A": "Kokkos::LayoutStride"}

# C++ keywords and names that generated code uses unqualified: a Python variable with
# one of these names gets a trailing underscore.
_RESERVED = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t char32_t
class compl const constexpr const_cast continue decltype default delete do double dynamic_cast
else enum explicit export extern false float for friend goto if inline int long mutable
namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
reinterpret_cast return short signed sizeof static static_assert static_cast struct switch
template this thread_local throw true try typedef typeid typename union unsigned using virtual
void volatile wchar_t while xor xor_eq final override concept requires
Kokkos kpc std py m args int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t
NULL INFINITY NAN EOF assert errno
""".split())


def identifier(name: str) -> str:
    """A C++ identifier for a Python name (keywords and ``kpc_`` names get a suffix)."""
    if name in _RESERVED or name.startswith("kpc_") or name.startswith("__"):
        return name + "_"
    return name


def scalar_type(t: Type) -> str:
    if isinstance(t, ScalarType):
        if t.name not in SCALAR_CXX:
            raise BackendError(f"the Kokkos backend does not support {t.name} values yet")
        return SCALAR_CXX[t.name]
    raise BackendError(f"expected a scalar type, got {t}")


def view_type(t: ArrayType) -> str:
    return f"kpc::view<{scalar_type(t.dtype)}, {t.ndim}, {LAYOUTS[t.layout]}>"


def value_type(t: Type) -> str:
    """The C++ type of a value held in a variable or returned by a device function."""
    if isinstance(t, ScalarType):
        return scalar_type(t)
    if isinstance(t, TupleType):
        return "std::tuple<" + ", ".join(value_type(e) for e in t.elements) + ">"
    if isinstance(t, NoneType):
        return "void"
    if isinstance(t, ArrayType):
        return view_type(t)
    raise BackendError(f"the Kokkos backend cannot hold a value of type {t}")


def literal(value, t: Type | None = None) -> str:
    """A C++ literal of ``value`` with the IR type ``t`` (float32 literals get an ``f``)."""
    if isinstance(value, complex) or (t is not None and getattr(t, "is_complex", False)):
        part = FLOAT32 if getattr(t, "name", "") == "complex64" else FLOAT64
        value = complex(value)
        return f"{scalar_type(t or COMPLEX128)}({literal(value.real, part)}, {literal(value.imag, part)})"
    if isinstance(value, bool) or (t is not None and getattr(t, "name", "") == "bool"):
        return "true" if value else "false"
    is_float = isinstance(value, float) or (t is not None and getattr(t, "is_float", False))
    if is_float:
        ctype = scalar_type(t) if isinstance(t, ScalarType) and t.is_float else "double"
        value = float(value)
        if math.isnan(value):
            return f"kpc::nan<{ctype}>()"
        if math.isinf(value):
            return f"{'-' if value < 0 else ''}kpc::inf<{ctype}>()"
        text = repr(value)
        if "e" not in text and "." not in text:
            text += ".0"
        return text + ("f" if ctype == "float" else "")
    if isinstance(value, int):
        if -(2 ** 31) < value < 2 ** 31:
            return str(value)
        if isinstance(t, ScalarType) and t.name == "uint64" or value >= 2 ** 63:
            return f"UINT64_C({value})"
        if value == -(2 ** 63):
            return "INT64_MIN"
        return f"INT64_C({value})"
    raise BackendError(f"cannot write the constant {value!r} in C++")


def c_string(text: str) -> str:
    """A C++ string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
