"""Numba's typing rules, as functions on IR types: what ``infer-types`` applies to each expression.

Each rule was checked against Numba 0.68 by compiling small functions and reading
``nopython_signatures`` / the type map (``tests/passes/test_infer_types.py`` keeps
those checks). Scalar arithmetic differs from NumPy's array promotion, so both exist:

>>> from kpc.ir.types import INT32, FLOAT32, INT16, UINT64, INT64
>>> str(binop("+", INT32, INT32)), str(binop("/", INT64, INT64)), str(binop("+", FLOAT32, INT16))
('i64', 'f64', 'f32')
>>> str(binop("**", FLOAT32, INT64)), str(math_call("floor", [FLOAT32]))
('f32', 'i64')
>>> str(unify(INT64, FLOAT32)), unify(INT64, ArrayType(FLOAT32, 1)) is None
('f64', True)
"""

from __future__ import annotations

from functools import lru_cache

from kpc.ir import intrinsics as lib
from kpc.ir.types import (
    BOOL, COMPLEX64, COMPLEX128, FLOAT32, FLOAT64, INT8, INT16, INT32, INT64, NONE, SLICE, UINT8, UINT64,
    UNKNOWN, ArrayType, DTypeType, ScalarType, TupleType, Type, promote, scalar,
)


class TypingFailure(Exception):
    """A rule does not apply to these types; the message says why (the caller adds the location)."""


# Integer types a float32 absorbs without widening to float64 (Numba's safe conversions).
_SMALL_FOR_F32 = {BOOL, INT8, INT16, UINT8}


def _is_number(t) -> bool:
    return isinstance(t, ScalarType)


def _int_result(a: ScalarType, b: ScalarType) -> ScalarType:
    """Integer arithmetic widens to the machine width: uint64 if both unsigned, else int64."""
    unsigned = lambda t: t.is_int and not t.is_signed  # noqa: E731
    return UINT64 if unsigned(a) and unsigned(b) else INT64


def _float_result(a: ScalarType, b: ScalarType) -> ScalarType:
    """At least one float: float32 only when the other is float32 or a small integer."""
    if a.is_complex or b.is_complex:
        return promote(a, b)
    if a == FLOAT32 and (b == FLOAT32 or b in _SMALL_FOR_F32):
        return FLOAT32
    if b == FLOAT32 and a in _SMALL_FOR_F32:
        return FLOAT32
    return FLOAT64


def scalar_binop(op: str, a: ScalarType, b: ScalarType) -> ScalarType:
    """``a op b`` on scalars, Numba's rules (not NumPy's: int32 + int32 is int64)."""
    floaty = a.is_float or a.is_complex or b.is_float or b.is_complex
    if op in ("&", "|", "^"):
        if floaty:
            raise TypingFailure(f"bitwise {op} needs integers, got {a} and {b}")
        return BOOL if a.is_bool and b.is_bool else _int_result(a, b)
    if op in ("<<", ">>"):
        if floaty:
            raise TypingFailure(f"shift {op} needs integers, got {a} and {b}")
        return UINT64 if (a.is_int and not a.is_signed) else INT64
    if op == "**":
        if b.is_int or b.is_bool:
            return a if a.is_float or a.is_complex else _int_result(a, b)
        return _float_result(a, b)
    if op == "/":
        return _float_result(a, b) if floaty else FLOAT64
    if op in ("+", "-", "*", "//", "%"):
        if floaty:
            if op in ("//", "%") and (a.is_complex or b.is_complex):
                raise TypingFailure(f"{op} is not defined for complex numbers")
            return _float_result(a, b)
        return _int_result(a, b)
    if op == "@":
        raise TypingFailure(f"@ needs arrays, got {a} and {b}")
    raise TypingFailure(f"unknown operator {op}")


def unary(op: str, t: Type) -> Type:
    if isinstance(t, ArrayType):
        if op == "not":
            raise TypingFailure("'not' of an array is ambiguous: use np.all/np.any")
        return ufunc_result(lib.UNARY_OPERATOR_UFUNCS[op], [t])
    if not _is_number(t):
        raise TypingFailure(f"unary {op} needs a number, got {t}")
    if op == "not":
        return BOOL
    if op == "~":
        if t.is_float or t.is_complex:
            raise TypingFailure(f"~ needs an integer, got {t}")
        return BOOL if t.is_bool else _int_result(t, t)
    if t.is_bool or t.is_int:
        return _int_result(t, t)
    return t


def binop(op: str, a: Type, b: Type) -> Type:
    """``a op b``: scalars by Numba's scalar rules, arrays by NumPy ufunc loops and broadcasting."""
    if op == "@":
        return matmul(a, b)
    if isinstance(a, ArrayType) or isinstance(b, ArrayType):
        _check_operand(a, op)
        _check_operand(b, op)
        return ufunc_result(lib.OPERATOR_UFUNCS[op], [a, b])
    if not (_is_number(a) and _is_number(b)):
        raise TypingFailure(f"{op} is not defined for {a} and {b}")
    return scalar_binop(op, a, b)


def compare(op: str, a: Type, b: Type) -> Type:
    if isinstance(a, ArrayType) or isinstance(b, ArrayType):
        return ufunc_result(lib.OPERATOR_UFUNCS[op], [a, b])
    if not (_is_number(a) and _is_number(b)):
        raise TypingFailure(f"cannot compare {a} with {b}")
    if op not in ("==", "!=") and (a.is_complex or b.is_complex):
        raise TypingFailure(f"{op} is not defined for complex numbers ({a} and {b})")
    return BOOL


def _check_operand(t: Type, op: str) -> None:
    if not isinstance(t, (ArrayType, ScalarType)):
        raise TypingFailure(f"{op} is not defined for {t}")


def unify(a: Type, b: Type) -> Type | None:
    """The type both ``a`` and ``b`` convert to (Numba's unification), None if there is none."""
    if a == b:
        return a
    if a is UNKNOWN or a == UNKNOWN:
        return b
    if b is UNKNOWN or b == UNKNOWN:
        return a
    if isinstance(a, ScalarType) and isinstance(b, ScalarType):
        return promote(a, b)
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        if a.dtype != b.dtype or a.ndim != b.ndim:
            return None
        layout = a.layout if a.layout == b.layout else "A"
        return ArrayType(a.dtype, a.ndim, layout, a.readonly or b.readonly)
    if isinstance(a, TupleType) and isinstance(b, TupleType) and len(a.elements) == len(b.elements):
        elements = [unify(x, y) for x, y in zip(a.elements, b.elements)]
        return None if any(e is None for e in elements) else TupleType(tuple(elements))
    return None


def can_convert(source: Type, target: Type) -> bool:
    """Whether a value of ``source`` may be stored where ``target`` is declared (implicit cast)."""
    if source == target or source == UNKNOWN:
        return True
    if isinstance(source, ScalarType) and isinstance(target, ScalarType):
        return not (source.is_complex and not target.is_complex)
    if isinstance(source, ArrayType) and isinstance(target, ArrayType):
        return (source.dtype == target.dtype and source.ndim == target.ndim
                and (target.layout == "A" or source.layout == target.layout)
                and (target.readonly or not source.readonly))
    if isinstance(source, TupleType) and isinstance(target, TupleType):
        return len(source.elements) == len(target.elements) and all(
            can_convert(s, t) for s, t in zip(source.elements, target.elements))
    return False


# --------------------------------------------------------------------------- builtins and math


def range_type(args: list) -> ScalarType:
    """The loop variable of ``range(*args)``: int32 when every bound is a signed int of at most
    32 bits, uint64 when every bound is unsigned, else int64 (Numba's range iterators)."""
    for t in args:
        if not (isinstance(t, ScalarType) and (t.is_int or t.is_bool)):
            raise TypingFailure(f"range() bounds must be integers, got {t}")
    if all(t.is_bool or (t.is_signed and t.bits <= 32) for t in args):
        return INT32
    if all(t.is_int and not t.is_signed for t in args):
        return UINT64
    return INT64


def builtin_call(name: str, args: list) -> Type:
    if name == "len":
        if len(args) != 1 or not isinstance(args[0], (ArrayType, TupleType)):
            raise TypingFailure(f"len() needs one array or tuple, got {_list(args)}")
        return INT64
    if name == "abs":
        (t,) = _arity(name, args, 1)
        if isinstance(t, ArrayType):
            return ufunc_result("absolute", [t])
        _need_number(name, t)
        if t.is_bool:
            return INT8
        if t.is_complex:
            return FLOAT32 if t.bits == 64 else FLOAT64
        return t
    if name == "complex":
        for t in _arity(name, args, 2):
            _need_number(name, t)
            if t.is_complex:
                raise TypingFailure(f"complex(re, im) needs real parts, got {t}")
        return COMPLEX128
    if name in ("min", "max"):
        if len(args) < 2:
            raise TypingFailure(f"{name}() of one argument iterates it: use np.{name}(a) for arrays")
        result = None
        for t in args:
            _need_number(name, t)
            result = t if result is None else (result if result == t else promote(result, t))
        return result
    if name == "round":
        if len(args) == 1:
            _need_number(name, args[0])
            return INT64
        x, _ = _arity(name, args, 2)
        _need_number(name, x)
        return x if x.is_float else FLOAT64
    raise TypingFailure(f"unknown builtin {name}()")


def builtin_cast(name: str, value: ScalarType, default: ScalarType) -> ScalarType:
    """``float(x)``, ``int(x)``, ``bool(x)``, ``complex(x)`` of a scalar, as Numba types them.

    ``float`` keeps float32 (other numbers give float64) and ``int`` keeps every integer type
    (floats and bools give int64); ``float(True)`` does not compile in Numba.

    >>> from kpc.ir.types import UINT8
    >>> [str(builtin_cast("float", t, FLOAT64)) for t in (FLOAT32, INT32)]
    ['f32', 'f64']
    >>> [str(builtin_cast("int", t, INT64)) for t in (INT32, UINT8, FLOAT32, BOOL)]
    ['i32', 'u8', 'i64', 'i64']
    """
    if name == "float":
        if value.is_bool:
            raise TypingFailure("float() of a bool does not compile in Numba: use 1.0 if b else 0.0")
        return FLOAT32 if value == FLOAT32 else FLOAT64
    if name == "int" and value.is_int:
        return value
    if name.startswith("cmath."):
        return cmath_argument(name, value)
    return default


def cmath_argument(name: str, value: ScalarType) -> ScalarType:
    """The complex type ``cmath.<f>`` computes in for an argument of type ``value``: complex64
    for float32 and complex64, else complex128; a real argument of a function Numba implements
    for complex numbers only (``cmath.phase(1.0)``) does not compile.

    >>> [str(cmath_argument("cmath.exp", t)) for t in (FLOAT32, INT32, COMPLEX64)]
    ['c64', 'c128', 'c64']
    """
    if value.is_complex:
        return value
    if name[len("cmath."):] in lib.CMATH_COMPLEX_ONLY:
        raise TypingFailure(f"{name}() of a {value} does not compile in Numba (complex arguments only)")
    return COMPLEX64 if value == FLOAT32 else COMPLEX128


def math_call(name: str, args: list) -> Type:
    """``math.<name>(*args)`` on scalars."""
    for t in args:
        _need_number(f"math.{name}", t)
        if t.is_complex:
            raise TypingFailure(f"math.{name}() does not take complex numbers (use cmath)")
    if name in lib.MATH_FLOAT_UNARY:
        (t,) = _arity(name, args, 1)
        return t if t.is_float else FLOAT64
    if name in lib.MATH_INT_RESULT:
        _arity(name, args, 1)
        return INT64
    if name in lib.MATH_BOOL_RESULT:
        _arity(name, args, 1)
        return BOOL
    if name in lib.MATH_FLOAT_BINARY:
        a, b = _arity(name, args, 2)
        if not (a.is_float or b.is_float):
            return FLOAT64
        return _float_result(a, b)
    if name == "ldexp":
        x, i = _arity(name, args, 2)
        if not (i.is_int or i.is_bool):
            raise TypingFailure(f"math.ldexp() needs an integer exponent, got {i}")
        return x if x.is_float else FLOAT64
    if name == "gcd":
        a, b = _arity(name, args, 2)
        if not (a.is_int or a.is_bool) or not (b.is_int or b.is_bool):
            raise TypingFailure(f"math.gcd() needs integers, got {a} and {b}")
        return a if a == b else promote(a, b)
    raise TypingFailure(f"math.{name}() is not supported")


def _arity(name: str, args: list, count: int) -> list:
    if len(args) != count:
        raise TypingFailure(f"{name}() takes {count} argument{'s' if count > 1 else ''}, got {len(args)}")
    return args


def _need_number(name: str, t: Type) -> None:
    if not isinstance(t, ScalarType):
        raise TypingFailure(f"{name}() needs a number, got {t}")


def _list(types: list) -> str:
    return ", ".join(str(t) for t in types) or "nothing"


# --------------------------------------------------------------------------- arrays


def dtype_of(t: Type) -> ScalarType:
    if isinstance(t, ArrayType):
        return t.dtype
    if isinstance(t, ScalarType):
        return t
    raise TypingFailure(f"expected an array or a number, got {t}")


@lru_cache(maxsize=None)
def _ufunc_loop(ufunc_name: str, dtypes: tuple) -> tuple:
    """NumPy's loop selection as Numba does it (``ufunc_find_matching_loop``): the first loop
    whose inputs every operand casts to safely; integers cast to any float when the inputs
    mix integers and floats. Returns the output dtype names."""
    import numpy as np

    ufunc = getattr(np, ufunc_name)
    inputs = [np.dtype(d) for d in dtypes]
    mixed = any(d.kind in "iu" for d in inputs) and any(d.kind in "cf" for d in inputs)
    for candidate in ufunc.types:
        ins, outs = candidate.split("->")
        if "e" in ins or "O" in ins or any(c in "mMSUVgG" for c in ins + outs):
            continue
        ok = True
        for have, want in zip(inputs, ins):
            want = np.dtype(want)
            if mixed and have.kind in "iu" and want.kind in "cf":
                continue
            if not np.can_cast(have, want, "safe"):
                ok = False
                break
        if ok:
            return tuple(np.dtype(c).name for c in outs)
    raise TypingFailure(f"np.{ufunc_name} has no loop for {', '.join(dtypes)}")


def ufunc_result(ufunc_name: str, args: list) -> Type:
    """Result of an element-wise NumPy function: the loop's dtype, broadcast to the widest rank."""
    for t in args:
        if not isinstance(t, (ArrayType, ScalarType)):
            raise TypingFailure(f"np.{ufunc_name} needs arrays or numbers, got {t}")
    dtypes = tuple(dtype_of(t).name for t in args)
    out = _ufunc_loop(ufunc_name, dtypes)[0]
    ndim = max((t.ndim for t in args if isinstance(t, ArrayType)), default=0)
    if ndim == 0:
        return scalar(out)
    return ArrayType(scalar(out), ndim, "C")


def matmul(a: Type, b: Type) -> Type:
    """``np.dot``/``@``: 1-D·1-D is a scalar, 2-D·1-D and 1-D·2-D are 1-D, 2-D·2-D is 2-D."""
    if not (isinstance(a, ArrayType) and isinstance(b, ArrayType)):
        if isinstance(a, ScalarType) and isinstance(b, ScalarType):
            raise TypingFailure(f"@ needs arrays, got {a} and {b}")
        raise TypingFailure(f"np.dot/@ needs two arrays here, got {a} and {b}")
    if a.ndim not in (1, 2) or b.ndim not in (1, 2):
        raise TypingFailure(f"np.dot/@ takes 1-D or 2-D arrays, got {a.ndim}-D and {b.ndim}-D")
    dtype = a.dtype if a.dtype == b.dtype else promote(a.dtype, b.dtype)
    ndim = a.ndim + b.ndim - 2
    return dtype if ndim == 0 else ArrayType(dtype, ndim, "C")


def _contiguity_keeps(kinds: list) -> bool:
    """Whether integer/slice indices (outer to inner) keep an array contiguous (Numba's rule)."""
    for i, kind in enumerate(kinds):
        innermost = i == len(kinds) - 1
        if kind == "int" or (innermost and kind == "slice"):
            continue
        return False
    return True


def index_type(base: Type, indices: list, const_values: list) -> Type:
    """``base[indices]``. ``indices`` are the index types (``SLICE`` for slices, ``NONE`` for
    ``np.newaxis``); ``const_values`` the constant value of each index, ``"strided"`` for a
    slice with a step, else None."""
    if isinstance(base, TupleType):
        if len(indices) != 1:
            raise TypingFailure(f"a tuple takes one index, got {len(indices)}")
        value = const_values[0]
        if isinstance(value, int) and not isinstance(value, bool):
            if not -len(base.elements) <= value < len(base.elements):
                raise TypingFailure(f"tuple index {value} out of range for {base}")
            return base.elements[value]
        if indices[0] == SLICE:
            raise TypingFailure("slicing a tuple is not supported")
        if base.elements and all(e == base.elements[0] for e in base.elements):
            return base.elements[0]
        raise TypingFailure(f"a tuple of mixed types {base} needs a constant index")
    if not isinstance(base, ArrayType):
        raise TypingFailure(f"cannot index a value of type {base}")
    kinds = []
    array_index = None
    for t, value in zip(indices, const_values):
        if t == SLICE:
            kinds.append("strided" if value == "strided" else "slice")
        elif t == NONE:
            kinds.append("none")
        elif isinstance(t, ScalarType) and (t.is_int or t.is_bool) and not t.is_bool:
            kinds.append("int")
        elif isinstance(t, ArrayType) and (t.dtype.is_int or t.dtype.is_bool):
            if array_index is not None:
                raise TypingFailure("at most one array index is supported")
            array_index = t
            kinds.append("array")
        else:
            raise TypingFailure(f"array index must be an integer, a slice or np.newaxis, got {t}")
    real = [k for k in kinds if k != "none"]
    if len(real) > base.ndim:
        raise TypingFailure(f"too many indices for {base}: {len(real)} given")
    n_int = real.count("int")
    n_none = kinds.count("none")
    if array_index is not None:
        if array_index.dtype.is_bool:
            if len(real) == 1 and array_index.ndim == 1 and base.ndim > 1:
                return ArrayType(base.dtype, base.ndim, "C")  # x[rows]: the rows where the mask is true
            if array_index.ndim != base.ndim or len(real) != 1:
                raise TypingFailure("a boolean mask must have the array's rank, or select rows, and be its only "
                                    "index")
            return ArrayType(base.dtype, 1, "C")
        ndim = base.ndim - n_int - 1 + array_index.ndim + n_none
        return ArrayType(base.dtype, ndim, "C") if ndim else base.dtype
    ndim = base.ndim - n_int + n_none
    if ndim == 0:
        return base.dtype
    layout = base.layout
    if layout == "C" and not _contiguity_keeps(real):
        layout = "A"
    elif layout == "F" and (len(real) != base.ndim or not _contiguity_keeps(real[::-1])):
        layout = "A"
    return ArrayType(base.dtype, ndim, layout, base.readonly)


def attribute_type(base: Type, attr: str) -> Type:
    if attr in ("real", "imag") and isinstance(base, ScalarType):
        _need_number(f".{attr}", base)
        if base.is_complex:
            return FLOAT32 if base == COMPLEX64 else FLOAT64
        return base
    if attr in ("real", "imag") and isinstance(base, ArrayType):
        # Numba: views of the parts of a complex array; of a real array, .real is the array
        # itself and .imag a read-only array of zeros.
        if base.dtype.is_complex:
            return ArrayType(FLOAT32 if base.dtype == COMPLEX64 else FLOAT64, base.ndim, "A", base.readonly)
        return base if attr == "real" else ArrayType(base.dtype, base.ndim, "C", True)
    if attr in ("real", "imag"):
        raise TypingFailure(f".{attr} needs a number or an array, got {base}")
    if attr == "dtype" and isinstance(base, ScalarType):
        return DTypeType(base)  # a NumPy scalar's (kpc's stencil kernels allocate their result with it)
    if not isinstance(base, ArrayType):
        raise TypingFailure(f".{attr} needs an array, got {base}")
    if attr == "shape":
        return TupleType((INT64,) * base.ndim)
    if attr in ("size", "ndim"):
        return INT64
    if attr == "T":
        layout = {"C": "F", "F": "C"}.get(base.layout, "A") if base.ndim > 1 else base.layout
        return ArrayType(base.dtype, base.ndim, layout, base.readonly)
    if attr == "dtype":
        return DTypeType(base.dtype)
    raise TypingFailure(f"unsupported attribute .{attr}")


def reduction_dtype(name: str, dtype: ScalarType) -> ScalarType:
    """Element type of ``np.<name>(a)`` for an array of ``dtype``."""
    if name in ("sum", "nansum", "prod", "cumsum", "cumprod"):
        if dtype.is_bool or (dtype.is_int and dtype.is_signed):
            return INT64
        if dtype.is_int:
            return UINT64
        return dtype
    if name == "median":
        return FLOAT64  # the mean of the middle pair (a float64 division) or the middle element
    if name in ("mean", "nanmean"):
        return dtype if dtype.is_float or dtype.is_complex else FLOAT64
    if name in ("std", "var"):
        return FLOAT64 if not dtype.is_complex else FLOAT64
    if name in ("argmin", "argmax", "count_nonzero"):
        return INT64
    if name in ("any", "all"):
        return BOOL
    return dtype


def shape_rank(t: Type) -> int:
    """Rank of an array allocated with shape ``t`` (an int or a tuple of ints)."""
    if isinstance(t, ScalarType) and (t.is_int or t.is_bool):
        return 1
    if isinstance(t, TupleType) and all(isinstance(e, ScalarType) and e.is_int for e in t.elements):
        return len(t.elements)
    raise TypingFailure(f"a shape must be an integer or a tuple of integers, got {t}")


def dtype_arg(t: Type) -> ScalarType:
    if isinstance(t, DTypeType):
        return t.dtype
    raise TypingFailure(f"expected a dtype (np.float32, float, a.dtype), got {t}")


def literal_type(value) -> Type:
    """The type of a Python constant as Numba sees it (ints are int64, floats float64)."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT64 if -2 ** 63 <= value < 2 ** 63 else UINT64
    if isinstance(value, float):
        return FLOAT64
    if isinstance(value, complex):
        return COMPLEX128
    if value is None:
        return NONE
    if isinstance(value, tuple):
        return TupleType(tuple(literal_type(v) for v in value))
    if isinstance(value, str):
        return DTypeType(scalar(value))
    raise TypingFailure(f"unsupported constant {value!r}")
