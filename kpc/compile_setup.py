"""What compiling a Kokkos translation unit needs besides its text: the install, the flags, the cache key.

``kpc.pipeline.compile_unit`` asks this module for the Kokkos install of the unit's execution
space (``check_space``), the flags kpc adds to the toolchain's (``module_flags``), the material
its cache key hashes (``kokkos_key_material``), and the objects every host module shares: kpc's
support library and the precompiled header of its first include (``prepare_toolchain`` builds
both ahead, for ``kpc cache prepare``).

>>> leading_include('// generated\\n\\n#include "kpc_numpy.hpp"\\n#include "kpc_random.hpp"\\n')
'kpc_numpy.hpp'
>>> "-fwrapv" in module_flags("openmp", fastmath=False)
True
"""

from __future__ import annotations

import os

KOKKOS_SPACES = {"openmp": "OpenMP", "serial": "Serial", "cuda": "Cuda"}


def check_space(space: str):
    """The Kokkos install to build for ``space``, or a clear error when it cannot run there."""
    from kpc.runtime.kokkos import find_kokkos

    backend = KOKKOS_SPACES.get(space)
    if backend is None:
        raise ValueError(f"unknown execution space {space!r}; expected one of {', '.join(KOKKOS_SPACES)}")
    install = find_kokkos()
    if backend not in install.backends:
        raise RuntimeError(f"execution space {space!r} needs a Kokkos built with {backend}; the Kokkos "
                           f"{install.version} at {install.root} has {', '.join(install.backends)}")
    return install


def kokkos_compile_flags(unit) -> list:
    """Flags kpc adds to the toolchain's for a generated module (``module_flags``)."""
    return module_flags(unit.space, unit.fastmath)


def module_flags(space: str, fastmath: bool) -> list:
    """Flags kpc adds to the toolchain's for a module of ``space``: ``-fwrapv`` (int64 overflow
    wraps, as in Numba); ``-ffp-contract=off`` (no fused multiply-adds: Numba's LLVM does not
    contract ``a * b + c`` either, and ``ss / n - mean * mean`` must stay exactly 0 for one value)
    unless every function of the module has ``fastmath=True``, which gets ``-ffast-math`` instead;
    last, the user's ``KPC_CXXFLAGS`` (split like a shell would; part of the cache key)."""
    import shlex

    from kpc.backend.kokkos.emitter import INCLUDE_DIR

    semantics = ["-ffast-math"] if fastmath else ["-ffp-contract=off"]
    if space == "cuda":
        from kpc.runtime.device_arrays import cuda_compile_flags

        semantics += cuda_compile_flags(fastmath)
    return [f"-I{INCLUDE_DIR}", "-fwrapv"] + semantics + shlex.split(os.environ.get("KPC_CXXFLAGS", ""))


def kokkos_key_material(unit, install, toolchain) -> dict:
    """Everything a compiled module depends on; its hash is the module's cache key: the generated
    source and support headers, the signatures, the execution space, the Kokkos install, the
    compiler and flags, the Python ABI and the kpc version."""
    import sys

    from kpc import __version__
    from kpc.runtime.toolchain import extension_suffix

    return {
        "kind": "kokkos-module",
        "source": unit.source,
        "headers": unit.headers_digest,
        "entries": [[e.symbol, [str(t) for t in e.arg_types]] for e in unit.entries],
        "space": unit.space,
        "kokkos": {"root": str(install.root), "version": install.version, "backends": list(install.backends)},
        "compiler": [toolchain.compiler, toolchain.compiler_id, toolchain.compiler_version],
        "command": toolchain.compile_command("SOURCE", "LIBRARY", kokkos_compile_flags(unit)),
        "python": [sys.version, extension_suffix()],
        "kpc": __version__,
    }


def prepare_toolchain(space: str = "openmp", fastmath: bool = False) -> dict:
    """Build now what the first host module of ``space`` (for ``cuda``: the first host build of a
    GPU module, against the CPU Kokkos) would otherwise build beside its own compile: kpc's support library and, unless ``KPC_PCH=0``, the precompiled header, for the
    flags of modules without ``fastmath`` (or with it). Both are kept in the cache, once per
    toolchain and flag set; what is there already is reused. Returns ``{"support": Path,
    "pch": Path or None, "seconds": float}``."""
    import time

    from kpc.runtime.pch import disabled_by_environment
    from kpc.runtime.toolchain import toolchain_for

    started = time.perf_counter()
    install = check_space(space)
    if space == "cuda":
        # the host build of a GPU module: its first calls compile only that (kpc.runtime.placement);
        # a CUDA module itself is compiled whole (no support library, no precompiled header)
        from kpc.runtime.kokkos import find_host_kokkos

        host = find_host_kokkos(install)
        if host.install is None:
            raise RuntimeError(f"nothing to prepare for space 'cuda': it has no host build ({host.reason})")
        install, space = host.install, "openmp"
    toolchain = toolchain_for(install)
    extra = module_flags(space, fastmath)
    support = support_object(toolchain, extra)
    pch = None
    if not disabled_by_environment():
        from kpc.runtime.pch import precompiled_header as compiled_header

        eager = dict(os.environ, KPC_PCH="eager")  # build it now, not for the second module
        pch = compiled_header(toolchain.compiler, toolchain.compiler_id, toolchain.compiler_version,
                              toolchain.compile_flags() + extra, ["kpc_host.hpp"], environ=eager)
    return {"support": support, "pch": pch.gch if pch is not None else None,
            "seconds": time.perf_counter() - started}


def support_object(toolchain, extra: list, build: bool = True):
    """kpc's support library (``kpc_support.cpp``) compiled with the module's flags, once per toolchain
    and flag set (``kpc.runtime.support_library``); host-space modules link it (CUDA modules are
    pybind11 modules and do not). With ``build=False``: None unless it is built already."""
    from kpc.backend.kokkos.emitter import SUPPORT_SOURCE
    from kpc.runtime.support_library import support_object as compiled_support_object

    return compiled_support_object(toolchain.compiler, toolchain.compiler_id, toolchain.compiler_version,
                                   toolchain.compile_flags() + list(extra), SUPPORT_SOURCE, build=build)


def precompiled_header(source: str, toolchain, extra: list):
    """The PCH (``kpc.runtime.pch``) of the header ``source`` includes first, built once per
    toolchain and flags; None when nothing precedes that include but comments (a CUDA module
    defines KPC_CUDA first), with ``KPC_PCH=0``, for compilers other than GCC, or when
    building it failed. The umbrella holds only that include, so the module compiled with it
    is the same translation unit (and the same cache key) as without."""
    from kpc.runtime.pch import precompiled_header as compiled_header

    first = leading_include(source)
    if first is None:
        return None
    return compiled_header(toolchain.compiler, toolchain.compiler_id, toolchain.compiler_version,
                           toolchain.compile_flags() + list(extra), [first])


def leading_include(source: str):
    """``kpc_numpy.hpp`` for a source whose first line of code is ``#include "kpc_numpy.hpp"``."""
    import re

    for line in source.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        found = re.fullmatch(r'#\s*include\s+"(kpc_\w+\.hpp)"', stripped)
        return found.group(1) if found else None
    return None
