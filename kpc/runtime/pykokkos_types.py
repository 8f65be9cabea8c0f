"""Per-call argument types for the PyKokkos modules kpc writes.

A PyKokkos module is typed when kpc writes it: a kernel without a signature is built
for the types kpc assumed (float64 arrays and scalars, unless ``--signature`` said
otherwise), and its readable ``def`` converts its arguments to those types. Numba
compiles a new specialization for each new argument-type signature instead. So each
kernel of the module whose source has no eager signature is wrapped at import
(``install``): a call whose arguments have other types (an int64 array, a float32
scalar, a Python int where float64 was assumed) gets the kernel from a module kpc
writes for those types on first use (``kpc.api.build_pykokkos_specialization``: a real
file, as upstream needs one, named by its content), like Numba's dispatcher. Layouts do
not make new modules: the callers pass C-contiguous copies to upstream anyway.

Arguments kpc cannot type (a list), and types kpc keeps as Numba, run the Numba
function with a ``KpcFallbackWarning`` (``KPC_STRICT=1``: ``TypeError``).

>>> _types_key((("array", "float64", 2, "C"), ("scalar", "int64")))
(('array', 'float64', 2), ('scalar', 'int64'))
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import os
import sys
import threading
import warnings

import numpy as np

from . import fallback
from .argument_types import format_type, typeof
from .dispatch import PLAIN_SCALARS, SUPPORTED_DTYPES, SourceFile


def _types_key(types) -> tuple:
    """Argument types without the layout (``("array", dtype, ndim)``, ``("scalar", dtype)``)."""
    return tuple(t[:3] if t[0] == "array" else t for t in types)


def _call_key(args, _ndarray=np.ndarray, _plain=PLAIN_SCALARS) -> tuple:
    """A cheap key that determines ``_types_key`` of the arguments' types, on every call."""
    key = []
    for value in args:
        kind = type(value)
        if kind is _ndarray:
            key.append((value.dtype.num, value.ndim))
        elif kind in _plain and kind is not int:
            key.append(kind)
        else:  # an int's type depends on its size (uint64 above int64); others: typed fully
            key.append((kind, _types_key([typeof(value) or ("python", kind.__name__)])[0]))
    return tuple(key)


def _import_file(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class PerCallTypes:
    """The per-call types of one PyKokkos module (``namespace``: its globals).

    ``load_module(path, name)`` imports a written specialization (``importlib``; the tests
    that run modules on the contract interpreter give its loader).
    """

    def __init__(self, namespace: dict, source: str, space, options: dict, compiler):
        self.namespace = namespace
        self.source = source
        self.space = space
        self.options = dict(options)
        self.compiler = compiler
        self.load_module = _import_file
        self.specializations: dict = {}  # (function, types key) -> the function that runs them
        self.fallbacks: dict = {}  # (function, types key) -> the record of why Numba runs
        self._modules: dict = {}
        self._lock = threading.RLock()
        self.source_file = SourceFile(source)

    def wrap(self, name: str, built_types: tuple, eager=None):
        """Replace ``name`` in the module by a function that checks its arguments' types.

        ``eager``: the argument types of the source's eager signatures (None: any types);
        other types go to the built function, which converts or refuses them as Numba's
        eager dispatch does.
        """
        original = self.namespace[name]
        table = {}  # call key -> function
        built = _types_key(built_types)
        allowed = None if eager is None else {_types_key(types) for types in eager}
        signature = inspect.signature(original)
        params = tuple(signature.parameters)
        arity = len(params)

        @functools.wraps(original)
        def call(*args, **kwargs):
            if kwargs or len(args) != arity:
                bound = signature.bind(*args, **kwargs)
                args = bound.args
            try:
                key = _call_key(args)
                function = table.get(key)
            except TypeError:  # an unhashable argument
                key = function = None
            if function is None:
                function = self._resolve(name, original, params, built, allowed, args)
                if key is not None:
                    table[key] = function
            return function(*args)

        call.kpc_per_call_types = self
        self.namespace[name] = call
        return call

    # ------------------------------------------------------------ resolving a call
    def _resolve(self, name, original, params, built, allowed, args):
        types, problem = [], None
        for param, value in zip(params, args):
            t = typeof(value)
            if t is None:
                problem = f"argument {param!r} must be a NumPy array or a number, got {type(value).__name__}"
            elif t[1] not in SUPPORTED_DTYPES:
                problem = f"argument {param!r} has type {format_type(t)}, which kpc does not support"
            if problem is not None:
                break
            types.append(t)
        if problem is not None:
            record = {"kind": "argument", "function": name, "location": None, "construct": "argument type",
                      "message": problem}
            found = tuple(typeof(v) or ("python", type(v).__name__) for v in args)
            return self._fall_back(name, found, record)
        key = _types_key(types)
        if key == built or (allowed is not None and key not in allowed):
            return original
        check_process = self.namespace.get("_check_process")
        if check_process is not None:
            # A forked child raises here, as the module's functions do, before it writes a module
            # it could not run, and before the lock, which a parent's thread may have held at fork.
            check_process()
        with self._lock:
            found = self.specializations.get((name, key))
            if found is None:
                found = self.specializations[(name, key)] = self._specialize(name, tuple(types))
        return found

    def _specialize(self, name: str, types: tuple):
        """``name`` from the module written for ``types`` (the build cache's index remembers
        which file that is), or the Numba function when kpc keeps it as Numba."""
        from .cache import BuildCache

        request = tuple(("array", t[1], t[2], "C") if t[0] == "array" else t for t in types)
        cache = BuildCache()
        # "pykokkos": the Kokkos C++ target's keys for the same source and types differ
        index_key = self.source_file.index_key(pykokkos=True, function=name, types=request, space=self.space,
                                               options=self.options)
        record = cache.read_index(index_key) if index_key is not None else None
        if record is not None and "fallback" in record:
            return self._fall_back(name, types, record, earlier=True)
        if record is None or not os.path.exists(record.get("path", "")):
            try:
                if self.compiler is None:
                    raise RuntimeError("this module was generated without kpc's compiler")
                record = self.compiler().build_pykokkos_specialization(self.source, name, request, self.space,
                                                                       self.options)
            except fallback.PROPAGATE:
                raise
            except Exception as error:  # kpc cannot type or translate it: Numba runs it
                failure = fallback.failure_record(error, name)
                failure.update({"types": [list(t) for t in types], "source": self.source})
                if index_key is not None and not fallback.strict_mode():
                    cache.write_index(index_key, failure)
                return self._fall_back(name, types, failure, error=error)
            if not record["translated"]:
                failure = {"fallback": record["reason"], "kind": "pykokkos", "function": name, "location": None,
                           "construct": record["reason"], "message": record["reason"],
                           "types": [list(t) for t in types], "source": self.source}
                if index_key is not None and not fallback.strict_mode():
                    cache.write_index(index_key, failure)
                return self._fall_back(name, types, failure)
            if index_key is not None:
                cache.write_index(index_key, record)
        path = record["path"]
        module = self._modules.get(path)
        if module is None:
            stem = os.path.splitext(os.path.basename(path))[0]
            module = self._modules[path] = self.load_module(path, f"kpc_pykokkos_{stem}")
        return getattr(module, name)

    def _fall_back(self, name, types, record, error=None, earlier: bool = False):
        signature = ", ".join(format_type(t) for t in types)
        if fallback.strict_mode():
            raise fallback.strict_error(name, signature, record, error)
        if (name, _types_key(types)) not in self.fallbacks:
            self.fallbacks[(name, _types_key(types))] = record
            warnings.warn(fallback.fallback_message(name, signature, record, earlier),
                          fallback.KpcFallbackWarning, stacklevel=_caller_level())
        function = getattr(self.namespace["_load_numba_source"](), name)
        on_host = self.namespace.get("_on_host")  # the Cuda space's: CuPy arguments as host copies
        return on_host(function) if on_host is not None else function


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside this file (the caller of the wrapped
    function), counted from the caller of this function."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals is globals():
        frame, level = frame.f_back, level + 1
    return level


def install(namespace: dict, source: str, space, options: dict, functions: dict, compiler) -> PerCallTypes:
    """Wrap every function of ``functions`` (name -> ``(built, eager)``: the argument types
    it was built for, and its eager signatures' or None) in the module whose globals are
    ``namespace``."""
    runtime = PerCallTypes(namespace, source, space, options, compiler)
    for name, (built, eager) in functions.items():
        runtime.wrap(name, tuple(map(tuple, built)), None if eager is None else [tuple(map(tuple, t)) for t in eager])
    return runtime
