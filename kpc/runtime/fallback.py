"""When kpc cannot type or compile a function for a call's argument types: the Numba function runs.

A drop-in module compiles a function without a signature on its first call with new
argument types. If kpc cannot type it for them (a type error the build could not see
under assumed types), the Kokkos emitter refuses it, the C++ compiler fails, or the
compiled module does not load, the call runs the original Numba function instead: the
drop-in module is never worse than the Numba module it replaces. That happens once per
function and signature: a ``KpcFallbackWarning`` names the place (``file:line:col``), the
construct and, for a compiler failure, the kept generated source; the decision is
recorded in the build cache's index (keyed like the specialization, so a changed source
or kpc tries again) where ``kpc cache ls`` and the report of a later ``kpc build`` show it.
``KPC_STRICT=1`` in the environment (or ``kpc.jit(strict=True)``) raises instead.

>>> record = failure_record(SpecializationTypeError(
...     "m.py:9:9: error: array index must be an integer, got f64\\n    counts[b] += 1"), "hist")
>>> record["kind"], record["location"], record["construct"]
('type', 'm.py:9:9', 'type error')
>>> print(fallback_message("hist", "int64[:], int64", record))
m.py:9:9: kpc cannot type hist(int64[:], int64) (type error: array index must be an integer, got f64); the Numba function runs for these argument types
"""

from __future__ import annotations

import os
import re
import time

from .kokkos_session import ForkedChild, KokkosFinalized


class KpcFallbackWarning(UserWarning):
    """kpc could not type or compile a function for some argument types; Numba runs it for them."""


class SpecializationTypeError(Exception):
    """The compiler could not type a function for the given argument types; ``diagnostic``:
    the compiler's (``kpc.ir.diagnostics.Diagnostic``: place, construct), when it gave one."""

    def __init__(self, message: str, diagnostic=None):
        super().__init__(message)
        self.diagnostic = diagnostic


# Errors that say nothing about the function: they propagate as they are.
PROPAGATE = (ForkedChild, KokkosFinalized, MemoryError)

_PLACE = re.compile(r"(?P<loc>[^\s:]+\.py:\d+:\d+)")


def strict_mode(dispatcher_strict: bool = False) -> bool:
    """``KPC_STRICT`` set to anything but ``0``/empty, or the function's own ``strict``."""
    return dispatcher_strict or os.environ.get("KPC_STRICT", "") not in ("", "0")


def failure_record(error: BaseException, function: str) -> dict:
    """What a failed specialization left to say (JSON-able): kind, place, construct, reason,
    and the kept generated source for a compiler failure."""
    text = str(error)
    diagnostic = getattr(error, "diagnostic", None)
    generated = getattr(error, "source", None)
    if isinstance(error, SpecializationTypeError):
        kind, construct = "type", "type error"
    elif type(error).__name__ == "BackendError":
        kind, construct = "emit", "Kokkos backend"
    elif generated is not None or type(error).__name__ in ("CompileError", "BuildFailed"):
        kind, construct = "compile", "C++ compiler"
    else:
        kind, construct = "error", type(error).__name__
    location = None
    if diagnostic is not None:
        construct = diagnostic.construct or construct
        location = str(diagnostic.loc) if diagnostic.loc.line > 0 else None
        message = diagnostic.message
    else:
        loc = getattr(error, "loc", None)
        if loc is not None and getattr(loc, "line", 0) > 0:
            location = str(loc)
        found = _PLACE.search(text)
        location = location or (found["loc"] if found else None)
        message = _first_message(text, location)
    return {
        "fallback": text, "kind": kind, "function": function, "location": location, "construct": construct,
        "message": message, "generated": str(generated) if generated is not None else None,
        "created": time.time(),
    }


def _first_message(text: str, location: str | None) -> str:
    """The first line of ``text`` that says something, without a leading ``file:line:col: error:``."""
    for line in text.splitlines():
        line = line.strip()
        if location and line.startswith(location):
            line = line[len(location):].lstrip(": ")
        line = re.sub(r"^(fatal )?error:\s*", "", line)
        if line and not line.startswith("compiling "):
            return line
    return text.splitlines()[0] if text else ""


def fallback_message(function: str, signature: str, record: dict, earlier: bool = False) -> str:
    """The warning's text: place, what failed, the construct, and the kept source if any."""
    what = {"type": "kpc cannot type", "emit": "kpc cannot emit Kokkos C++ for",
            "compile": "the C++ compiler failed on", "argument": "kpc cannot take the arguments of",
            "pykokkos": "kpc cannot translate to PyKokkos"
            }.get(record["kind"], "kpc failed on")
    where = f"{record['location']}: " if record.get("location") else ""
    message, construct = record["message"], record["construct"]
    detail = message if message.startswith(construct) else f"{construct}: {message}"
    text = f"{where}{what} {function}({signature}) ({detail})"
    if record.get("generated"):
        text += f"; generated source kept at {record['generated']}"
    text += "; the Numba function runs for these argument types"
    if earlier:
        text += " (recorded in kpc's build cache; `kpc cache clear` retries)"
    return text


def strict_error(function: str, signature: str, record: dict, error: BaseException | None) -> BaseException:
    """What strict mode raises: the original error, or for a recorded fallback a ``TypeError``."""
    if isinstance(error, SpecializationTypeError):
        return TypeError(f"{function}(): kpc cannot compile it for the argument types ({signature}): {error}")
    if error is not None:
        return error
    return TypeError(fallback_message(function, signature, record, earlier=True).replace(
        "; the Numba function runs for these argument types", ""))
