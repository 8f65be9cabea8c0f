"""A ``@vectorize`` function of a drop-in module: called like the NumPy ufunc Numba makes of it.

``UFunc(f)`` picks the loop of a call as NumPy picks a ufunc's loop, then runs kpc's compiled
kernels (``kpc.frontend.ufuncs``): with eager signatures, the loop of exactly the inputs'
dtypes, else the first loop the inputs cast to safely (a Python ``int`` to any integer loop, a ``float`` to any floating one, otherwise as
int64/float64; ``numpy.can_cast(..., "safe")`` for arrays and NumPy scalars); the inputs are
cast to that loop's types and the result has its output type. Without signatures (Numba's
``DUFunc``) a call whose types no loop so far takes adds a loop of exactly those types,
its output type typed by kpc. Arrays broadcast; ``out=`` (an array or a 1-tuple) is written
and returned, cast as NumPy casts (``same_kind``); scalars give a NumPy scalar. What kpc does
not run itself (other keywords such as ``where=`` or ``dtype=``, ndarray subclasses such as
masked arrays, ``outer``, ``at``, the forms of ``reduce`` and ``accumulate`` beyond one axis of an
array of a loop's dtype, inputs NumPy cannot make arrays of) is the source module's Numba ufunc's.
A call with a CUDA array (CuPy, or anything with ``__cuda_array_interface__``, seen through
CuPy) runs the same loops on the device arrays (a module built ``--space cuda`` runs them in
place) and returns CuPy arrays; NumPy arrays beside them are copied to the device first
(NumPy's ufunc machinery would hand such a call to CuPy, which refuses a foreign ufunc).

>>> loops = [(("float32", "float32"), "float32"), (("float64", "float64"), "float64")]
>>> pick = LoopTable(loops)
>>> [str(d) for d in pick.resolve((np.dtype("float32"), float))[0]]
['float32', 'float32']
>>> [str(d) for d in pick.resolve((np.dtype("int32"), np.dtype("float32")))[0]]
['float64', 'float64']
>>> f32 = (np.dtype("float32"), np.dtype("float32"))
>>> [str(LoopTable(loops[::-1], exact_first=e).resolve(f32)[1]) for e in (False, True)]  # target cpu, parallel
['float64', 'float32']
>>> pick.resolve((np.dtype("complex128"), float)) is None
True
"""

from __future__ import annotations

import math

import numpy as np

from .dispatch import python_call
from .source_object import NumbaBacked

_PYTHON_DEFAULT = {bool: np.dtype(bool), int: np.dtype(np.int64), float: np.dtype(np.float64),
                   complex: np.dtype(np.complex128)}
_PYTHON_SAMPLE = {bool: False, int: 0, float: 0.0, complex: 0j}
_ndarray = np.ndarray  # a module global: looked up at each planned call


class LoopTable:
    """The loops of a ufunc (``((input dtype names), output dtype name)``), in order, and the loop
    NumPy's type resolution picks for the dtypes of a call's inputs (a Python ``int``/``float``/
    ``bool``/``complex`` for a Python scalar). ``exact_first``: a loop of exactly the inputs'
    dtypes, none a Python scalar, wins over earlier ones (a ``target='parallel'`` ufunc of Numba;
    a ``'cpu'`` one takes the first loop its inputs cast to)."""

    def __init__(self, loops=(), exact_first: bool = False):
        self.loops = [(tuple(np.dtype(t) for t in ins), np.dtype(out)) for ins, out in loops]
        self.exact_first = exact_first
        self.cache: dict = {}

    def add(self, ins, out) -> None:
        self.loops.append((tuple(np.dtype(t) for t in ins), np.dtype(out)))
        self.cache.clear()

    def resolve(self, kinds: tuple):
        """``(input dtypes, output dtype)`` of the loop NumPy runs for inputs of ``kinds``, or None."""
        found = self.cache.get(kinds, False)
        if found is False:
            dtypes = input_dtypes(kinds)
            exact = self.exact_first and dtypes is kinds  # NumPy's exact match takes no Python scalar
            found = next((loop for loop in self.loops if loop[0] == dtypes), None) if exact else None
            found = found or next((loop for loop in self.loops if len(loop[0]) == len(dtypes)
                                   and all(np.can_cast(k, d, "safe") for k, d in zip(dtypes, loop[0]))), None)
            self.cache[kinds] = found
        return found


def input_dtypes(kinds: tuple) -> tuple:
    """The dtypes NumPy resolves a ufunc's loop for: a Python scalar's is its promotion with the
    arrays' dtypes (NEP 50: ``float32`` beside a float32 array, ``float64`` beside an int8 one),
    int64/float64/complex128/bool without arrays.

    >>> [str(d) for d in input_dtypes((np.dtype("float32"), float, np.dtype("int8"), int))]
    ['float32', 'float32', 'int8', 'float32']
    """
    arrays = [k for k in kinds if isinstance(k, np.dtype)]
    if len(arrays) == len(kinds):
        return kinds
    return tuple(k if isinstance(k, np.dtype) else
                 np.result_type(*arrays, _PYTHON_SAMPLE[k]) if arrays else _PYTHON_DEFAULT[k] for k in kinds)


def _needs_cast(value, dtype: np.dtype) -> bool:
    """Whether ``value`` must be converted to run a loop of ``dtype`` (a Python number of the loop's
    default type is typed as that dtype already)."""
    kind = _kind(value)
    return kind != dtype if isinstance(kind, np.dtype) else _PYTHON_DEFAULT[kind] != dtype


def _kind(value):
    """The resolution kind of an input (a Python scalar's class, else a dtype), or None."""
    if isinstance(value, np.ndarray | np.generic):
        return value.dtype
    kind = type(value)
    return kind if kind in _PYTHON_DEFAULT else None


def device_namespace(values):
    """CuPy when one of ``values`` is a CUDA array (``__cuda_array_interface__``), else None."""
    for value in values:
        if value is not None and not isinstance(value, np.ndarray) and hasattr(value, "__cuda_array_interface__"):
            import cupy

            return cupy
    return None


def on_device(xp, value):
    """``value`` as the device namespace's array (a CuPy view of any CUDA array, a NumPy array
    copied to the device), or the value itself (numbers)."""
    if isinstance(value, xp.ndarray):
        return value
    if isinstance(value, np.ndarray) or hasattr(value, "__cuda_array_interface__"):
        return xp.asarray(value)
    return value


class UFunc(NumbaBacked):
    """The drop-in module's ``f`` for ``@vectorize def f``: ``scalar`` (the kernel ``f`` on
    scalars), ``into`` (writes into an output array) and ``new`` (returns a new array) are the
    dispatchers of kpc's kernels; ``loops``: the eager signatures as dtype names, None for a
    ufunc typed at each call (Numba's ``DUFunc``)."""

    kind = "ufunc"

    def __init__(self, runtime, name: str, scalar, into, new, nin: int, loops=None, target: str = "cpu",
                 reduce=None, accumulate=None, doc: str | None = None):
        super().__init__(runtime, name, doc)
        self.nin, self.nout, self.nargs = nin, 1, nin + 1
        self._scalar, self._into, self._new = scalar, into, new
        self._reduce, self._accumulate = reduce, accumulate
        self._dynamic = loops is None
        self._loops = LoopTable(loops or (), exact_first=target == "parallel")
        # the key of a call's arguments (the runtime's: dtype, rank and flags of each array, the
        # class of each number) -> (result dtype, position and dtype of the first array, (position,
        # dtype) of the others): calls whose arguments need no conversion, seen before; run without
        # NumPy's machinery when their arrays have one shape (a broadcast goes the long way) and
        # those dtypes
        self._plans: dict = {}
        # the same for ``reduce`` and ``accumulate`` called with the array alone: the key of a
        # C-contiguous NumPy array of a loop's dtype folded before -> that dtype, which a call's
        # array must be (the same object, as NumPy's built-in dtypes are, or an equal one): the key
        # holds the dtype's number, which a byte-swapped array shares with a native one
        self._reduce_plans: dict = {}
        self._accumulate_plans: dict = {}
        self._call = None  # the drop-in's _kpc_call once a plan is made (C++ once a module is loaded)
        self._key = runtime.key  # and the runtime's key (C++ once a module is loaded)
        into.fallback = lambda: self._numba_into
        new.fallback = lambda: self.numba

    def __call__(self, *args, out=None, **kwargs):
        if out is None and not kwargs:
            try:
                plan = self._plans.get(self._runtime.key(*args))
            except TypeError:  # an unhashable argument
                plan = None
            if plan is not None:
                result, first, dtype, others = plan
                array = args[first]
                # the dtypes too: a byte-swapped array ('>f8') has the key of a native one
                if array.__class__ is np.ndarray and (array.dtype is dtype or array.dtype == dtype):
                    shape = array.shape
                    for k, dtype in others:
                        array = args[k]
                        if array.__class__ is not np.ndarray or array.shape != shape \
                                or array.dtype is not dtype and array.dtype != dtype:
                            break
                    else:
                        computed = np.empty(shape, result)
                        self._call(self._into.table, self._into, *args, computed)
                        return computed
        if kwargs or len(args) != self.nin:
            return self.numba(*args, out=out, **kwargs)
        xp = device_namespace(args + (out if isinstance(out, tuple) else (out,)))
        if xp is not None:
            return self._device_call(xp, args, out)
        if isinstance(out, tuple):
            if len(out) != 1:
                return self.numba(*args, out=out)
            out = out[0]
        if out is not None and type(out) is not np.ndarray \
                or any(isinstance(a, np.ndarray) and type(a) is not np.ndarray for a in args):
            return self.numba(*args, out=out)  # a subclass (masked array, matrix): NumPy's __array_ufunc__
        values = [a[()] if type(a) is np.ndarray and a.ndim == 0 else a for a in args]
        kinds = []
        for k, value in enumerate(values):
            kind = _kind(value)
            if kind is None:
                try:
                    values[k] = value = np.asarray(value)
                except Exception:
                    return self.numba(*args, out=out)
                kind = value.dtype
            kinds.append(kind)
        kinds = tuple(kinds)
        loop = self._loops.resolve(kinds)
        if loop is None:
            if not self._dynamic:
                return self.numba(*args, out=out)  # NumPy's TypeError: no loop takes these types
            return self._new_loop(values, kinds, out)
        ins, result = loop
        cast = [v if not _needs_cast(v, d) else (d.type(v) if not isinstance(v, np.ndarray) else v.astype(d))
                for v, d in zip(values, ins)]
        computed = self._run(cast, result, out)
        if all(c is a for c, a in zip(cast, args)):
            self._plan(args, result)
        return computed

    def _plan(self, args: tuple, result: np.dtype) -> None:
        """Remember that a call with arguments like ``args`` (arrays of rank one or more, none
        converted, and numbers) gives a ``result`` array: ``__call__`` runs the next such call on
        the compiled loop straight away."""
        arrays = [k for k, a in enumerate(args) if isinstance(a, np.ndarray)]
        if not arrays or any(type(args[k]) is not np.ndarray or args[k].ndim == 0 for k in arrays):
            return
        try:
            key = self._runtime.key(*args)
        except TypeError:
            return
        self._take_call()
        self._plans[key] = (result, arrays[0], args[arrays[0]].dtype, tuple((k, args[k].dtype) for k in arrays[1:]))

    def _take_call(self) -> None:
        """The drop-in module's ``_kpc_call`` and the runtime's key (C++ once a compiled module is
        loaded) run the planned calls."""
        self._call = (self._runtime.namespace or {}).get("_kpc_call", python_call)
        self._key = self._runtime.key

    def _run(self, values: list, result: np.dtype, out):
        arrays = [v for v in values if isinstance(v, np.ndarray)]
        if not arrays:
            value = result.type(self._scalar(*values))
            if out is None:
                return value
            out[...] = value
            return out
        shape = arrays[0].shape if len(arrays) == 1 else np.broadcast_shapes(*(a.shape for a in arrays))
        if out is None:
            out = np.empty(shape, result)
            self._into(*values, out)
            return out
        if np.broadcast_shapes(shape, out.shape) != out.shape or not out.flags.writeable:
            return self.numba(*values, out=out)  # NumPy's ValueError
        if out.dtype == result:
            self._into(*values, out)
            return out
        if not np.can_cast(result, out.dtype, "same_kind"):
            return self.numba(*values, out=out)  # NumPy's UFuncTypeError
        computed = np.empty(out.shape, result)
        self._into(*values, computed)
        np.copyto(out, computed, casting="same_kind")
        return out

    def reduce(self, array, axis=0, *args, **kwargs):
        """``ufunc.reduce(array, axis=0)`` on kpc's reduce kernel: the array's dtype must be that of
        a loop whose inputs and output have that dtype; the elements along ``axis`` are folded in
        order, the other positions in parallel (``target='parallel'``). Other forms (``dtype=``,
        ``out=``, ``keepdims=``, ``initial=``, several axes, an empty axis, other dtypes) are
        Numba's ufunc's ``reduce``. ``reduce(array)`` (or with axis 0) of an array like one folded
        before (a C-contiguous NumPy array of the same dtype and rank) runs the kernel from its plan."""
        if axis.__class__ is int and not axis and not (args or kwargs) and array.__class__ is _ndarray \
                and array.size and ((planned := self._reduce_plans.get(self._key(array))) is array.dtype
                                    or planned is not None and planned == array.dtype):
            kernel = self._reduce
            if array.ndim == 1:
                folded = np.empty(1, array.dtype)
                self._call(kernel.table, kernel, array, folded, array.size, 1)
                return folded[0]  # a NumPy scalar, as NumPy's reduce gives
            folded, n = np.empty(array.shape[1:], array.dtype), array.shape[0]
            self._call(kernel.table, kernel, array.reshape(-1), folded.reshape(-1), n, array.size // n)
            return folded
        fold = self._fold(self._reduce, array, axis, args, kwargs)
        if fold is None:
            return self.numba.reduce(array, axis, *args, **kwargs)
        xp, flat, shape, at, n, inner = fold
        folded = xp.empty(flat.size // n, array.dtype)
        if folded.size:
            self._reduce(flat, folded, n, inner)
            self._plan_fold(self._reduce_plans, array, axis, args, kwargs)
        result = folded.reshape(shape[:at] + shape[at + 1:])
        return result[()] if result.ndim == 0 and xp is np else result

    def accumulate(self, array, axis=0, *args, **kwargs):
        """``ufunc.accumulate(array, axis=0)`` on kpc's accumulate kernel, for the arrays ``reduce``
        takes: each result along ``axis`` folded from the first element in order (NumPy's
        definition, which Numba's ``target='cpu'`` ufunc gives; its ``target='parallel'`` ufunc
        splits the recurrence over threads), the other positions in parallel. Other forms
        (``dtype=``, ``out=``, an empty axis, other dtypes) are Numba's ufunc's ``accumulate``.
        ``accumulate(array)`` runs from a plan as ``reduce(array)`` does."""
        if axis.__class__ is int and not axis and not (args or kwargs) and array.__class__ is _ndarray \
                and array.size and ((planned := self._accumulate_plans.get(self._key(array))) is array.dtype
                                    or planned is not None and planned == array.dtype):
            kernel, size = self._accumulate, array.size
            if array.ndim == 1:
                partial = np.empty(size, array.dtype)
                self._call(kernel.table, kernel, array, partial, size, 1)
                return partial
            partial, n = np.empty(array.shape, array.dtype), array.shape[0]
            self._call(kernel.table, kernel, array.reshape(-1), partial.reshape(-1), n, size // n)
            return partial
        fold = self._fold(self._accumulate, array, axis, args, kwargs)
        if fold is None:
            return self.numba.accumulate(array, axis, *args, **kwargs)
        xp, flat, shape, _, n, inner = fold
        partial = xp.empty(flat.size, array.dtype)
        if partial.size:
            self._accumulate(flat, partial, n, inner)
            self._plan_fold(self._accumulate_plans, array, axis, args, kwargs)
        return partial.reshape(shape)

    def _plan_fold(self, plans: dict, array, axis, args: tuple, kwargs: dict) -> None:
        """Remember in ``plans`` (``reduce``'s or ``accumulate``'s) that a call with ``array`` alone or
        with axis 0 (``f(x, 0)``, ``f(x, axis=0)``), a C-contiguous NumPy array, ran kpc's kernel: the
        next such call with an array of the same key (dtype, rank, flags) runs it straight away, its
        array passed flat, no copy."""
        if axis.__class__ is int and not axis and not (args or kwargs) and array.__class__ is np.ndarray \
                and array.flags.c_contiguous:
            self._take_call()
            plans[self._key(array)] = array.dtype

    def _fold(self, kernel, array, axis, args: tuple, kwargs: dict):
        """``(namespace, array flat and C-contiguous, shape, axis (0 to ndim - 1), n, inner)`` for a ``reduce`` or
        ``accumulate`` of ``array`` along ``axis`` (``args``/``kwargs``: the other arguments, none) that
        ``kernel`` runs (``n``: the axis's extent, ``inner``: the elements after it in a row): a loop
        of the array's dtype for both inputs and the output, ``n`` > 0; None for the forms left to
        Numba."""
        xp = device_namespace((array,)) or np
        if kernel is None or args or kwargs or not isinstance(array, xp.ndarray) or array.ndim == 0:
            return None
        if axis is None and array.ndim == 1:
            axis = 0
        if not isinstance(axis, int) or isinstance(axis, bool) or not -array.ndim <= axis < array.ndim:
            return None
        axis %= array.ndim
        loop = self._loops.resolve((array.dtype, array.dtype))
        if loop is None or tuple(loop[0]) != (array.dtype, array.dtype) or loop[1] != array.dtype \
                or array.shape[axis] == 0:
            return None
        shape = array.shape
        inner = math.prod(shape[axis + 1:])  # np.prod: microseconds
        return xp, xp.ascontiguousarray(array).reshape(-1), shape, axis, shape[axis], inner

    def _device_call(self, xp, args: tuple, out):
        """A call with CUDA arrays: the loop picked as for NumPy arrays, run on CuPy arrays."""
        if isinstance(out, tuple):
            if len(out) != 1:
                raise ValueError(f"{self.__name__}: 'out' must be a tuple of one array")
            out = out[0]
        values = [on_device(xp, a) for a in args]
        kinds = tuple(v.dtype if isinstance(v, xp.ndarray) else _kind(v) for v in values)
        if any(kind is None for kind in kinds):
            raise TypeError(f"ufunc '{self.__name__}' does not take arguments of types "
                            f"{', '.join(type(a).__name__ for a in args)}")
        loop = self._loops.resolve(kinds)
        if loop is None:
            if not self._dynamic:
                raise TypeError(f"ufunc '{self.__name__}' not supported for the input types "
                                f"({', '.join(str(k) for k in kinds)})")
            computed = self._new(*values)
            self._loops.add([k if isinstance(k, np.dtype) else _PYTHON_DEFAULT[k] for k in kinds], computed.dtype)
            ins, result = None, computed.dtype
        else:
            ins, result = loop
            values = [(v.astype(d) if v.dtype != d else v) if isinstance(v, xp.ndarray)
                      else (d.type(v) if _needs_cast(v, d) else v) for v, d in zip(values, ins)]
            computed = None
        shape = np.broadcast_shapes(*(v.shape for v in values if isinstance(v, xp.ndarray)))
        if out is None:
            if computed is not None:
                return computed
            out = xp.empty(shape, result)
            self._into(*values, out)
            return out
        if isinstance(out, np.ndarray):  # a NumPy out= beside device inputs: computed there, copied back
            if np.broadcast_shapes(shape, out.shape) != out.shape:
                raise ValueError(f"non-broadcastable output operand with shape {out.shape} doesn't match the "
                                 f"broadcast shape {shape}")
            if computed is None:
                computed = xp.empty(shape, result)
                self._into(*values, computed)
            np.copyto(out, xp.asnumpy(computed), casting="same_kind")
            return out
        out = on_device(xp, out)  # CuPy's own, or a view of another CUDA array
        if np.broadcast_shapes(shape, out.shape) != out.shape:
            raise ValueError(f"non-broadcastable output operand with shape {out.shape} doesn't match the "
                             f"broadcast shape {shape}")
        if not np.can_cast(result, out.dtype, "same_kind"):
            raise TypeError(f"Cannot cast ufunc '{self.__name__}' output from {result} to {out.dtype} "
                            "with casting rule 'same_kind'")
        if computed is None and out.dtype == result and out.shape == shape:
            self._into(*values, out)
            return out
        if computed is None:
            computed = xp.empty(shape, result)
            self._into(*values, computed)
        xp.copyto(out, computed, casting="same_kind")
        return out

    def _new_loop(self, values: list, kinds: tuple, out):
        """A call no loop so far takes (``DUFunc``): a loop of exactly its types, typed by kpc."""
        ins = [k if isinstance(k, np.dtype) else _PYTHON_DEFAULT[k] for k in kinds]
        if not any(isinstance(v, np.ndarray) for v in values):
            value = np.asarray(self._scalar(*values))
            self._loops.add(ins, value.dtype)
            if out is None:
                return value[()]
            out[...] = value
            return out
        computed = self._new(*values)
        self._loops.add(ins, computed.dtype)
        if out is None:
            return computed
        if np.broadcast_shapes(computed.shape, out.shape) != out.shape or not out.flags.writeable \
                or not np.can_cast(computed.dtype, out.dtype, "same_kind"):
            return self.numba(*values, out=out)  # NumPy's error
        np.copyto(out, computed, casting="same_kind")
        return out
