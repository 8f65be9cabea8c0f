"""Compare what two implementations of a kernel returned and wrote.

Integers and booleans must match exactly.  Floats match when
``|actual - expected| <= atol + rtol * |expected|`` element-wise, where
``rtol`` defaults to the precision of the data (1e-12 for float64, 1e-5 for
float32) and the absolute floor ``atol`` defaults to ``rtol`` times the
magnitude of the data (the largest finite ``|expected|`` in the compared value,
or a larger ``scale`` the caller passes, such as the largest input): parallel
reductions reassociate sums, so a result near zero from cancelling terms is
only as exact as the terms were large.  NaNs match NaNs, infinities match
infinities of the same sign.  A call that raised matches another that raised
the same exception type (``Outcome.raised``); raising where the other returned
is a mismatch (Numba's ``ZeroDivisionError`` against kpc's inf, say).

>>> compare_values(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.5, 3.0]))
Mismatch(where='return', reason='value', index=(1,), expected=2.0, actual=2.5, ...)
>>> print(compare_values((1, 2.0), (1, 2.0)))
None
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

_DEFAULT_RTOL = {"float64": 1e-12, "float32": 1e-5, "float16": 1e-3}


class NumbaDepartsFromPython(UserWarning):
    """A kernel's output differs from Numba's but agrees with the kernel run as plain Python
    (Numba departs from Python there). Defined in an importable module: pytest-xdist's
    controller imports a warning's class by module name, and a test module is not one."""


def default_rtol(dtype: object) -> float:
    """Relative tolerance for results computed in ``dtype`` (0.0 for exact types)."""
    dt = np.dtype(dtype)
    if dt.kind == "c":
        dt = np.dtype(f"f{dt.itemsize // 2}")
    if dt.kind != "f":
        return 0.0
    return _DEFAULT_RTOL.get(dt.name, _DEFAULT_RTOL["float64"])


@dataclass(frozen=True)
class Outcome:
    """What one call of a kernel produced: its return value and the arrays it wrote, or the
    exception it raised (``raised``: ``"ZeroDivisionError: division by zero"``, else ``""``)."""

    returned: object
    written: Mapping[str, np.ndarray] = field(default_factory=dict)
    stray_writes: tuple[str, ...] = ()
    raised: str = ""

    @property
    def exception_type(self) -> str:
        """The name of the raised exception's type, ``""`` when the call returned."""
        return self.raised.split(":", 1)[0]


@dataclass(frozen=True)
class Mismatch:
    """The first difference found between an expected and an actual result.

    ``where`` names the value (``"return"``, ``"return[1]"``, ``"arg 'out'"``),
    ``reason`` the kind of difference (``value``, ``shape``, ``dtype``, ``kind``,
    ``type``, ``length``, ``missing``, ``stray write``), ``index`` the first
    differing element of an array (C order) or ``None``.
    """

    where: str
    reason: str
    index: tuple[int, ...] | None
    expected: object
    actual: object
    detail: str = field(default="", repr=False)

    def __repr__(self) -> str:
        return (f"Mismatch(where={self.where!r}, reason={self.reason!r}, index={self.index!r}, "
                f"expected={self.expected!r}, actual={self.actual!r}, ...)")

    @property
    def message(self) -> str:
        at = f" at index {self.index}" if self.index is not None else ""
        text = f"{self.where}: {self.reason} mismatch{at}: expected {self.expected!r}, got {self.actual!r}"
        return f"{text} ({self.detail})" if self.detail else text

    def __str__(self) -> str:
        return self.message


def compare_values(
    expected: object,
    actual: object,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    scale: float = 0.0,
    check_dtype: bool = True,
    where: str = "return",
) -> Mismatch | None:
    """Compare two results (scalars, arrays, tuples of them, ``None``).

    With ``check_dtype`` (the default, for kpc against Numba) the kinds of
    values (bool, integer, float, complex) must agree, and arrays must have
    the same dtype.  Without it only values count: an integer ``0`` matches a
    float ``0.0``, a float32 array matches a float64 one within tolerance
    (plain Python and Numba type some expressions differently).
    """
    if isinstance(expected, tuple) or isinstance(actual, tuple):
        if not (isinstance(expected, tuple) and isinstance(actual, tuple)):
            return Mismatch(where, "type", None, _describe(expected), _describe(actual))
        if len(expected) != len(actual):
            return Mismatch(where, "length", None, len(expected), len(actual),
                            "tuples of different lengths")
        for k, (e, a) in enumerate(zip(expected, actual)):
            found = compare_values(e, a, rtol=rtol, atol=atol, scale=scale, check_dtype=check_dtype,
                            where=f"{where}[{k}]")
            if found:
                return found
        return None
    if expected is None or actual is None:
        if expected is None and actual is None:
            return None
        return Mismatch(where, "type", None, _describe(expected), _describe(actual))
    if isinstance(expected, np.ndarray) != isinstance(actual, np.ndarray):
        return Mismatch(where, "type", None, _describe(expected), _describe(actual))
    return _compare_arrays(np.asarray(expected), np.asarray(actual), rtol, atol, scale, check_dtype, where)


def compare_outcomes(
    expected: Outcome,
    actual: Outcome,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    scale: float = 0.0,
    check_dtype: bool = True,
) -> Mismatch | None:
    """Compare raised exceptions (by type), else return values, then every written argument (by
    name), then stray writes.

    >>> raised = Outcome(None, raised="ZeroDivisionError: division by zero")
    >>> print(compare_outcomes(raised, Outcome(None, raised="ZeroDivisionError: float division by zero")))
    None
    >>> compare_outcomes(raised, Outcome(np.inf)).message
    "raise: exception mismatch: expected 'ZeroDivisionError: division by zero', got 'no exception'"
    """
    if expected.raised or actual.raised:
        if expected.exception_type == actual.exception_type:
            return None
        return Mismatch("raise", "exception", None, expected.raised or "no exception",
                        actual.raised or "no exception")
    found = compare_values(expected.returned, actual.returned, rtol=rtol, atol=atol, scale=scale,
                    check_dtype=check_dtype, where="return")
    if found:
        return found
    for name, value in expected.written.items():
        where = f"arg {name!r}"
        if name not in actual.written:
            return Mismatch(where, "missing", None, _describe(value), None, "the written argument was not recorded")
        found = compare_values(value, actual.written[name], rtol=rtol, atol=atol, scale=scale,
                        check_dtype=check_dtype, where=where)
        if found:
            return found
    if actual.stray_writes:
        return Mismatch("arguments", "stray write", None, (), actual.stray_writes,
                        "the kernel wrote memory it should not have")
    return None


def _compare_arrays(e: np.ndarray, a: np.ndarray, rtol, atol, scale, check_dtype, where) -> Mismatch | None:
    if e.shape != a.shape:
        return Mismatch(where, "shape", None, e.shape, a.shape)
    ek, ak = _kind(e.dtype), _kind(a.dtype)
    if ek != ak and (check_dtype or not {ek, ak} <= {"bool", "integer", "float"}):
        return Mismatch(where, "kind", None, f"{ek} ({_dtype_name(e)})", f"{ak} ({_dtype_name(a)})")
    if check_dtype and e.ndim and e.dtype != a.dtype:
        return Mismatch(where, "dtype", None, e.dtype.name, a.dtype.name)
    inexact = {ek, ak} & {"float", "complex"}
    if not inexact:
        bad = e != a
    else:
        if rtol is None:
            rtol = max(default_rtol(e.dtype), default_rtol(a.dtype))
        if atol is None:
            finite = np.abs(e[np.isfinite(e)])
            magnitude = float(finite.max()) if finite.size else 0.0
            atol = rtol * max(magnitude, scale)
        bad = ~_close(e, a, rtol, atol)
    if not bad.any():
        return None
    index = tuple(int(i) for i in np.argwhere(bad)[0]) if e.ndim else None
    ev, av = (e[index], a[index]) if e.ndim else (e[()], a[()])
    detail = f"{int(bad.sum())} of {bad.size} elements differ" if e.ndim else ""
    if inexact:
        err = abs(complex(av) - complex(ev))
        tol = f"abs error {err:.3g} > atol {atol:.3g} + rtol {rtol:.3g} * |expected|"
        detail = f"{detail}; {tol}" if detail else tol
    return Mismatch(where, "value", index, ev.item(), av.item(), detail)


def _close(e: np.ndarray, a: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        e64 = e.astype(np.complex128 if e.dtype.kind == "c" else np.float64)
        a64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
        finite = np.isfinite(e64) & np.isfinite(a64)
        close = finite & (np.abs(a64 - e64) <= atol + rtol * np.abs(e64))
        both_nan = np.isnan(e64) & np.isnan(a64)
        same_inf = np.isinf(e64) & (e64 == a64)
    return close | both_nan | same_inf


def _kind(dtype: np.dtype) -> str:
    return {"b": "bool", "i": "integer", "u": "integer", "f": "float", "c": "complex"}.get(dtype.kind, dtype.kind)


def _dtype_name(arr: np.ndarray) -> str:
    return arr.dtype.name


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"array {value.dtype.name}{list(value.shape)}"
    if isinstance(value, tuple):
        return f"tuple of {len(value)}"
    return type(value).__name__
