"""Find the Kokkos installation that generated modules are built against.

Search order, first match wins:

1. ``KOKKOS_ROOT`` (an install prefix), then ``Kokkos_DIR`` (the folder holding
   ``KokkosConfig.cmake``). A variable that is set but points at no Kokkos is an
   error: the user asked for that folder, so kpc never silently uses another.
2. Each entry of ``CMAKE_PREFIX_PATH``, in order.
3. The running Python environment's prefix (``sys.prefix``), where the PyPI
   package ``pykokkos-base`` installs Kokkos (``scripts/bootstrap.sh`` does this).

Version and enabled backends are read from the install's own files, so the
answer describes what a compiled module will actually link against::

    >>> install = find_kokkos()                                  # doctest: +SKIP
    >>> install.version, install.backends                        # doctest: +SKIP
    ('3.4.01', ('OpenMP', 'Serial'))
    >>> known_limits(install, "GNU", "13.3.0")                   # doctest: +SKIP
    ['Kokkos 3.4.01 (OpenMP, Serial): GCC >= 13 builds it only with the bootstrap's patch ...']

Run ``python -m kpc.runtime.kokkos`` to print what is found. Its exit status is
0 when a Kokkos is found, 1 when none is installed anywhere, and 2 when
``KOKKOS_ROOT`` or ``Kokkos_DIR`` points at a folder without one.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

INSTALL_HINT = (
    "Install one into this Python environment by running `scripts/bootstrap.sh` "
    "(or `make bootstrap`) from the kpc source tree, which builds Kokkos 3.4.01 "
    "(OpenMP + Serial) through the PyPI package pykokkos-base; or point kpc at an "
    "existing install with KOKKOS_ROOT=/path/to/kokkos/prefix (the folder holding "
    "lib/cmake/Kokkos or lib64/cmake/Kokkos and include/)."
)

# Kokkos' own spelling of each execution space, in Kokkos' order of preference for
# the default execution space: devices first, then host-parallel, then Serial.
BACKEND_NAMES = (
    ("CUDA", "Cuda"),
    ("HIP", "HIP"),
    ("SYCL", "SYCL"),
    ("OPENMPTARGET", "OpenMPTarget"),
    ("OPENACC", "OpenACC"),
    ("OPENMP", "OpenMP"),
    ("THREADS", "Threads"),
    ("PTHREAD", "Threads"),
    ("HPX", "HPX"),
    ("SERIAL", "Serial"),
)

_LIB_DIR_NAMES = ("lib", "lib64")
_INCLUDE_DIR_NAMES = ("include", "include/kokkos")


class KokkosNotFound(RuntimeError):
    """No usable Kokkos installation; the message says how to get one."""


class KokkosMisconfigured(KokkosNotFound):
    """``KOKKOS_ROOT`` or ``Kokkos_DIR`` names a folder that holds no Kokkos."""


@dataclass(frozen=True)
class KokkosInstall:
    """A Kokkos installation, as its own files describe it."""

    root: Path
    cmake_dir: Path
    include_dir: Path
    lib_dir: Path
    version: str
    backends: tuple
    source_of_discovery: str
    cxx_standard: str = ""
    """The C++ standard Kokkos was built with (``17``), as its CMake package records it; empty if unknown."""

    def summary(self) -> str:
        """Version and backends in one phrase: ``Kokkos 4.6.1 (OpenMP, Serial)``."""
        return f"Kokkos {self.version} ({', '.join(self.backends) or 'no backend'})"

    def describe(self) -> str:
        """A few readable lines, as ``kpc doctor`` prints them."""
        return "\n".join(
            [
                f"Kokkos      {self.version} at {self.root}",
                f"  found via   {self.source_of_discovery}",
                f"  backends    {', '.join(self.backends) or '(none enabled)'}",
                f"  C++         {self.cxx_standard or 'unknown'} (the standard Kokkos was built with)",
                f"  cmake dir   {self.cmake_dir}",
                f"  include dir {self.include_dir}",
                f"  lib dir     {self.lib_dir}",
            ]
        )


def find_kokkos(
    environ: Optional[Mapping[str, str]] = None, python_prefix: Optional[str] = None
) -> KokkosInstall:
    """Return the Kokkos install to build against, or raise ``KokkosNotFound``.

    ``environ`` and ``python_prefix`` default to ``os.environ`` and ``sys.prefix``;
    tests pass their own.
    """
    environ = os.environ if environ is None else environ
    python_prefix = sys.prefix if python_prefix is None else python_prefix

    kokkos_root = environ.get("KOKKOS_ROOT", "").strip()
    if kokkos_root:
        return _install_at_prefix_or_raise(Path(kokkos_root), "KOKKOS_ROOT")

    kokkos_dir = environ.get("Kokkos_DIR", "").strip()
    if kokkos_dir:
        return _install_at_cmake_dir_or_raise(Path(kokkos_dir))

    searched = []
    for entry in environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep):
        if not entry.strip():
            continue
        prefix = Path(entry.strip())
        searched.append(f"CMAKE_PREFIX_PATH entry {prefix}")
        install = _install_at_prefix(prefix, f"CMAKE_PREFIX_PATH ({prefix})")
        if install is not None:
            return install

    prefix = Path(python_prefix)
    searched.append(f"the Python environment {prefix}")
    install = _install_at_prefix(prefix, "Python environment (sys.prefix)")
    if install is not None:
        return install

    raise KokkosNotFound(
        "No Kokkos installation found. Searched: KOKKOS_ROOT and Kokkos_DIR (not set), "
        + ", ".join(searched)
        + ". "
        + INSTALL_HINT
    )


DEVICE_BACKENDS = ("Cuda", "HIP", "SYCL", "OpenMPTarget", "OpenACC")


@dataclass(frozen=True)
class HostKokkos:
    """The CPU Kokkos that the host build of a ``--space cuda`` module compiles against, or
    why there is none (``install`` None, ``reason`` says what to do)."""

    install: Optional[KokkosInstall]
    reason: str = ""


def find_host_kokkos(
    device: KokkosInstall, environ: Optional[Mapping[str, str]] = None, python_prefix: Optional[str] = None
) -> HostKokkos:
    """The CPU Kokkos for the host build of a module whose device build uses ``device``.

    A CUDA-enabled Kokkos cannot be compiled by the host compiler (its headers need nvcc), and
    its OpenMP space reached through nvcc ran memory-bound kernels at 0.4-0.6x a CPU-only
    build: the host build needs a Kokkos of its own. ``KPC_HOST_KOKKOS_ROOT`` names it; else
    the first install without a device backend in ``CMAKE_PREFIX_PATH`` and then the Python
    environment (where the bootstrap puts one). Both libraries live in one process, so their
    ``libkokkoscore`` must differ in name (a dynamic loader loads one library per name):
    ``scripts/cuda/host_kokkos.sh`` builds a CPU Kokkos whose libraries are named
    ``libkpchost_kokkos*``.

    >>> find_host_kokkos(KokkosInstall(Path("/k"), Path("/k"), Path("/k"), Path("/k"), "4.6.1", ("OpenMP",),
    ...                                "KOKKOS_ROOT")).reason
    'the Kokkos at /k has no device backend: a host space needs no second Kokkos'
    """
    environ = os.environ if environ is None else environ
    python_prefix = sys.prefix if python_prefix is None else python_prefix
    if not any(backend in DEVICE_BACKENDS for backend in device.backends):
        return HostKokkos(None, f"the Kokkos at {device.root} has no device backend: a host space needs no second "
                                "Kokkos")
    named = environ.get("KPC_HOST_KOKKOS_ROOT", "").strip()
    if named:
        candidates = [_install_at_prefix_or_raise(Path(named), "KPC_HOST_KOKKOS_ROOT")]
    else:
        prefixes = [entry.strip() for entry in environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep) if entry.strip()]
        found = (_install_at_prefix(Path(prefix), "host Kokkos") for prefix in prefixes + [python_prefix])
        candidates = [install for install in found if install is not None and install.root != device.root]
    for install in candidates:
        if any(backend in DEVICE_BACKENDS for backend in install.backends):
            if named:
                return HostKokkos(None, f"KPC_HOST_KOKKOS_ROOT={named} has a device backend "
                                        f"({', '.join(install.backends)}); the host build needs a CPU-only Kokkos")
            continue
        if "OpenMP" not in install.backends and "Serial" not in install.backends:
            continue
        if core_library_name(install) == core_library_name(device):
            return HostKokkos(None, f"the host Kokkos at {install.root} and the device Kokkos at {device.root} "
                                    f"both name their library {core_library_name(device)}, and one process loads "
                                    "one library of a name: build the host one with scripts/cuda/host_kokkos.sh")
        return HostKokkos(install)
    return HostKokkos(None, "no CPU-only Kokkos found (KPC_HOST_KOKKOS_ROOT, CMAKE_PREFIX_PATH, the Python "
                            "environment): build one with scripts/cuda/host_kokkos.sh or scripts/bootstrap.sh")


def core_library_name(install: KokkosInstall) -> str:
    """The name a dynamic loader knows the install's core library by: ``libkokkoscore.so.4.6``
    (its soname: the file name up to the minor version), or the static archive's name."""
    names = sorted({library.resolve().name for library in install.lib_dir.glob("lib*kokkoscore.*")},
                   key=lambda name: (-name.count("."), name))  # copies (pip) as well as links
    for name in names:
        match = re.match(r"(lib\w*kokkoscore\.so(?:\.\d+\.\d+)?)", name)
        if match:
            return match.group(1)
    return names[0] if names else ""


def _install_at_prefix_or_raise(prefix: Path, variable: str) -> KokkosInstall:
    install = _install_at_prefix(prefix, variable)
    if install is None:
        raise KokkosMisconfigured(
            f"{variable} is set to {prefix}, but that folder holds no Kokkos install "
            f"({_what_is_missing(prefix)}). Fix or unset {variable}. " + INSTALL_HINT
        )
    return install


def _install_at_cmake_dir_or_raise(cmake_dir: Path) -> KokkosInstall:
    config = cmake_dir / "KokkosConfig.cmake"
    if config.is_file():
        # <prefix>/lib*/cmake/Kokkos: the prefix is three levels up.
        install = _install_at_prefix(cmake_dir.parent.parent.parent, "Kokkos_DIR", cmake_dir)
        if install is not None:
            return install
        reason = f"found {config}, but no Kokkos headers or libraries next to it"
    else:
        reason = f"no {config}"
    raise KokkosMisconfigured(
        f"Kokkos_DIR is set to {cmake_dir}, but that folder holds no Kokkos install "
        f"({reason}). Fix or unset Kokkos_DIR. " + INSTALL_HINT
    )


def _install_at_prefix(
    prefix: Path, source: str, cmake_dir: Optional[Path] = None
) -> Optional[KokkosInstall]:
    """The install under ``prefix``, or None if any of its parts is missing."""
    cmake_dir = cmake_dir or _find_cmake_dir(prefix)
    include_dir = _find_include_dir(prefix)
    lib_dir = _find_lib_dir(prefix)
    if cmake_dir is None or include_dir is None or lib_dir is None:
        return None
    config_header = include_dir / "KokkosCore_config.h"
    return KokkosInstall(
        root=prefix,
        cmake_dir=cmake_dir,
        include_dir=include_dir,
        lib_dir=lib_dir,
        version=_read_version(cmake_dir, config_header),
        backends=_read_backends(config_header),
        source_of_discovery=source,
        cxx_standard=_read_cxx_standard(cmake_dir),
    )


def _find_cmake_dir(prefix: Path) -> Optional[Path]:
    for lib in _LIB_DIR_NAMES:
        candidate = prefix / lib / "cmake" / "Kokkos"
        if (candidate / "KokkosConfig.cmake").is_file():
            return candidate
    return None


def _find_include_dir(prefix: Path) -> Optional[Path]:
    for include in _INCLUDE_DIR_NAMES:
        candidate = prefix / include
        if (candidate / "Kokkos_Core.hpp").is_file() and (
            candidate / "KokkosCore_config.h"
        ).is_file():
            return candidate
    return None


def _find_lib_dir(prefix: Path) -> Optional[Path]:
    for lib in _LIB_DIR_NAMES:
        candidate = prefix / lib
        if any(candidate.glob("lib*kokkoscore.*")):
            return candidate
    return None


def _what_is_missing(prefix: Path) -> str:
    if not prefix.is_dir():
        return "the folder does not exist"
    missing = []
    if _find_cmake_dir(prefix) is None:
        missing.append("lib/cmake/Kokkos/KokkosConfig.cmake or lib64/cmake/Kokkos/KokkosConfig.cmake")
    if _find_include_dir(prefix) is None:
        missing.append("include/Kokkos_Core.hpp with include/KokkosCore_config.h")
    if _find_lib_dir(prefix) is None:
        missing.append("lib/libkokkoscore.* or lib64/libkokkoscore.*")
    return "missing " + " and ".join(missing)


_PACKAGE_VERSION = re.compile(r'set\(\s*PACKAGE_VERSION\s+"([^"]+)"\s*\)')
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(?:[ \t]+(\S+))?", re.MULTILINE)


def _read_version(cmake_dir: Path, config_header: Path) -> str:
    """The version string as Kokkos' CMake package spells it (e.g. ``3.4.01``).

    Falls back to ``KOKKOS_VERSION`` from ``KokkosCore_config.h`` (``30401``).
    """
    version_file = cmake_dir / "KokkosConfigVersion.cmake"
    if version_file.is_file():
        match = _PACKAGE_VERSION.search(version_file.read_text(errors="replace"))
        if match:
            return match.group(1)
    defines = _read_defines(config_header)
    number = defines.get("KOKKOS_VERSION", "")
    if number.isdigit():
        value = int(number)
        return f"{value // 10000}.{value // 100 % 100}.{value % 100:02d}"
    return "unknown"


_CONFIG_CXX_STANDARD = re.compile(r"set\(\s*Kokkos_CXX_STANDARD\s+\"?(\d+)")
_TARGET_CXX_STANDARD = re.compile(r"cxx_std_(\d+)")


def _read_cxx_standard(cmake_dir: Path) -> str:
    """Kokkos_CXX_STANDARD (Kokkos 4 and later), else the ``cxx_std_NN`` its target requires (3.x)."""
    for name, pattern in (
        ("KokkosConfigCommon.cmake", _CONFIG_CXX_STANDARD),
        ("KokkosTargets.cmake", _TARGET_CXX_STANDARD),
    ):
        path = cmake_dir / name
        match = pattern.search(path.read_text(errors="replace")) if path.is_file() else None
        if match:
            return match.group(1)
    return ""


# Kokkos versions kpc's tests run against (the bootstrap's, and scripts/kokkos4_check.sh's).
TESTED_VERSIONS = ("3.4.01", "4.6.1")
GCC13_PATCH = "scripts/patches/kokkos-3.4.01-gcc13-cstdint.patch"


def known_limits(install: KokkosInstall, compiler_id: str = "", compiler_version: str = "") -> list:
    """What kpc knows this Kokkos, built by this compiler, cannot do or needs; one line each.

    ``compiler_id`` and ``compiler_version`` are CMake's (``GNU``, ``13.3.0``)::

        >>> install = KokkosInstall(Path("/k"), Path("/k/lib/cmake/Kokkos"), Path("/k/include"),
        ...                         Path("/k/lib"), "4.6.1", ("OpenMP", "Serial"), "KOKKOS_ROOT", "17")
        >>> known_limits(install, "GNU", "12.2.0")
        []
    """
    limits = []
    major = _major(install.version)
    if major == 3:
        patched = _has_gcc13_patch(install)
        if compiler_id == "GNU" and _major(compiler_version) >= 13 and not patched:
            limits.append(
                f"{install.summary()}: its headers lack the <cstdint> includes GCC >= 13 needs; "
                f"rebuild it with scripts/bootstrap.sh, which applies {GCC13_PATCH}"
            )
        else:
            limits.append(
                f"{install.summary()}: GCC >= 13 builds it only with the bootstrap's patch "
                f"({GCC13_PATCH}; this install {'has' if patched else 'lacks'} it)"
            )
        if "Cuda" in install.backends:
            limits.append(
                f"{install.summary()}: knows no GPU newer than Ampere; scripts/cuda/kokkos_cuda_install.sh "
                "builds it for Hopper with kpc's shims"
            )
    elif major != 4:
        limits.append(f"{install.summary()}: untested with kpc (tested: {', '.join(TESTED_VERSIONS)})")
    return limits


def _major(version: str) -> int:
    """``13.3.0`` -> 13; 0 when the version does not start with a number."""
    head = version.split(".")[0]
    return int(head) if head.isdigit() else 0


def _has_gcc13_patch(install: KokkosInstall) -> bool:
    """Whether the installed headers carry GCC13_PATCH (one of the headers it changes)."""
    header = install.include_dir / "impl" / "Kokkos_Volatile_Load.hpp"
    return header.is_file() and "#include <cstdint>" in header.read_text(errors="replace")


def _read_backends(config_header: Path) -> tuple:
    defines = _read_defines(config_header)
    backends = []
    for macro, name in BACKEND_NAMES:
        if f"KOKKOS_ENABLE_{macro}" in defines and name not in backends:
            backends.append(name)
    return tuple(backends)


def _read_defines(header: Path) -> dict:
    text = header.read_text(errors="replace") if header.is_file() else ""
    return {name: value or "" for name, value in _DEFINE.findall(text)}


def main() -> int:
    """Print the Kokkos install found; the exit status is described above."""
    try:
        install = find_kokkos()
    except KokkosMisconfigured as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KokkosNotFound as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(install.describe())
    return 0


if __name__ == "__main__":
    sys.exit(main())
