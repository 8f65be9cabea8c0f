"""The ``@kpc.jit`` decorator: use kpc in place of ``numba.njit`` on a function of an ordinary module.

The decorated function is compiled through kpc's Kokkos C++ target on its first
call: kpc reads the function's source file (it needs one: not for functions typed
into a REPL), builds that module's kernels into a drop-in module under the build
cache (``kpc.api.build``, once per process and source text), and from then on calls
the Kokkos version, compiling a new specialization for each new argument-type
signature as Numba does. When kpc cannot translate the
function (an unsupported construct) it warns and runs the function with ``numba.njit``
and the same options instead; argument types it cannot type or compile run the Numba
version for those types only (a ``KpcFallbackWarning`` each); ``strict=True`` raises
``KpcError``/``TypeError`` instead.

    import kpc

    @kpc.jit(parallel=True)
    def total(a):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i]
        return s

Helpers called from a kpc kernel must be kpc or Numba kernels of the same module
(``@kpc.jit`` or ``@njit``); they are compiled into the same C++ module. Numba
cannot call a ``@kpc.jit`` function, so a ``@kpc.jit`` kernel that falls back to
Numba may only call ``@njit`` helpers.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import threading
import warnings

from kpc.runtime.fallback import KpcFallbackWarning  # noqa: F401  (also kpc.jit.KpcFallbackWarning)

_NUMBA_OPTIONS = ("parallel", "fastmath", "cache", "nogil", "boundscheck", "error_model", "inline", "locals")

_builds: dict = {}
_builds_lock = threading.Lock()


def jit(function=None, *signatures, strict: bool = False, space: str = "openmp", auto_parallel: bool = True,
        **options):
    """Decorator: compile with kpc on first call (see the module docstring).

    ``@kpc.jit``, ``@kpc.jit(parallel=True, fastmath=True)``, ``@kpc.jit("f8(f8[:])")``;
    ``strict``: raise instead of falling back to Numba; ``space``: ``openmp`` or ``serial``;
    ``options``: Numba's (``parallel``, ``fastmath``, ...), read by kpc from the source and
    passed to ``numba.njit`` for the fallback.
    """
    if isinstance(function, (str, list, tuple)):
        signatures = (function,) + signatures
        function = None
    if function is None:
        return lambda f: KpcFunction(f, signatures, strict=strict, space=space, auto_parallel=auto_parallel,
                                     options=options)
    return KpcFunction(function, signatures, strict=strict, space=space, auto_parallel=auto_parallel,
                       options=options)


class KpcFunction:
    """A ``@kpc.jit`` function: the Python function, compiled through kpc on first call.

    ``target`` tells what runs it after the first call: ``kokkos`` or ``numba``
    (a fallback; ``fallback_reason`` says why).
    """

    def __init__(self, py_func, signatures=(), *, strict=False, space="openmp", auto_parallel=True, options=None):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.signatures_given = signatures
        self.strict = strict
        self.space = space
        self.auto_parallel = auto_parallel
        self.options = dict(options or {})
        self.target = None
        self.fallback_reason = None
        self._call = None
        self._numba = None
        self._lock = threading.Lock()

    def __call__(self, *args):
        call = self._call
        if call is None:
            call = self._resolve()
        return call(*args)

    def __repr__(self) -> str:
        return f"<kpc.jit function {self.__qualname__} ({self.target or 'not compiled yet'})>"

    def _resolve(self):
        with self._lock:
            if self._call is not None:
                return self._call
            from kpc.ir.diagnostics import KpcError

            try:
                self._call = self._kokkos_function()
                self.target = "kokkos"
            except KpcError as error:
                if self.strict:
                    raise
                self._fall_back(str(error))
            except _NotTranslated as error:
                if self.strict:
                    from kpc.ir.diagnostics import Diagnostic
                    from kpc.ir.nodes import Loc

                    raise KpcError(Diagnostic(str(error), Loc(inspect.getsourcefile(self.py_func) or "?", 0, 0))) \
                        from None
                self._fall_back(str(error))
            return self._call

    def _kokkos_function(self):
        path = inspect.getsourcefile(self.py_func)
        if path is None or not os.path.isfile(path):
            raise _NotTranslated(f"{self.__qualname__}: kpc needs the function's source file, and it has none")
        if self.py_func.__qualname__ != self.py_func.__name__:
            raise _NotTranslated(f"{self.__qualname__}: kpc translates only module-level functions")
        module = _built_module(os.path.abspath(path), self.space, self.auto_parallel)
        name = self.py_func.__name__
        if name in module.reasons:
            raise _NotTranslated(module.reasons[name])
        if name not in module.translated:
            raise _NotTranslated(f"{name}: kpc did not find it as a kernel of {path}")
        # Argument types kpc cannot type or compile run this function's Numba version (the
        # source module's attribute is this object, not a Numba function).
        dispatcher = module.dropin._kpc.dispatchers[name]
        dispatcher.strict = self.strict
        dispatcher.fallback = self._numba_function
        return getattr(module.dropin, name)

    def _fall_back(self, reason: str) -> None:
        self.fallback_reason = reason
        warnings.warn(f"kpc.jit: running {self.__qualname__} with Numba: {reason.splitlines()[0]}",
                      KpcFallbackWarning, stacklevel=4)
        self._call = self._numba_function()
        self.target = "numba"

    def _numba_function(self):
        """``numba.njit`` of the Python function with the same options (made once)."""
        if self._numba is None:
            import numba

            options = {k: v for k, v in self.options.items() if k in _NUMBA_OPTIONS}
            if self.signatures_given:
                self._numba = numba.njit(*self.signatures_given, **options)(self.py_func)
            else:
                self._numba = numba.njit(**options)(self.py_func)
        return self._numba


class _NotTranslated(Exception):
    pass


class _BuiltModule:
    def __init__(self, dropin, translated, reasons):
        self.dropin = dropin
        self.translated = set(translated)
        self.reasons = dict(reasons)


def _built_module(path: str, space: str, auto_parallel: bool) -> _BuiltModule:
    """The drop-in module of ``path``, built once per process (per source text, space and options)."""
    from kpc.api import build
    from kpc.check.runner import import_path
    from kpc.runtime.cache_dir import cache_root

    with open(path, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()[:16]
    key = (path, digest, space, auto_parallel)
    with _builds_lock:
        if key in _builds:
            return _builds[key]
        stem = os.path.splitext(os.path.basename(path))[0]
        out = os.path.join(str(cache_root()), "jit", f"{stem}-{digest}-{space}{'' if auto_parallel else '-serial'}")
        result = build(path, out, space=space, auto_parallel=auto_parallel)
        dropin = import_path(result.module_path, name=f"kpc_jit_{stem}_{digest}_{space}_{int(auto_parallel)}")
        _builds[key] = _BuiltModule(dropin, result.functions, result.rejected)
        return _builds[key]


class _CallableModule(type(os)):
    """``kpc.jit`` is this module once imported (Python binds a package's submodule to the package's
    attribute of the same name), so the module itself decorates: ``@kpc.jit`` == ``@kpc.jit.jit``."""

    def __call__(self, *args, **kwargs):
        return jit(*args, **kwargs)


import sys as _sys  # noqa: E402

_sys.modules[__name__].__class__ = _CallableModule
