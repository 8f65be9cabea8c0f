"""What the drop-in's ufunc, gufunc and stencil objects share: the source module's Numba object behind them.

A drop-in module's ``@vectorize``, ``@guvectorize`` and ``@stencil`` functions are objects
(``kpc.runtime.ufunc.UFunc``, ``kpc.runtime.gufunc.GUFunc``, ``kpc.runtime.stencil.Stencil``)
that run kpc's kernels and hand everything else (other keywords, methods such as ``reduce``,
attributes, calls kpc cannot type) to the source module's own Numba object, imported on first use.
"""

from __future__ import annotations


class NumbaBacked:
    """A drop-in object named ``name`` whose Numba counterpart is the source module's ``name``."""

    kind = "function"

    def __init__(self, runtime, name: str, doc: str | None = None):
        self._runtime = runtime
        self.__name__ = self.__qualname__ = name
        self.__doc__ = doc

    @property
    def numba(self):
        """The source module's Numba object (``np.ufunc``, ``DUFunc``, ``GUFunc``, ``StencilFunc``)."""
        return self._runtime.original(self.__name__)

    def _numba_into(self, *args):
        """Numba's object with the last argument as ``out=`` (the fallback of kpc's into-kernels)."""
        return self.numba(*args[:-1], out=args[-1])

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.numba, name)  # reduce, accumulate, outer, at, types, identity, ...

    def __repr__(self) -> str:
        return f"<kpc {self.kind} '{self.__name__}'>"
