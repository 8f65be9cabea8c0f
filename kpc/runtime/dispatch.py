"""Signature matching and dispatch for the functions of a kpc drop-in module.

A call goes ``potential(cluster)`` (the generated Python function, with the original
signature) -> ``Dispatcher.__call__`` -> a dict lookup on a cheap key of the argument
kinds -> the compiled pybind11 function. A key seen for the first time is resolved
once: its argument types are computed the way Numba's dispatcher types arguments
(``kpc.runtime.argument_types``), matched against the ahead-of-time specializations,
and, for functions without eager signatures, compiled on demand
(``ModuleRuntime.specialize``), like Numba compiles a new specialization for each new
argument-type signature.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import sys
import threading
import warnings
from pathlib import Path

import numpy as np

from . import fallback, kokkos_session, loader
from .argument_types import format_type, typeof
from .cache import BuildCache
from .cache_dir import numba_cache_aside

SUPPORTED_DTYPES = frozenset([
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
    "complex64", "complex128",
])

# Scalar conversions an eager signature accepts (Numba's "safe" conversions of Python values).
_SCALAR_CONVERSIONS = {
    "bool": {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"},
    "int64": {"int64", "float64", "float32"},
    "int32": {"int32", "int64", "float64", "float32"},
    "float32": {"float32", "float64", "complex64", "complex128"},
    "float64": {"float64", "complex128"},
    "complex64": {"complex64", "complex128"},
    "complex128": {"complex128"},
}


class DispatchError(TypeError):
    """No compiled specialization accepts the arguments (a TypeError naming the parameter)."""


def describe_value(value) -> str:
    t = typeof(value)
    if t is None:
        return type(value).__name__
    if t[0] == "array":
        order = {"C": "C-contiguous", "F": "Fortran-contiguous", "A": "non-contiguous"}[t[3]]
        return f"{t[2]}-D {order} array of {t[1]}"
    return t[1]


def _accepts(signature_type, arg_type) -> bool:
    if signature_type == arg_type:
        return True
    if signature_type[0] != arg_type[0]:
        return False
    if arg_type[0] == "array":
        return signature_type[1:3] == arg_type[1:3] and signature_type[3] == "A"
    return signature_type[1] in _SCALAR_CONVERSIONS.get(arg_type[1], ())


# The classes of the numbers whose key is their class (an index into this tuple in
# ``python_key``; the C++ key reads the same tuple).
PLAIN_SCALAR_TYPES = (float, int, bool, complex) + tuple(np.dtype(name).type for name in sorted(SUPPORTED_DTYPES))
PLAIN_SCALARS = frozenset(PLAIN_SCALAR_TYPES)
_SCALAR_CODES = {kind: (index + 1) << 1 for index, kind in enumerate(PLAIN_SCALAR_TYPES)}
_C_CONTIGUOUS, _F_CONTIGUOUS, _WRITEABLE = 0x1, 0x2, 0x400  # NumPy's flag bits (ndarray.flags.num)


def arg_key(value, _ndarray=np.ndarray, _plain=PLAIN_SCALARS):
    """A cheap hashable key that determines ``typeof(value)``, computed on every call.

    For an array: dtype number, rank and the flag bits (contiguity among them).
    """
    kind = type(value)
    if kind is _ndarray:
        return (value.dtype.num, value.ndim, value.flags.num)
    if kind in _plain:
        return kind
    return (kind, typeof(value))


def argument_code(value, _ndarray=np.ndarray, _codes=_SCALAR_CODES):
    """The 16-bit code of an argument in a dispatch key, or None: for a NumPy array of a
    built-in dtype, 1 | C-contiguous << 1 | F-contiguous << 2 | writeable << 3 | dtype number
    << 4 | rank << 9 (odd); for a number of a ``PLAIN_SCALAR_TYPES`` class, (index + 1) << 1;
    for a CuPy array, 0x8000 | C-contiguous << 1 | F-contiguous << 2 | dtype number << 4 |
    rank << 9 (even, rank below 64)."""
    if isinstance(value, _ndarray):
        number, ndim, flags = value.dtype.num, value.ndim, value.flags.num
        if number >= 32 or ndim >= 128:
            return None
        return (1 | (2 if flags & _C_CONTIGUOUS else 0) | (4 if flags & _F_CONTIGUOUS else 0)
                | (8 if flags & _WRITEABLE else 0) | number << 4 | ndim << 9)
    code = _codes.get(value.__class__)
    if code is None and "cupy" in sys.modules and isinstance(value, sys.modules["cupy"].ndarray):
        number, ndim, flags = value.dtype.num, value.ndim, value.flags
        if number < 32 and ndim < 64:  # a CuPy array: even, 0x8000 | ... (kpc_numpy.hpp's code)
            code = (0x8000 | (2 if flags.c_contiguous else 0) | (4 if flags.f_contiguous else 0)
                    | number << 4 | ndim << 9)
    return code


def python_key(*args):
    """The key of a call's arguments in a dispatcher's table. When every argument has an
    ``argument_code`` (arrays of built-in dtypes, plain numbers), the codes packed four to a
    64-bit int: that int for up to four arguments, else the tuple of those ints; otherwise the
    tuple of the codes, with ``arg_key(value)`` for arguments without one. Each compiled module
    exports the same function in C++ (``_kpc_key``), which the drop-in module uses once one is
    loaded.

    >>> python_key(np.ones(3)) == 1 | 2 | 4 | 8 | np.dtype(float).num << 4 | 1 << 9  # C and F contiguous
    True
    >>> python_key(2.0, 3) == 2 | 4 << 16
    True
    """
    codes = [argument_code(value) for value in args]
    if None in codes:
        return tuple(arg_key(value) if code is None else code for value, code in zip(args, codes))
    words = []
    for start in range(0, max(len(codes), 1), 4):
        words.append(sum(code << (16 * k) for k, code in enumerate(codes[start:start + 4])))
    return words[0] if len(codes) <= 4 else tuple(words)


def python_call(table: dict, dispatcher, *args):
    """A drop-in function's fast path: the compiled function ``table`` holds for the arguments'
    key, else ``dispatcher`` (which resolves, compiles if needed, and fills the table). Each
    compiled module exports the same in C++ (``_kpc_call``), which replaces this one in the
    drop-in module's namespace once a module is loaded."""
    try:
        function = table.get(python_key(*args))
    except TypeError:  # an unhashable argument: the dispatcher says what is wrong with it
        function = None
    return (dispatcher if function is None else function)(*args)


class Dispatcher:
    """Calls one function of a drop-in module with the specialization its arguments need.

    ``table`` maps the key of the arguments (``ModuleRuntime.key``: ``python_key``, or the
    same in C++ once a module is loaded) to a compiled function; the drop-in module's
    functions look it up themselves (the fast path) and call the dispatcher only on a miss.
    """

    def __init__(self, runtime, name: str, params: tuple, eager: bool):
        self.runtime = runtime
        self.name = name
        self.params = params
        self.eager = eager
        self.table: dict = {}
        self._lock = threading.Lock()
        # A signature kpc cannot type or compile runs ``fallback()`` (the Numba function; see
        # ``kpc.runtime.fallback``), unless ``strict`` or KPC_STRICT, which raise.
        self.strict = False
        self.fallback = None

    def __call__(self, *args):
        try:
            key = self.runtime.key(*args)
            function = self.table.get(key)
        except TypeError:  # an unhashable argument: not cached, _resolve explains it
            key = function = None
        if function is None:
            function = self._resolve(args, key)
        return function(*args)

    @property
    def signatures(self) -> list:
        """The argument types of the specializations compiled so far (like Numba's ``.signatures``)."""
        return [types for (name, types) in self.runtime.specializations if name == self.name]

    def _resolve(self, args, key=None):
        # Before compiling anything, and before taking a lock that a parent's thread may
        # have held when it forked this process: a forked child cannot run what it would compile.
        kokkos_session.check_process()
        if len(args) != len(self.params):
            raise TypeError(f"{self.name}() takes {len(self.params)} arguments ({len(args)} given)")
        types, problem = [], None
        for param, value in zip(self.params, args):
            t = typeof(value)
            if t is None:
                problem = f"argument {param!r} must be a NumPy array or a number, got {type(value).__name__}"
            elif t[0] == "array" and t[1] not in SUPPORTED_DTYPES:
                problem = (f"argument {param!r} has dtype {t[1]}, which kpc does not support "
                           f"(supported: {', '.join(sorted(SUPPORTED_DTYPES))})")
            elif t[0] == "scalar" and t[1] not in SUPPORTED_DTYPES:
                problem = f"argument {param!r} is a {t[1]}, which kpc does not support"
            if problem is not None:
                break
            types.append(t)
        with self._lock:
            if problem is None:
                function = self.runtime.function_for(self, tuple(types), args)
            elif self.eager or fallback.strict_mode(self.strict):
                raise TypeError(f"{self.name}(): {problem}")
            else:  # Numba may take what kpc does not (a list, a tuple, complex numbers): it runs
                function = self.runtime.argument_fallback(self, args, problem)
        if key is not None:
            self.table[key] = function
        return function


@functools.lru_cache(maxsize=None)
def compiler_digest() -> str:
    """kpc's version and a digest of its own sources (Python, headers, templates): the index of
    lazy specializations is keyed by it, so a changed kpc (a development checkout, a patched
    install) never reuses a module that an older kpc generated."""
    from kpc import __version__

    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".hpp", ".cpp", ".j2", ".txt", ".cmake") and path.is_file():
            digest.update(str(path.relative_to(package)).encode())
            digest.update(path.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:16]}"


class SourceFile:
    """A module's original source file, read once, and the keys under which the build cache's
    index remembers the lazy specializations of its functions (both targets)."""

    def __init__(self, path: str):
        self.path = path
        self._digest = None

    def digest(self) -> str | None:
        """The sha256 of the file as it is now (read once), None if unreadable."""
        if self._digest is None:
            try:
                with open(self.path, "rb") as handle:
                    self._digest = hashlib.sha256(handle.read()).hexdigest()
            except OSError:
                return None
        return self._digest

    def index_key(self, **material) -> str | None:
        """The index key of the specialization ``material`` describes (function, types, space,
        options, ...), with the file's path and digest and the kpc and Python versions; None
        if the file is unreadable."""
        digest = self.digest()
        if digest is None:
            return None
        material.update(source=os.path.abspath(self.path), digest=digest, kpc=compiler_digest(), python=sys.version)
        return hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()[:40]


class ModuleRuntime:
    """The state of one drop-in module: where its original source is, which specializations
    were built ahead of time (cache keys), and how to compile new ones."""

    def __init__(self, source: str, space: str, options: dict, prebuilt: list, cache_root: str | None,
                 name: str = "", namespace: dict | None = None, compiler=None):
        self.source = source
        self.source_file = SourceFile(source)
        # compiler(): the object that compiles new specializations (kpc.api in a drop-in
        # module, imported there on first need); the runtime never imports the compiler
        self.compiler = compiler
        self.space = space
        self.options = dict(options)
        # (function, types) -> (cache key, symbol); for --space cuda, the host build's (None
        # when there is none) and, in prebuilt_device, the device build's
        self.prebuilt = {(fn, tuple(tuple(t) for t in types)): (key, symbol) for fn, types, key, symbol, *_ in prebuilt}
        self.prebuilt_device = {(fn, tuple(tuple(t) for t in types)): tuple(device)
                                for fn, types, _, _, *device in prebuilt if device}
        self.tiers: dict = {}  # --space cuda: (function, types) -> placement.Tiers
        self.build_cache_root = cache_root
        self.name = name
        self.specializations: list = []
        self.fallbacks: dict = {}  # (function, types) -> the record of why the Numba function runs
        self.dispatchers: dict = {}
        self.key = python_key  # the C++ one of the first module loaded, once there is one
        self.namespace = namespace  # the drop-in module's globals (its _kpc_call)
        self._original = None
        self._original_lock = threading.Lock()

    def dispatcher(self, name: str, params: tuple, eager: bool = False) -> Dispatcher:
        self.dispatchers[name] = Dispatcher(self, name, tuple(params), eager)
        return self.dispatchers[name]

    def loaded(self, module):
        """``module`` (a compiled module just loaded): its C++ ``_kpc_key`` and ``_kpc_call``
        replace ``python_key`` and, in the drop-in module's namespace, ``python_call``."""
        if self.key is python_key and hasattr(module, "_kpc_key"):
            self.key = module._kpc_key
            if self.namespace is not None and hasattr(module, "_kpc_call"):
                self.namespace["_kpc_call"] = module._kpc_call
        return module

    def _compiler(self):
        """The compiler given by the drop-in module (``compile_specialization`` and
        ``rebuild_specializations``), asked for only when something must be compiled."""
        if self.compiler is None:
            raise RuntimeError(f"{self.name or self.source}: this module was generated without a compiler "
                               f"to build new specializations; rebuild it with kpc")
        return self.compiler()

    # ------------------------------------------------------------ finding a specialization
    def function_for(self, dispatcher: Dispatcher, types: tuple, args: tuple = ()):
        if self.space == "cuda":
            return self._placed(dispatcher, types, args)
        name = dispatcher.name
        found = self.prebuilt.get((name, types))
        if found is None:
            candidates = [(t, v) for (fn, t), v in self.prebuilt.items() if fn == name]
            for signature, value in candidates:
                if all(_accepts(s, a) for s, a in zip(signature, types)):
                    found = value
                    types = signature
                    break
            if found is None and dispatcher.eager:
                raise self._no_match(dispatcher, types, [t for t, _ in candidates])
        if found is not None:
            key, symbol = found
            module = self._load(key, name, types)
            if module is None:
                key, symbol = self._rebuild(key, name, types)
                module = self.loaded(loader.load_entry(BuildCache().verify(key)))
            self._record(name, types)
            return getattr(module, symbol)
        return self._lazy(dispatcher, types)

    def _record(self, name, types) -> None:
        if (name, types) not in self.specializations:
            self.specializations.append((name, types))

    def _no_match(self, dispatcher, types, signatures) -> DispatchError:
        given = ", ".join(format_type(t) for t in types)
        compiled = "; ".join("(" + ", ".join(format_type(t) for t in s) + ")" for s in signatures) or "none"
        for position, param in enumerate(dispatcher.params):
            if not any(_accepts(s[position], types[position]) for s in signatures):
                wanted = " or ".join(sorted({format_type(s[position]) for s in signatures}))
                return DispatchError(
                    f"{dispatcher.name}(): argument {param!r} has type {format_type(types[position])}, but the "
                    f"compiled signatures take {wanted} there (compiled: {compiled}; got ({given}))")
        return DispatchError(f"{dispatcher.name}(): no compiled signature matches ({given}); compiled: {compiled}")

    def _load(self, key: str, name: str, types: tuple):
        """The module of a prebuilt entry from the current cache or the one the build used."""
        roots = [BuildCache()]
        if self.build_cache_root and os.path.abspath(self.build_cache_root) != os.path.abspath(roots[0].root):
            roots.append(BuildCache(self.build_cache_root))
        for cache in roots:
            entry = cache.lookup(key)
            if entry is not None:
                return self.loaded(loader.load_entry(entry))
        return None

    def _rebuild(self, key: str, name: str, types: tuple) -> tuple:
        """Compile again every ahead-of-time specialization that lived in the missing or damaged
        entry ``key`` (one translation unit, as ``build`` made it); return ``name``'s new place."""
        requests = [(fn, t) for (fn, t), (k, _) in self.prebuilt.items() if k == key]
        rebuilt = self._compiler().rebuild_specializations(self.source, requests, self.space, self.options)
        for fn, t, new_key, symbol in rebuilt:
            self.prebuilt[(fn, tuple(t))] = (new_key, symbol)
        return self.prebuilt[(name, types)]

    # ------------------------------------------------------------ compiling on demand
    def _index_key(self, name: str, types: tuple) -> str | None:
        environment = {k: os.environ.get(k, "") for k in
                       ("KOKKOS_ROOT", "Kokkos_DIR", "CMAKE_PREFIX_PATH", "CXX", "KPC_CXXFLAGS", "KPC_TEAMS",
                        "KPC_HOST_KOKKOS_ROOT")}
        return self.source_file.index_key(function=name, types=types, space=self.space, options=self.options,
                                          environment=environment)

    def _lazy(self, dispatcher: Dispatcher, types: tuple):
        """The function compiled for ``types`` (from the cache's index, or compiled now), or the
        Numba function when kpc cannot type or compile it (``kpc.runtime.fallback``)."""
        name = dispatcher.name
        cache = BuildCache()
        index_key = self._index_key(name, types)
        record = cache.read_index(index_key) if index_key is not None else None
        if record is not None and "fallback" in record:
            return self._fall_back(dispatcher, types, record, None, earlier=True)
        try:
            if record is None or cache.lookup(record["key"]) is None:
                key, symbol = self._compiler().compile_specialization(self.source, name, types, self.space,
                                                                      self.options)
                record = {"key": key, "symbol": symbol, "function": name, "types": [list(t) for t in types],
                          "source": self.source}
            function = getattr(self.loaded(loader.load_entry(cache.verify(record["key"]))), record["symbol"])
        except fallback.PROPAGATE:
            raise
        except Exception as error:  # kpc cannot type, emit or compile it: Numba runs it
            return self._compile_failed(dispatcher, types, error, index_key)
        if index_key is not None:
            cache.write_index(index_key, record)
        self._record(name, types)
        return function

    def _compile_failed(self, dispatcher: Dispatcher, types: tuple, error, index_key):
        """The Numba function for ``types``, which kpc could not type, emit or compile (``error``);
        the failure is kept in the cache's index, so other processes go straight to Numba."""
        failure = fallback.failure_record(error, dispatcher.name)
        failure.update({"types": [list(t) for t in types], "source": os.path.abspath(self.source),
                        "digest": self.source_file.digest(), "kpc": compiler_digest()})
        if index_key is not None and not fallback.strict_mode(dispatcher.strict):
            BuildCache().write_index(index_key, failure)
        return self._fall_back(dispatcher, types, failure, error)

    # ------------------------------------------------------------ --space cuda: two builds
    def _placed(self, dispatcher: Dispatcher, types: tuple, args: tuple):
        """The placed function (``kpc.runtime.placement``) of a ``--space cuda`` specialization for
        calls with (or without) device arrays; the Numba function when kpc cannot build it."""
        from .device_arrays import is_cuda_array

        name = dispatcher.name
        key = (name, types)
        tiers = self.tiers.get(key)
        if tiers is None:
            candidates = [t for (fn, t) in self.prebuilt if fn == name and
                          (t == types or all(_accepts(s, a) for s, a in zip(t, types)))]
            if candidates:
                tiers = self._prebuilt_tiers(dispatcher, candidates[0])
            elif dispatcher.eager:
                raise self._no_match(dispatcher, types, [t for (fn, t) in self.prebuilt if fn == name])
            else:
                cache = BuildCache()
                index_key = self._index_key(name, types)
                record = (cache.read_index(index_key) if index_key is not None else None) or {}
                if "fallback" in record:
                    return self._fall_back(dispatcher, types, record, None, earlier=True)
                try:
                    tiers = self._lazy_tiers(dispatcher, types, record, index_key)
                except fallback.PROPAGATE:
                    raise
                except Exception as error:  # kpc cannot type, emit or compile it: Numba runs it
                    return self._compile_failed(dispatcher, types, error, index_key)
            self.tiers[key] = tiers
            self._record(name, types)
        factory = self._placed_factory()
        return tiers.function(any(is_cuda_array(value) for value in args), factory)

    def _placed_factory(self):
        """``_kpc_placed`` of a loaded compiled module (any: each defines the type)."""
        return loader.loaded_modules()[0]._kpc_placed

    def _tier_function(self, key: str, symbol: str):
        return getattr(self.loaded(loader.load_entry(BuildCache().verify(key))), symbol)

    def _written(self, key: str, symbol: str) -> list:
        """Argument positions the entry ``symbol`` of the cache entry ``key`` writes."""
        entry = BuildCache().lookup(key)
        if entry is None and self.build_cache_root:
            entry = BuildCache(self.build_cache_root).lookup(key)
        entries = entry.manifest.get("entries", []) if entry is not None else []
        return next((e.get("written", []) for e in entries if e.get("symbol") == symbol), [])

    def _prebuilt_tiers(self, dispatcher: Dispatcher, types: tuple):
        from . import placement

        name = dispatcher.name
        host_key, host_symbol = self.prebuilt[(name, types)]
        device = self.prebuilt_device.get((name, types))

        def load(which: str, key: str, symbol: str):
            """The entry from the cache (the build's, or the current one), else compiled again."""
            module = self._load(key, name, types)
            if module is None:
                found = self._compiler().compile_tier(self.source, name, types, which, self.options)
                key, symbol = found["key"], found["symbol"]
                module = self.loaded(loader.load_entry(BuildCache().verify(key)))
            return getattr(module, symbol), key, symbol

        host = None
        if host_key:
            host, host_key, host_symbol = load("host", host_key, host_symbol)
        written = self._written(host_key, host_symbol) if host_key else self._written(*device)
        def device_build():
            return load("device", *device)[0]

        strict = fallback.strict_mode(dispatcher.strict)
        return placement.Tiers(self._label(dispatcher.name, types), host,
                               device_build if device and device[0] else None, written,
                               placement.waits_for_device(strict), self._device_failed(dispatcher, types), strict)

    def _lazy_tiers(self, dispatcher: Dispatcher, types: tuple, record: dict, index_key):
        """Both builds for a call's new types: the host build compiled (or found in the cache's
        index ``record``) now, the device build in the background (placement.Tiers)."""
        from . import device_build as device_build_process
        from . import placement

        name = dispatcher.name
        cache = BuildCache()

        def tier(which: str):
            found = record.get(which)
            if found is None or (found.get("key") and cache.lookup(found["key"]) is None):
                try:
                    found = self._compiler().compile_tier(self.source, name, types, which, self.options)
                except placement.TierUnavailable as error:
                    found = {"unavailable": str(error)}
                record[which] = found
                if index_key is not None:
                    cache.write_index(index_key, dict(record))
            if "unavailable" in found:
                raise placement.TierUnavailable(found["unavailable"])
            return found

        try:
            host_record = tier("host")
            host = self._tier_function(host_record["key"], host_record["symbol"])
        except placement.TierUnavailable:
            host_record, host = None, None

        def device_build():
            found = record.get("device")  # a build that failed once is not tried again (kpc cache clear)
            if found is None or (found.get("key") and cache.lookup(found["key"]) is None):
                if self.compiler is None:
                    raise placement.TierUnavailable("this module was generated without a compiler")
                # nvcc runs in a process of its own: one that outlives this one if it ends first
                process = device_build_process.start(self.compiler, self.source, name, types, self.options,
                                                     index_key, {k: v for k, v in record.items() if k != "device"})
                found = record["device"] = device_build_process.finish(process, index_key)
            if "unavailable" in found:
                raise placement.TierUnavailable(found["unavailable"])
            if "failed" in found:
                raise RuntimeError(found["failed"])
            return self._tier_function(found["key"], found["symbol"])

        written = host_record["written"] if host_record else []
        strict = fallback.strict_mode(dispatcher.strict)
        wait = host is None or placement.waits_for_device(strict)
        tiers = placement.Tiers(self._label(name, types), host, device_build, written, wait,
                                self._device_failed(dispatcher, types), strict)
        if host is None and tiers.device is None:
            raise RuntimeError(f"{name}: neither a host nor a device build: {tiers.device_error}")
        return tiers

    def _label(self, name: str, types: tuple) -> str:
        return f"{name}({', '.join(format_type(t) for t in types)})"

    def _device_failed(self, dispatcher: Dispatcher, types: tuple):
        """What a failed background device build does: one warning; calls run on the host build."""
        from . import placement

        def warn(error) -> None:
            warnings.warn(f"kpc: the device build of {self._label(dispatcher.name, types)} failed, so its calls "
                          f"run on the host build: {str(error).splitlines()[0] if str(error) else error!r}",
                          placement.KpcPlacementWarning, stacklevel=2)
        return warn

    def argument_fallback(self, dispatcher: Dispatcher, args: tuple, problem: str):
        """The Numba function, for arguments kpc cannot take (``problem`` says which)."""
        record = {"kind": "argument", "function": dispatcher.name, "location": None,
                  "construct": "argument type", "message": problem}
        types = tuple(typeof(value) or ("python", type(value).__name__) for value in args)
        return self._fall_back(dispatcher, types, record, None)

    def _fall_back(self, dispatcher: Dispatcher, types: tuple, record: dict, error, earlier: bool = False):
        signature = ", ".join(format_type(t) for t in types)
        if fallback.strict_mode(dispatcher.strict):
            raise fallback.strict_error(dispatcher.name, signature, record, error)
        function = dispatcher.fallback() if dispatcher.fallback is not None else self.original(dispatcher.name)
        if (dispatcher.name, types) not in self.fallbacks:
            self.fallbacks[(dispatcher.name, types)] = record
            warnings.warn(fallback.fallback_message(dispatcher.name, signature, record, earlier),
                          fallback.KpcFallbackWarning, stacklevel=self._caller_level())
        return function

    def _caller_level(self) -> int:
        """The ``stacklevel`` of the frame that called the drop-in module's function (the one
        whose globals hold this runtime), counted from the caller of this method."""
        frame, level = sys._getframe(1), 1
        while frame is not None and frame.f_globals.get("_kpc") is not self:
            frame, level = frame.f_back, level + 1
        return level + 1 if frame is not None else 2

    # ------------------------------------------------------------ the rest of the user's module
    def original(self, name: str):
        """A top-level name of the user's module that the drop-in module does not define (a
        function kept as Numba, a plain function, a constant, a class, an import): the object itself."""
        try:
            return getattr(self.source_module(), name)
        except AttributeError:
            raise AttributeError(f"module {self.name!r} has no attribute {name!r}") from None

    def exported(self) -> list:
        """What ``from <drop-in> import *`` takes: the user's module's ``__all__``, else its public names."""
        module = self.source_module()
        return list(getattr(module, "__all__", [name for name in vars(module) if not name.startswith("_")]))

    def source_module(self):
        """The user's module, imported once under a private name (its ``__main__`` block does not run)."""
        with self._original_lock:  # one import per process, so its classes and objects are the same ones
            if self._original is None:
                module_name = f"kpc_original_{os.path.splitext(os.path.basename(self.source))[0]}"
                spec = importlib.util.spec_from_file_location(module_name, self.source)
                module = importlib.util.module_from_spec(spec)
                sys.modules[module_name] = module
                try:
                    with numba_cache_aside(module_name):
                        spec.loader.exec_module(module)
                except BaseException:
                    del sys.modules[module_name]
                    raise
                self._original = module
        return self._original
