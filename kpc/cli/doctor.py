"""``kpc doctor``: what kpc will build with (packages, Kokkos, C++ compiler, cache), or what is missing."""

from __future__ import annotations

import argparse
import platform
import sys
from importlib import metadata
from typing import Sequence

from kpc import __version__


def add_doctor_command(subparsers) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check the environment: Python packages, Kokkos, C++ compiler, cache",
        description=(
            "Print what kpc will build with: Python, numba and numpy versions; the Kokkos "
            "install found (where, how, version, backends, C++ standard); the C++ compiler and its "
            "flags; what kpc knows this Kokkos and compiler cannot do or need; the cache directory. "
            "Exits 1 with a fix when something is missing."
        ),
    )
    parser.set_defaults(run=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    from kpc.runtime.cache_dir import cache_root
    from kpc.runtime.kokkos import KokkosNotFound, find_kokkos, known_limits
    from kpc.runtime.toolchain import ToolchainError, toolchain_cache_file, toolchain_for

    problems = []
    print(f"kpc {__version__}")
    print(f"Python      {platform.python_version()} ({sys.executable})")
    for package in ("numba", "numpy", "pybind11"):
        try:
            version = metadata.version(package)
        except metadata.PackageNotFoundError:
            version = "MISSING"
            problems.append(f"{package} is not installed: pip install {package}")
        print(f"{package:<11} {version}")

    print(f"Cache dir   {cache_root()}")

    try:
        install = find_kokkos()
    except KokkosNotFound as error:
        print("Kokkos      NOT FOUND")
        problems.append(str(error))
        return _report(problems)
    print(install.describe())
    from kpc.runtime.rank_layout import describe

    gpu_build = any(backend in ("Cuda", "HIP", "SYCL") for backend in install.backends)
    print("\n".join(describe(gpu_build=gpu_build)))
    if gpu_build:
        from kpc.runtime.kokkos import core_library_name, find_host_kokkos

        host = find_host_kokkos(install)
        if host.install is not None:
            print(f"Host build  {host.install.summary()} at {host.install.root} "
                  f"({core_library_name(host.install)}): --space cuda calls are placed per call")
        else:
            print(f"Host build  NONE: --space cuda calls all run on the device ({host.reason})")

    try:
        toolchain = toolchain_for(install)
    except ToolchainError as error:
        print("Compiler    UNKNOWN (toolchain probe failed)")
        problems.append(str(error))
        return _report(problems)
    print(f"Compiler    {toolchain.compiler} ({toolchain.compiler_id} {toolchain.compiler_version})")
    print(f"  compile     {' '.join(toolchain.compile_flags())}")
    print(f"  link        {' '.join(toolchain.link_flags)}")
    print(f"  probed by   {toolchain.cmake}; cached in {toolchain_cache_file(install)}")
    limits = known_limits(install, toolchain.compiler_id, toolchain.compiler_version)
    for index, limit in enumerate(limits or [f"{install.summary()}: none known to kpc"]):
        print(f"{'Limits' if index == 0 else '':<11} {limit}")
    return _report(problems)


def _report(problems: Sequence[str]) -> int:
    if not problems:
        print("\nAll good: kpc can build Kokkos modules here.")
        return 0
    print()
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    return 1
