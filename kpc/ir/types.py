"""Types of the kernel IR: scalars, arrays (Kokkos views), tuples and none.

Types are frozen dataclasses: hashable, comparable, and printed the way the
IR dump shows them.

>>> str(ArrayType(FLOAT64, 2, "C"))
'f64[:, :] C'
>>> str(TupleType((INT64, FLOAT32)))
'(i64, f32)'
>>> promote(INT64, FLOAT32)
ScalarType(name='float64')
>>> promote(FLOAT32, FLOAT32)
ScalarType(name='float32')
"""

from __future__ import annotations

from dataclasses import dataclass

_SHORT = {
    "bool": "bool",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float32": "f32", "float64": "f64",
    "complex64": "c64", "complex128": "c128",
}
_BITS = {
    "bool": 1, "int8": 8, "int16": 16, "int32": 32, "int64": 64,
    "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64,
    "float32": 32, "float64": 64, "complex64": 64, "complex128": 128,
}


class Type:
    """Base of all IR types."""

    @property
    def is_scalar(self) -> bool:
        return isinstance(self, ScalarType)

    @property
    def is_array(self) -> bool:
        return isinstance(self, ArrayType)


@dataclass(frozen=True)
class ScalarType(Type):
    """A scalar: ``bool``, ``int8..int64``, ``uint8..uint64``, ``float32/64``, ``complex64/128``."""

    name: str

    def __post_init__(self):
        if self.name not in _SHORT:
            raise ValueError(f"unknown scalar type {self.name!r}")

    @property
    def bits(self) -> int:
        return _BITS[self.name]

    @property
    def is_bool(self) -> bool:
        return self.name == "bool"

    @property
    def is_int(self) -> bool:
        return "int" in self.name

    @property
    def is_signed(self) -> bool:
        return self.name.startswith("int") or self.is_float or self.is_complex

    @property
    def is_float(self) -> bool:
        return self.name.startswith("float")

    @property
    def is_complex(self) -> bool:
        return self.name.startswith("complex")

    @property
    def numpy_name(self) -> str:
        return self.name

    def __str__(self) -> str:
        return _SHORT[self.name]


@dataclass(frozen=True)
class ArrayType(Type):
    """An array (a Kokkos view): element type, rank, layout ``C``/``F``/``A``, mutability."""

    dtype: ScalarType
    ndim: int
    layout: str = "A"
    readonly: bool = False

    def __post_init__(self):
        if self.layout not in ("C", "F", "A"):
            raise ValueError(f"unknown layout {self.layout!r}")

    def with_ndim(self, ndim: int, layout: str | None = None) -> "ArrayType":
        return ArrayType(self.dtype, ndim, layout or self.layout, self.readonly)

    def __str__(self) -> str:
        dims = ", ".join(":" for _ in range(self.ndim))
        text = f"{self.dtype}[{dims}]"
        if self.layout != "A":
            text += f" {self.layout}"
        if self.readonly:
            text += " readonly"
        return text


@dataclass(frozen=True)
class TupleType(Type):
    """A fixed-size heterogeneous tuple, e.g. the result of ``return a, b`` or ``a.shape``."""

    elements: tuple

    def __str__(self) -> str:
        inner = ", ".join(str(e) for e in self.elements)
        if len(self.elements) == 1:
            inner += ","
        return f"({inner})"


@dataclass(frozen=True)
class NoneType(Type):
    """The type of ``None`` (functions that return nothing)."""

    def __str__(self) -> str:
        return "none"


@dataclass(frozen=True)
class UnknownType(Type):
    """Not inferred yet (before ``infer-types``), printed as ``?``."""

    def __str__(self) -> str:
        return "?"


@dataclass(frozen=True)
class SliceType(Type):
    """The type of a ``Slice`` inside an index (``lo:hi:step``); not a value of its own."""

    def __str__(self) -> str:
        return "slice"


@dataclass(frozen=True)
class DTypeType(Type):
    """The type of a dtype reference (``np.float32``, ``a.dtype``, ``dtype=float``)."""

    dtype: ScalarType

    def __str__(self) -> str:
        return f"dtype({self.dtype})"


BOOL = ScalarType("bool")
INT8, INT16, INT32, INT64 = (ScalarType(f"int{b}") for b in (8, 16, 32, 64))
UINT8, UINT16, UINT32, UINT64 = (ScalarType(f"uint{b}") for b in (8, 16, 32, 64))
FLOAT32, FLOAT64 = ScalarType("float32"), ScalarType("float64")
COMPLEX64, COMPLEX128 = ScalarType("complex64"), ScalarType("complex128")
NONE = NoneType()
UNKNOWN = UnknownType()
SLICE = SliceType()

SCALARS = {name: ScalarType(name) for name in _SHORT}
_BY_SHORT = {short: ScalarType(name) for name, short in _SHORT.items()}


def runtime_type(t: Type) -> tuple:
    """``t`` as the runtime spells an argument type (``kpc.runtime.argument_types.typeof``):
    ``("array", dtype, ndim, layout)`` or ``("scalar", dtype)``.

    >>> runtime_type(ArrayType(scalar("float32"), 2, "C")), runtime_type(scalar("int64"))
    (('array', 'float32', 2, 'C'), ('scalar', 'int64'))
    """
    if isinstance(t, ArrayType):
        return ("array", t.dtype.name, t.ndim, t.layout)
    if isinstance(t, ScalarType):
        return ("scalar", t.name)
    raise ValueError(f"kpc cannot take arguments of type {t} from Python yet")


def scalar(name: str) -> ScalarType:
    """The scalar type for a NumPy name (``float64``) or a short name (``f64``)."""
    if name in SCALARS:
        return SCALARS[name]
    if name in _BY_SHORT:
        return _BY_SHORT[name]
    raise ValueError(f"unknown scalar type {name!r}")


def promote(a: ScalarType, b: ScalarType) -> ScalarType:
    """The result type of arithmetic between two scalars, following Numba/NumPy rules.

    bool behaves as an integer; signed with unsigned of the same width widens to
    the next signed type (uint64 with a signed int gives float64, as in NumPy);
    int with float gives float64 unless the int is narrower than the float's
    mantissa rules allow float32 (NumPy: int8/int16 with float32 stay float32).
    """
    if a == b:
        return INT64 if a.is_bool else a
    if a.is_complex or b.is_complex:
        return COMPLEX64 if {a, b} <= {COMPLEX64, FLOAT32, BOOL, INT8, INT16, UINT8, UINT16} else COMPLEX128
    if a.is_float or b.is_float:
        f, other = (a, b) if a.is_float else (b, a)
        if other.is_float:
            return FLOAT64
        if f == FLOAT32 and other.bits <= 16:
            return FLOAT32
        return FLOAT64
    a = INT64 if a.is_bool else a
    b = INT64 if b.is_bool else b
    if a.is_signed == b.is_signed:
        return a if a.bits >= b.bits else b
    signed, unsigned = (a, b) if a.is_signed else (b, a)
    if signed.bits > unsigned.bits:
        return signed
    if unsigned.bits < 64:
        return ScalarType(f"int{unsigned.bits * 2}")
    return FLOAT64
