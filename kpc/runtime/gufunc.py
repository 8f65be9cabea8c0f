"""A ``@guvectorize`` function of a drop-in module: called like the generalized ufunc Numba makes of it.

``GUFunc(g)`` takes the inputs (and the outputs, when given as the last positional arguments or
``out=``), picks the loop of the inputs' dtypes as ``kpc.runtime.ufunc.LoopTable`` does (eager
signatures; without them, the inputs' own dtypes and float64 outputs are not guessed: such a
gufunc runs as Numba), broadcasts the loop dimensions (those before each argument's core
dimensions, ``layout``), flattens them into one leading axis and calls kpc's loop kernel
(``kpc.frontend.gufuncs``) once. Missing outputs are allocated (loop shape + core shape) and
returned; scalar outputs ``()`` are arrays of the loop shape (a NumPy scalar without loop
dimensions). Sizes that do not match raise NumPy's ``ValueError`` through Numba's gufunc; other
keywords and methods are Numba's.
"""

from __future__ import annotations

import numpy as np

from .source_object import NumbaBacked
from .ufunc import LoopTable, _kind


class GUFunc(NumbaBacked):
    """The drop-in module's ``g`` for ``@guvectorize(...) def g``."""

    kind = "gufunc"

    def __init__(self, runtime, name: str, loop, layout: dict, loops: list, target: str = "cpu",
                 doc: str | None = None):
        super().__init__(runtime, name, doc)
        self._loop = loop
        self._inputs, self._outputs = layout["inputs"], layout["outputs"]
        self.nin, self.nout = len(self._inputs), len(self._outputs)
        self.nargs = self.nin + self.nout
        self._table = LoopTable([(ins, outs[0]) for ins, outs in loops], exact_first=target == "parallel")
        self._outs = {tuple(np.dtype(t) for t in ins): [np.dtype(t) for t in outs] for ins, outs in loops}
        loop.fallback = lambda: _no_loop

    def __call__(self, *args, out=None, **kwargs):
        outs = list(args[self.nin:])
        if out is not None:
            outs += list(out) if isinstance(out, tuple) else [out]
        if kwargs or len(args) < self.nin or len(outs) not in (0, self.nout) \
                or any(type(o) is not np.ndarray for o in outs):
            return self.numba(*args, out=out, **kwargs) if out is not None else self.numba(*args, **kwargs)
        try:
            return self._run(list(args[:self.nin]), outs)
        except _Fallback:
            return self.numba(*args, out=out) if out is not None else self.numba(*args)

    def _run(self, inputs: list, outs: list):
        values = [v if isinstance(v, np.ndarray | np.generic) or _kind(v) is not None else np.asarray(v)
                  for v in inputs]
        loop = self._table.resolve(tuple(_kind(v) for v in values))
        if loop is None:
            raise _Fallback
        ins = loop[0]
        values = [v if type(v) is np.ndarray and v.dtype == d else np.asarray(v, dtype=d)
                  for v, d in zip(values, ins)]
        sizes: dict = {}
        loop_shapes = []
        for value, core in zip(values, self._inputs):
            if value.ndim < len(core):
                raise _Fallback  # NumPy's error, from Numba's gufunc
            split = value.ndim - len(core)
            for name, extent in zip(core, value.shape[split:]):
                if sizes.setdefault(name, extent) != extent:
                    raise _Fallback
            loop_shapes.append(value.shape[:split])
        loop_shapes += [o.shape[:o.ndim - len(c)] for o, c in zip(outs, self._outputs)]
        shapes = {shape for shape in loop_shapes if shape}
        if len(shapes) <= 1:  # the usual call: one loop shape, scalars beside it
            loop_shape = shapes.pop() if shapes else ()
        else:
            try:
                loop_shape = np.broadcast_shapes(*loop_shapes)
            except ValueError:
                raise _Fallback from None
        count = 1
        for extent in loop_shape:
            count *= extent
        flat = [_flattened(v, loop_shape, len(c), count) for v, c in zip(values, self._inputs)]
        out_dtypes = self._outs[ins]
        results, flat_outs, copies = [], [], []
        for k, core in enumerate(self._outputs):
            shape = loop_shape + tuple(sizes[name] for name in core)
            given = outs[k] if outs else None
            if given is not None and given.shape != shape:
                raise _Fallback
            target = given if given is not None and given.dtype == out_dtypes[k] and given.flags.c_contiguous \
                else np.empty(shape, out_dtypes[k])
            if given is not None and target is not given:
                copies.append((given, target))
            results.append(given if given is not None else target)
            flat_outs.append(target.reshape((count,) + shape[len(loop_shape):] if core else (count,)))
        if count:
            self._loop(*flat, *flat_outs)
        for given, target in copies:
            np.copyto(given, target, casting="same_kind")
        if not loop_shape:
            results = [r[()] if r.ndim == 0 else r for r in results]
        return results[0] if self.nout == 1 else tuple(results)


def _flattened(value: np.ndarray, loop_shape: tuple, core: int, count: int) -> np.ndarray:
    """``value`` with its loop dimensions broadcast to ``loop_shape`` and flattened into one leading
    axis of ``count``, C-contiguous (a view where it already is)."""
    tail = value.shape[value.ndim - core:]
    if value.shape[:value.ndim - core] == loop_shape and value.flags.c_contiguous:
        return value.reshape((count,) + tail)
    if value.ndim == 0:
        return np.full(count, value, value.dtype)
    return np.ascontiguousarray(np.broadcast_to(value, loop_shape + tail)).reshape((count,) + tail)


class _Fallback(Exception):
    """This call runs Numba's gufunc (it raises NumPy's error, or takes what kpc does not)."""


def _no_loop(*args):
    """The loop kernel's fallback: the whole call goes to Numba's gufunc (``GUFunc.__call__``)."""
    raise _Fallback
