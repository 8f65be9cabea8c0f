"""Numba's signature-string grammar: ``"f8(f8[:, :], i8)"``, ``float32[::1]``, ``Array(float64, 2, 'C')``.

Used for eager signatures in decorators (strings, and type objects written in the
source, which the frontend turns into the same text) and for ``kpc ir --signature``,
which adds a function name in front: ``potential(float64[:, :])``, optionally
``-> float64``. Dotted prefixes (``nb.float64``, ``numba.types.int64``) are accepted.

>>> sig = parse_signature("f8(f8[:, :], i8)")
>>> [str(t) for t in sig.args], str(sig.return_type)
(['f64[:, :]', 'i64'], 'f64')
>>> str(parse_type("float32[::1]")), str(parse_type("float64[::1, :]")), str(parse_type("Array(int32, 2, 'C')"))
('f32[:] C', 'f64[:, :] F', 'i32[:, :] C')
>>> sig = parse_signature("potential(float64[:, :])")
>>> sig.name, sig.return_type is None
('potential', True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .types import (
    BOOL, COMPLEX64, COMPLEX128, FLOAT32, FLOAT64, INT8, INT16, INT32, INT64, NONE,
    UINT8, UINT16, UINT32, UINT64, ArrayType, DTypeType, ScalarType, TupleType, Type,
)

SCALAR_NAMES = {
    "boolean": BOOL, "bool_": BOOL, "bool": BOOL, "b1": BOOL,
    "int8": INT8, "int16": INT16, "int32": INT32, "int64": INT64,
    "i1": INT8, "i2": INT16, "i4": INT32, "i8": INT64,
    "byte": INT8, "short": INT16, "intc": INT32, "long_": INT64, "longlong": INT64,
    "intp": INT64, "int_": INT64, "int": INT64,
    "uint8": UINT8, "uint16": UINT16, "uint32": UINT32, "uint64": UINT64,
    "u1": UINT8, "u2": UINT16, "u4": UINT32, "u8": UINT64,
    "uchar": UINT8, "ushort": UINT16, "uintc": UINT32, "ulong": UINT64, "ulonglong": UINT64,
    "uintp": UINT64,
    "float32": FLOAT32, "float64": FLOAT64, "f4": FLOAT32, "f8": FLOAT64,
    "float_": FLOAT32, "single": FLOAT32, "double": FLOAT64, "float": FLOAT64,
    "complex64": COMPLEX64, "complex128": COMPLEX128, "c8": COMPLEX64, "c16": COMPLEX128,
    "complex": COMPLEX128,
}
NONE_NAMES = {"void", "none", "None"}
_CONSTRUCTORS = {"Array", "array", "UniTuple", "Tuple", "class", "dtype"}

_TOKEN = re.compile(r"\s*(?:(->)|([A-Za-z_][A-Za-z_0-9]*(?:\s*\.\s*[A-Za-z_][A-Za-z_0-9]*)*)"
                    r"|(\d+d?)|('[^']*'|\"[^\"]*\")|(::|[()\[\],:=]))")


class SignatureError(ValueError):
    """A malformed signature or type; ``col`` is the 0-based position in the text."""

    def __init__(self, message: str, text: str, col: int):
        super().__init__(f"{message} in signature {text!r} (at column {col + 1})")
        self.text = text
        self.col = col


@dataclass(frozen=True)
class Signature:
    """A parsed signature: ``name`` (CLI form only), argument types, return type (None if absent)."""

    args: tuple
    return_type: Type | None = None
    name: str | None = None
    text: str = ""

    def __str__(self) -> str:
        inner = ", ".join(str(a) for a in self.args)
        head = self.name or ""
        ret = f" -> {self.return_type}" if self.return_type is not None else ""
        return f"{head}({inner}){ret}"


def _tokenize(text: str) -> list:
    tokens, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise SignatureError(f"unexpected character {text[pos:].lstrip()[0]!r}", text, pos)
        start = match.start(match.lastindex)
        value = match.group(match.lastindex)
        kind = {1: "arrow", 2: "name", 3: "int", 4: "str", 5: "op"}[match.lastindex]
        if kind == "name":
            value = re.sub(r"\s+", "", value).split(".")[-1]
        tokens.append((kind, value, start))
        pos = match.end()
    tokens.append(("end", "", len(text)))
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokenize(text)
        self.pos = 0

    def peek(self, offset: int = 0):
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def next(self):
        token = self.peek()
        self.pos += 1
        return token

    def error(self, message: str, token=None):
        token = token or self.peek()
        raise SignatureError(message, self.text, token[2])

    def expect(self, value: str):
        token = self.next()
        if token[1] != value or token[0] not in ("op", "arrow"):
            self.error(f"expected {value!r}, found {token[1] or 'end of text'!r}", token)
        return token

    def accept(self, value: str) -> bool:
        if self.peek()[0] in ("op", "arrow") and self.peek()[1] == value:
            self.pos += 1
            return True
        return False

    # -- types
    def type(self) -> Type:
        kind, value, _ = self.peek()
        if kind == "name" and value == "readonly":
            self.next()
            inner = self.type()
            if not isinstance(inner, ArrayType):
                self.error("'readonly' applies to arrays only")
            return ArrayType(inner.dtype, inner.ndim, inner.layout, True)
        if kind == "op" and value == "(":
            self.next()
            elements = self.type_list(")")
            return TupleType(tuple(elements))
        if kind != "name":
            self.error(f"expected a type, found {value or 'end of text'!r}")
        self.next()
        if value in _CONSTRUCTORS and self.peek()[1] == "(":
            base = self.constructor(value)
        elif value in SCALAR_NAMES:
            base = SCALAR_NAMES[value]
        elif value in NONE_NAMES:
            return NONE
        else:
            self.error(f"unknown type {value!r}", self.tokens[self.pos - 1])
        if self.peek()[1] == "[" and self.peek()[0] == "op":
            if not base.is_scalar:
                self.error("only scalar types take array dimensions")
            return self.dims(base)
        return base

    def type_list(self, closer: str) -> list:
        items = []
        while not self.accept(closer):
            items.append(self.type())
            if not self.accept(","):
                self.expect(closer)
                break
        return items

    def dims(self, dtype) -> ArrayType:
        self.expect("[")
        dims = []
        while True:
            token = self.peek()
            if self.accept("::"):
                one = self.next()
                if one[1] != "1":
                    self.error("only '::1' (contiguous) is allowed as a step", one)
                dims.append("1")
            elif self.accept(":"):
                if self.accept(":"):
                    one = self.next()
                    if one[1] != "1":
                        self.error("only '::1' (contiguous) is allowed as a step", one)
                    dims.append("1")
                else:
                    dims.append(":")
            else:
                self.error(f"expected ':' or '::1', found {token[1] or 'end of text'!r}")
            if self.accept("]"):
                break
            self.expect(",")
        contiguous = [i for i, d in enumerate(dims) if d == "1"]
        layout = "A"
        if contiguous == [len(dims) - 1]:
            layout = "C"
        elif contiguous == [0]:
            layout = "F"
        elif contiguous:
            self.error("'::1' may only mark the first (F) or the last (C) dimension")
        return ArrayType(dtype, len(dims), layout)

    def constructor(self, name: str) -> Type:
        self.expect("(")
        if name == "UniTuple":
            element = self.type()
            self.expect(",")
            count = self.next()
            if count[0] != "int":
                self.error("UniTuple needs a count", count)
            self.expect(")")
            return TupleType((element,) * int(count[1]))
        if name == "Tuple":
            if self.peek()[1] == "(":
                self.next()
                elements = self.type_list(")")
                self.expect(")")
            else:
                elements = self.type_list(")")
            return TupleType(tuple(elements))
        if name in ("class", "dtype"):  # a NumPy scalar type or dtype passed as an argument
            dtype = self.type()
            if not isinstance(dtype, ScalarType):
                self.error(f"{name}() needs a scalar type")
            self.expect(")")
            return DTypeType(dtype)
        dtype = self.type()
        if not dtype.is_scalar:
            self.error(f"{name} needs a scalar dtype")
        self.expect(",")
        ndim_token = self.next()
        if ndim_token[0] != "int":
            self.error("expected the number of dimensions", ndim_token)
        ndim = int(ndim_token[1].rstrip("d"))
        layout, readonly = "A", False
        while self.accept(","):
            token = self.next()
            if token[0] == "name" and self.accept("="):
                flag = self.next()
                if token[1] == "readonly":
                    readonly = flag[1] == "True"
                elif token[1] == "layout":
                    layout = flag[1].strip("'\"")
                continue
            if token[0] == "name" and token[1] == "readonly":
                readonly = True
                continue
            layout = token[1].strip("'\"")
            if layout not in ("C", "F", "A"):
                self.error(f"unknown layout {layout!r}", token)
        self.expect(")")
        return ArrayType(dtype, ndim, layout, readonly)

    # -- signatures
    def signature(self, function: str | None = None) -> Signature:
        """``function``: the name a leading identifier is read as even where it also names a type
        (a kernel called ``b1`` or ``f8``); ``"*"``: any leading identifier that is not a type
        constructor."""
        name, ret = None, None
        kind, value, _ = self.peek()
        named = value == function or function == "*" and value not in _CONSTRUCTORS
        if kind == "name" and self.peek(1)[1] == "(" and (named or not _is_type_head(value)):
            name = value
            self.next()
        elif kind == "op" and value == "(":
            self.next()
            first = self.type_list(")")
            if self.peek()[1] != "(":
                return self.finish(Signature(tuple(first), None, None, self.text))
            ret = TupleType(tuple(first))
        else:
            ret = self.type()
        self.expect("(")
        args = self.type_list(")")
        return self.finish(Signature(tuple(args), ret, name, self.text))

    def finish(self, sig: Signature) -> Signature:
        if self.accept("->"):
            if sig.return_type is not None:
                self.error("a signature has one return type")
            sig = Signature(sig.args, self.type(), sig.name, self.text)
        if self.peek()[0] != "end":
            self.error(f"unexpected {self.peek()[1]!r}")
        return sig


def _is_type_head(name: str) -> bool:
    return name in SCALAR_NAMES or name in NONE_NAMES or name in _CONSTRUCTORS or name == "readonly"


def parse_type(text: str) -> Type:
    """One type: ``f8``, ``int64[:, ::1]``, ``Array(float32, 1, 'C')``, ``UniTuple(f8, 2)``."""
    parser = _Parser(text)
    result = parser.type()
    if parser.peek()[0] != "end":
        parser.error(f"unexpected {parser.peek()[1]!r}")
    return result


def parse_signature(text: str, function: str | None = None) -> Signature:
    """A Numba signature (``f8(f8[:])``, ``(f8[:],)``) or a named one (``name(f8[:]) -> f8``).
    A leading ``function(`` names the function ``function`` even where it spells a type too.

    >>> parse_signature("b1(f8)").return_type, parse_signature("b1(f8)", "b1").name
    (ScalarType(name='bool'), 'b1')
    """
    return _Parser(text).signature(function)


def parse_named_signature(text: str) -> Signature:
    """A signature that starts with the function's name (``kpc ir --signature``, the call-time
    signatures of a drop-in module): ``i4(float64[:])`` is the function ``i4``, not a return type.

    >>> sig = parse_named_signature("i4(float64[:]) -> f8")
    >>> sig.name, str(sig.return_type)
    ('i4', 'f64')
    """
    return _Parser(text).signature("*")
