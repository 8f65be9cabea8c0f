"""The diagnostic raised when an array-level construct cannot be lowered to loops."""

from __future__ import annotations

from ..ir.diagnostics import Diagnostic, KpcError, source_line_at


class NumpyLoweringError(KpcError):
    """``construct`` at ``loc`` is not lowered by ``lower-numpy``: the kernel stays Numba.

    >>> from kpc.ir.nodes import Loc
    >>> error = NumpyLoweringError("NumPy function `np.cumsum`", Loc("k.py", 3, 4))
    >>> error.diagnostic.message
    'lower-numpy cannot lower NumPy function `np.cumsum` to loops; the kernel stays Numba'
    """

    def __init__(self, construct: str, loc, hint: str = ""):
        message = f"lower-numpy cannot lower {construct} to loops; the kernel stays Numba"
        hint = hint or "write this computation as explicit loops, or keep the kernel in Numba"
        super().__init__(Diagnostic(message, loc, construct, hint, source_line_at(loc)))
        self.construct = construct
