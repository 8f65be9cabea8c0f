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

A call whose arguments need no copy (C-contiguous arrays of the loop's dtypes with the whole
loop shape, numbers for scalar inputs, outputs of the loop's dtypes or none) leaves a ``_Plan``
keyed by the arguments' dtypes, shapes and strides (a number's class): the next call with that
key reshapes, allocates and calls the compiled loop with no loop selection nor broadcasting.

A call with a CUDA array (CuPy, or anything with ``__cuda_array_interface__``) does the same on
CuPy arrays (NumPy arrays beside them copied to the device, NumPy outputs copied back) and
returns CuPy arrays; a module built ``--space cuda`` runs the loop on them in place.

Inputs named by ``writable_args`` are written back into the caller's arrays where the loop ran on
a contiguous copy of them (a strided input); one that would need a dtype conversion or a
broadcast runs Numba's gufunc.
"""

from __future__ import annotations

import numpy as np

from .source_object import NumbaBacked
from .ufunc import LoopTable, _kind, device_namespace, on_device


class GUFunc(NumbaBacked):
    """The drop-in module's ``g`` for ``@guvectorize(...) def g``."""

    kind = "gufunc"

    def __init__(self, runtime, name: str, loop, layout: dict, loops: list, target: str = "cpu",
                 doc: str | None = None):
        super().__init__(runtime, name, doc)
        self._loop = loop
        self._inputs, self._outputs = layout["inputs"], layout["outputs"]
        # inputs the function may write (writable_args): written back where the loop ran on a copy
        self._writable = tuple(layout.get("writable", ()))
        self.nin, self.nout = len(self._inputs), len(self._outputs)
        self.nargs = self.nin + self.nout
        self._table = LoopTable([(ins, outs[0]) for ins, outs in loops], exact_first=target == "parallel")
        self._outs = {tuple(np.dtype(t) for t in ins): [np.dtype(t) for t in outs] for ins, outs in loops}
        self._plans: dict = {}  # _call_key of a call -> its _Plan
        loop.fallback = lambda: _no_loop

    def __call__(self, *args, out=None, **kwargs):
        if not kwargs:
            key = _call_key(args, out)
            plan = self._plans.get(key)
            if plan is not None:
                try:
                    return plan.run(self._loop, args, out)
                except _Fallback:
                    return self.numba(*args, out=out) if out is not None else self.numba(*args)
        else:
            key = None
        outs = list(args[self.nin:])
        if out is not None:
            outs += list(out) if isinstance(out, tuple) else [out]
        xp = device_namespace(args + tuple(outs))
        if kwargs or len(args) < self.nin or len(outs) not in (0, self.nout) \
                or (xp is None and any(type(o) is not np.ndarray for o in outs)):
            return self.numba(*args, out=out, **kwargs) if out is not None else self.numba(*args, **kwargs)
        if xp is not None:
            return self._run(list(args[:self.nin]), outs, None, out is not None, xp)
        try:
            return self._run(list(args[:self.nin]), outs, key, out is not None)
        except _Fallback:
            return self.numba(*args, out=out) if out is not None else self.numba(*args)

    def _run(self, inputs: list, outs: list, key=None, out_keyword: bool = False, xp=np):
        """The call, on NumPy arrays (``xp`` NumPy) or on CuPy arrays (``xp`` CuPy: every array
        moved to the device, NumPy's errors raised here rather than by Numba's gufunc)."""
        given_inputs = inputs
        host_outs = []
        if xp is not np:
            inputs = [on_device(xp, v) for v in inputs]
            host_outs = [o if isinstance(o, np.ndarray) else None for o in outs]
            outs = [on_device(xp, o) for o in outs]
        values = [v if isinstance(v, xp.ndarray | np.generic) or _kind(v) is not None else xp.asarray(v)
                  for v in inputs]
        loop = self._table.resolve(tuple(v.dtype if isinstance(v, xp.ndarray) else _kind(v) for v in values))
        if loop is None:
            if xp is not np:
                raise TypeError(f"gufunc '{self.__name__}' has no loop for the input types "
                                f"({', '.join(str(getattr(v, 'dtype', type(v).__name__)) for v in values)})")
            raise _Fallback
        ins = loop[0]
        values = [v if type(v) is xp.ndarray and v.dtype == d else xp.asarray(v, dtype=d)
                  for v, d in zip(values, ins)]
        sizes: dict = {}
        loop_shapes = []
        for value, core in zip(values, self._inputs):
            if value.ndim < len(core):
                raise _mismatch(xp, f"{self.__name__}: an input has {value.ndim} dimensions, its core "
                                f"dimensions ({', '.join(core)}) need {len(core)}")  # NumPy's error
            split = value.ndim - len(core)
            for name, extent in zip(core, value.shape[split:]):
                if sizes.setdefault(name, extent) != extent:
                    raise _mismatch(xp, f"{self.__name__}: core dimension {name} has sizes "
                                    f"{sizes[name]} and {extent}")
            loop_shapes.append(value.shape[:split])
        loop_shapes += [o.shape[:o.ndim - len(c)] for o, c in zip(outs, self._outputs)]
        shapes = {shape for shape in loop_shapes if shape}
        if len(shapes) <= 1:  # the usual call: one loop shape, scalars beside it
            loop_shape = shapes.pop() if shapes else ()
        else:
            try:
                loop_shape = np.broadcast_shapes(*loop_shapes)
            except ValueError:
                if xp is not np:
                    raise
                raise _Fallback from None
        count = 1
        for extent in loop_shape:
            count *= extent
        flat = [_flattened(v, loop_shape, len(c), count, xp) for v, c in zip(values, self._inputs)]
        write_back = []
        for k in self._writable:
            original = inputs[k]
            if not isinstance(original, xp.ndarray):
                continue  # a number or a list: nothing of the caller's to write into
            if values[k] is not original or original.shape[:original.ndim - len(self._inputs[k])] != loop_shape:
                raise _mismatch(xp, f"{self.__name__}: writable input {k} would be converted or broadcast")
            if not xp.may_share_memory(flat[k], original):
                write_back.append((original, flat[k]))  # the loop runs on a contiguous copy
        out_dtypes = self._outs[ins]
        results, flat_outs, copies = [], [], []
        for k, core in enumerate(self._outputs):
            shape = loop_shape + tuple(sizes[name] for name in core)
            given = outs[k] if outs else None
            if given is not None and given.shape != shape:
                raise _mismatch(xp, f"{self.__name__}: output {k} has shape {given.shape}, the call gives {shape}")
            target = given if given is not None and given.dtype == out_dtypes[k] and given.flags.c_contiguous \
                else xp.empty(shape, out_dtypes[k])
            if given is not None and target is not given:
                copies.append((given, target))
            results.append(given if given is not None else target)
            flat_outs.append(target.reshape((count,) + shape[len(loop_shape):] if core else (count,)))
        if count:
            self._loop(*flat, *flat_outs)
        for original, copy in write_back:
            xp.copyto(original, copy.reshape(original.shape))
        if write_back:
            key = None  # (a plan passes arrays as they are)
        for given, target in copies:
            xp.copyto(given, target, casting="same_kind")
        for k, host in enumerate(host_outs):  # NumPy outputs beside device inputs get the device's values
            if host is not None:
                np.copyto(host, xp.asnumpy(results[k]), casting="same_kind")
                results[k] = host
        if key is not None and not copies:
            plan = _Plan.of(given_inputs, values, flat, self._inputs, loop_shape, count, outs, out_dtypes,
                            [r.shape for r in results], [f.shape for f in flat_outs], self.nout, out_keyword)
            if plan is not None:
                self._plans[key] = plan
        if not loop_shape:
            results = [r[()] if r.ndim == 0 else r for r in results]
        return results[0] if self.nout == 1 else tuple(results)


_NDARRAY = np.ndarray


def _call_key(args: tuple, out) -> tuple:
    """What decides a call's plan: each argument's dtype, shape and strides (an array) or class (a
    number), and ``out=``'s."""
    key = [a.__class__ if a.__class__ is not _NDARRAY else (a.dtype, a.shape, a.strides) for a in args]
    if out is not None:
        outs = out if out.__class__ is tuple else (out,)
        key.append(tuple(o.__class__ if o.__class__ is not _NDARRAY else (o.dtype, o.shape, o.strides)
                         for o in outs))
    return tuple(key)


class _Plan:
    """How a call of one ``_call_key`` runs the loop: each input reshaped to its flattened shape
    (``("view", shape)``) or, a number for a scalar input, filled into a loop-long array
    (``("fill", dtype)``); each output given (reshaped) or allocated (``shape``, ``dtype``)."""

    __slots__ = ("inputs", "count", "outputs", "nin", "nout", "scalar", "out_keyword", "function")

    @classmethod
    def of(cls, given, values, flat, cores, loop_shape, count, outs, out_dtypes, result_shapes, flat_shapes,
           nout, out_keyword):
        """The plan of the call just run, or None where it needed more than reshapes and fills."""
        plan = cls()
        plan.inputs = []
        for original, value, flattened, core in zip(given, values, flat, cores):
            if original is value and value.__class__ is _NDARRAY and value.flags.c_contiguous \
                    and value.shape[:value.ndim - len(core)] == loop_shape:
                # the array itself where flattening changes nothing (one loop dimension)
                plan.inputs.append(("same", None) if flattened.shape == value.shape else ("view", flattened.shape))
            elif not core and original.__class__ is not _NDARRAY and value.ndim == 0:
                plan.inputs.append(("fill", value.dtype))
            else:
                return None
        plan.outputs = []
        for k, (shape, dtype, flat_shape) in enumerate(zip(result_shapes, out_dtypes, flat_shapes)):
            plan.outputs.append((None if outs else shape, dtype, None if flat_shape == shape else flat_shape))
        plan.count, plan.nin, plan.nout = count, len(cores), nout
        plan.scalar, plan.out_keyword = not loop_shape, out_keyword
        plan.function = None  # the loop's compiled function for these arguments, once known
        return plan

    def run(self, loop, args: tuple, out, _empty=np.empty):
        count = self.count
        flat = []
        for value, (kind, detail) in zip(args, self.inputs):
            if kind == "same":
                flat.append(value)
            elif kind == "view":
                flat.append(value.reshape(detail))
            else:  # np.full, without its Python-level checks
                filled = _empty(count, detail)
                filled.fill(value)
                flat.append(filled)
        given = (out if out.__class__ is tuple else (out,)) if self.out_keyword else args[self.nin:]
        results = []
        for k, (shape, dtype, flat_shape) in enumerate(self.outputs):
            result = given[k] if shape is None else _empty(shape, dtype)
            results.append(result)
            flat.append(result if flat_shape is None else result.reshape(flat_shape))
        if count:
            # The flattened arguments of a plan always have the same dispatch key: the function the
            # loop's dispatcher found for the first of them runs the others.
            function = self.function
            if function is None:
                loop(*flat)
                self.function = loop.table.get(loop.runtime.key(*flat))
            else:
                function(*flat)
        if self.scalar:
            results = [r[()] if r.ndim == 0 else r for r in results]
        return results[0] if self.nout == 1 else tuple(results)


def _flattened(value, loop_shape: tuple, core: int, count: int, xp=np):
    """``value`` with its loop dimensions broadcast to ``loop_shape`` and flattened into one leading
    axis of ``count``, C-contiguous (a view where it already is); ``xp``: NumPy or CuPy."""
    tail = value.shape[value.ndim - core:]
    if value.shape[:value.ndim - core] == loop_shape and value.flags.c_contiguous:
        return value.reshape((count,) + tail)
    if value.ndim == 0:
        return xp.full(count, value, value.dtype)
    return xp.ascontiguousarray(xp.broadcast_to(value, loop_shape + tail)).reshape((count,) + tail)


def _mismatch(xp, message: str) -> Exception:
    """Sizes that do not fit the layout: on NumPy arrays Numba's gufunc raises NumPy's error
    (``_Fallback``); on device arrays, which Numba's gufunc cannot take, a ``ValueError`` here."""
    return _Fallback() if xp is np else ValueError(message)


class _Fallback(Exception):
    """This call runs Numba's gufunc (it raises NumPy's error, or takes what kpc does not)."""


def _no_loop(*args):
    """The loop kernel's fallback: the whole call goes to Numba's gufunc (``GUFunc.__call__``)."""
    raise _Fallback
