"""The Python API of kpc: load a module's kernels as IR, build them, compile new specializations.

A façade: each step is written out in ``kpc.pipeline`` (the compiler pipeline, read top to
bottom) and ``kpc.compile_setup`` (flags, cache key, toolchain). ``kpc.compiler()`` hands this
module to drop-in modules, which call ``compile_specialization`` (``compile_tier`` for the host
and device builds of ``--space cuda``), ``rebuild_specializations`` and
``build_pykokkos_specialization`` for argument types they have not seen.

>>> import textwrap, tempfile, os
>>> src = textwrap.dedent('''
...     from numba import njit
...     @njit
...     def add(a, b):
...         return a + b
... ''')
>>> with tempfile.TemporaryDirectory() as d:
...     path = os.path.join(d, "m.py")
...     _ = open(path, "w").write(src)
...     module = load_module(path, signatures=["add(f8, i8)"])
>>> [(p.name, str(p.type)) for p in module.functions["add"].params]
[('a', 'f64'), ('b', 'i64')]
"""

from __future__ import annotations

from kpc.compile_setup import (KOKKOS_SPACES, check_space, kokkos_compile_flags, kokkos_key_material, module_flags,
                               prepare_toolchain)
from kpc.pipeline import (BuildResult, PyKokkosBuild, Specialized, build_pykokkos, build_pykokkos_specialization,
                          check_pykokkos, compile_specializations, load_module)
from kpc.pipeline import build_kokkos as build
from kpc.pipeline import compile_tier as _compile_tier

__all__ = [
    "load_module", "build", "build_pykokkos", "check_pykokkos", "compile_specialization", "compile_tier",
    "compile_specializations", "rebuild_specializations", "build_pykokkos_specialization", "check_space",
    "module_flags", "kokkos_compile_flags", "kokkos_key_material", "prepare_toolchain", "KOKKOS_SPACES",
    "BuildResult", "PyKokkosBuild", "Specialized",
]


def compile_specialization(source_path, function: str, types: tuple, space: str, options: dict) -> tuple:
    """Compile one function for one argument-type signature: ``(cache key, symbol)``.

    Called by a drop-in module the first time it sees new argument types.
    """
    result = compile_specializations(source_path, [(function, tuple(types))], space,
                                     auto_parallel=options.get("auto_parallel", True))
    return result[0].key, result[0].symbol


def compile_tier(source_path, function: str, types: tuple, tier: str, options: dict) -> dict:
    """Compile the ``"host"`` or ``"device"`` build of one specialization of a ``--space cuda``
    module (``kpc.pipeline.compile_tier``): ``{"key", "symbol", "written"}``."""
    return _compile_tier(source_path, function, types, tier, options.get("auto_parallel", True))


def rebuild_specializations(source_path, requests, space: str, options: dict) -> list:
    """Compile ``requests`` together again (a drop-in module whose ahead-of-time entry is
    missing from the cache, or damaged): ``[(function, types, cache key, symbol)]``.
    With the source unchanged this is the same translation unit, so the same cache entry."""
    result = compile_specializations(source_path, [(f, tuple(t)) for f, t in requests], space,
                                     auto_parallel=options.get("auto_parallel", True))
    return [(s.function, s.types, s.key, s.symbol) for s in result]
