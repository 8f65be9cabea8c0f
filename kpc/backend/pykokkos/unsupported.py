"""The one way the PyKokkos emitter says "not this kernel": the kernel stays Numba, with a reason.

>>> from kpc.ir.nodes import Loc
>>> str(Unsupported("conditional expression in a device function", Loc("m.py", 4, 8), "use if/else"))
'm.py:4:9: conditional expression in a device function (use if/else)'
"""

from __future__ import annotations

from kpc.ir.nodes import NOLOC, Loc


class Unsupported(Exception):
    """A construct the emitter cannot write as correct PyKokkos code (yet)."""

    def __init__(self, construct: str, loc: Loc = NOLOC, reason: str = ""):
        super().__init__(construct)
        self.construct = construct
        self.loc = loc
        self.reason = reason

    def __str__(self) -> str:
        text = f"{self.loc}: {self.construct}"
        return f"{text} ({self.reason})" if self.reason else text


def loc_of(node) -> Loc:
    return getattr(node, "loc", NOLOC) or NOLOC
