"""How upstream PyKokkos spells types, literals and intrinsics (PYKOKKOS_CONTRACT.md §2, §3, §9, §12).

>>> from kpc.ir.types import ArrayType, FLOAT64, FLOAT32, INT64
>>> view_annotation(ArrayType(FLOAT64, 2, "C"))
'pk.View2D[pk.double]'
>>> scalar_annotation(FLOAT32), scalar_annotation(INT64), acc_annotation(INT64)
('pk.float', 'pk.int64', 'pk.Acc[pk.int64]')
>>> literal(float("-inf")), literal(0.1), literal(True)
('-math.inf', '0.1', 'True')
"""

from __future__ import annotations

import math

from kpc.ir.types import ArrayType, ScalarType

from .unsupported import Unsupported

# pk dtype spelling per IR scalar: `pk.float64` / `pk.float32` crash the translator (§2, §3).
_PK_DTYPE = {
    "float64": "pk.double",
    "float32": "pk.float",
    "int8": "pk.int8",
    "int16": "pk.int16",
    "int32": "pk.int32",
    "int64": "pk.int64",
    "uint8": "pk.uint8",
    "uint16": "pk.uint16",
    "uint32": "pk.uint32",
    "uint64": "pk.uint64",
}

# Element types of views: bool arrays are copied by upstream (§7), so kpc passes them as uint8.
_VIEW_STORAGE = {"bool": "uint8"}

MAX_VIEW_RANK = 8


class NotSpellable(Unsupported):
    """A type upstream PyKokkos has no spelling for (complex, tuples, ...): the kernel stays Numba."""

    def __init__(self, what: str):
        super().__init__(what, reason="PyKokkos has no type for it")


def view_storage_dtype(dtype: ScalarType) -> str:
    """The NumPy dtype name the caller hands to PyKokkos for an array of ``dtype``."""
    if dtype.is_complex:
        raise NotSpellable(f"{dtype.name} arrays")
    return _VIEW_STORAGE.get(dtype.name, dtype.name)


def scalar_annotation(ty: ScalarType) -> str:
    """Annotation of a scalar local, parameter or return value."""
    if not isinstance(ty, ScalarType):
        raise NotSpellable(f"type {ty}")
    if ty.is_bool:
        return "bool"
    if ty.name not in _PK_DTYPE:
        raise NotSpellable(f"{ty.name} scalars")
    return _PK_DTYPE[ty.name]


def view_annotation(ty: ArrayType) -> str:
    """Annotation of a view parameter: ``pk.View{rank}D[dtype]``."""
    if not 1 <= ty.ndim <= MAX_VIEW_RANK:
        raise NotSpellable(f"{ty.ndim}-d arrays")
    return f"pk.View{ty.ndim}D[{_PK_DTYPE[view_storage_dtype(ty.dtype)]}]"


def annotation(ty) -> str:
    if isinstance(ty, ArrayType):
        return view_annotation(ty)
    return scalar_annotation(ty)


def acc_annotation(ty: ScalarType) -> str:
    """Accumulator of a sum reduce/scan: double unless the value is an integer (§5)."""
    if ty.is_int or ty.is_bool:
        return "pk.Acc[pk.int64]"
    return "pk.Acc[pk.double]"


def zero(ty: ScalarType) -> str:
    """The literal a hoisted declaration starts from."""
    if ty.is_bool:
        return "False"
    if ty.is_float:
        return "0.0"
    return "0"


def literal(value) -> str:
    """A constant as PyKokkos (and Python) reads it; floats round-trip exactly (§12)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        # Upstream prints -N as -(N); N = 2**63 does not fit a signed 64-bit C++ literal.
        return f"{value + 1} - 1" if value == -(2**63) else str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "math.nan"
        if math.isinf(value):
            return "math.inf" if value > 0 else "-math.inf"
        return repr(value)
    raise NotSpellable(f"constant {value!r}")


# `math.f` names PyKokkos emits as C++ `f(...)` (§9), and the NumPy scalar spellings that mean the same.
MATH_FUNCTIONS = frozenset(
    "acos acosh asin asinh atan atan2 atanh ceil copysign cos cosh degrees erf erfc exp expm1 fabs "
    "floor fmax fmin fmod hypot isfinite isinf isnan lgamma log log10 log1p log2 pow radians "
    "remainder sin sinh sqrt tan tanh tgamma trunc".split()
)
NUMPY_TO_MATH = {
    "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh", "arctan": "atan",
    "arctan2": "atan2", "arctanh": "atanh", "power": "pow", "fabs": "fabs",
}
for _name in MATH_FUNCTIONS:
    NUMPY_TO_MATH.setdefault(_name, _name)

# Names that are valid Python identifiers but C++ keywords: a local spelled like this breaks the build.
CPP_KEYWORDS = frozenset(
    "alignas alignof asm auto bool break case catch char char16_t char32_t class const constexpr "
    "const_cast continue decltype default delete do double dynamic_cast else enum explicit export "
    "extern float for friend goto if inline int long mutable namespace new noexcept nullptr operator "
    "private protected public register reinterpret_cast return short signed sizeof static "
    "static_assert static_cast struct switch template this thread_local throw typedef typeid "
    "typename union unsigned using virtual void volatile wchar_t while "
    # C++'s alternative operator tokens are reserved too (a local named `xor` does not compile)
    "and and_eq bitand bitor compl not not_eq or or_eq xor xor_eq".split()
)
