"""A ``@stencil`` function of a drop-in module: called like Numba's stencil, ``k(a, ...)`` or ``k(a, ..., out=b)``.

``new`` and ``into`` are the dispatchers of kpc's kernels of the stencil (``kpc.frontend.stencils``):
a new array of the first argument's shape (border ``cval``, 0 by default), or the interior written
into ``out`` (all of ``out`` set to ``cval`` first when the decorator gives one); both return the
array, as Numba's stencil does. Other keywords, and calls kpc cannot type, run the source module's
Numba stencil.
"""

from __future__ import annotations

from .source_object import NumbaBacked


class Stencil(NumbaBacked):
    """The drop-in module's ``k`` for ``@stencil def k``."""

    kind = "stencil"

    def __init__(self, runtime, name: str, into, new, doc: str | None = None):
        super().__init__(runtime, name, doc)
        self._into, self._new = into, new
        into.fallback = lambda: self._numba_into
        new.fallback = lambda: self.numba

    def __call__(self, *args, out=None, **kwargs):
        if kwargs:
            return self.numba(*args, out=out, **kwargs) if out is not None else self.numba(*args, **kwargs)
        if out is None:
            return self._new(*args)
        self._into(*args, out)
        return out
