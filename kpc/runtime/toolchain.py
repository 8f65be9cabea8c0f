"""The C++ compiler and flags that turn one generated source into a Python extension.

kpc asks CMake, once per Kokkos install, what building against ``Kokkos::kokkos``
and ``pybind11::module`` takes: it configures ``CMakeLists.txt`` (shipped next to
this file) in probe mode and reads the flags of the probe target from CMake's file
API reply. The answer is cached as JSON under ``$KPC_CACHE_DIR/toolchain/``, keyed
by the Kokkos install (path, version, backends), the Python interpreter and the
compiler environment, so later runs skip CMake entirely. Compiling a module is
then one compiler call::

    >>> toolchain = toolchain_for(find_kokkos())                 # doctest: +SKIP
    >>> compile_extension("sum.cpp", "out/sum" + extension_suffix(), toolchain)  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Mapping, Optional, Sequence

from .cache_dir import cache_root, write_atomically
from . import device_arrays
from .kokkos import KokkosInstall

RECIPE_DIR = Path(__file__).resolve().parent
"""Folder of the CMakeLists.txt used for probing and for building modules with CMake."""

# Bump when the probe's output or its interpretation changes, to invalidate caches.
PROBE_FORMAT = 3

# Flags kpc adds to every module, before the ones Kokkos and pybind11 require.
# -fvisibility=hidden is what pybind11 recommends for extension modules.
BASE_FLAGS = ("-O3", "-march=native", "-fPIC", "-fvisibility=hidden")
# What kpc's own headers need; a Kokkos that needs more (its Kokkos_CXX_STANDARD, or the
# standard its CMake target requires) raises it.
MINIMUM_CXX_STANDARD = 17

# Flags CMake itself adds to the probe target; kpc sets its own equivalents.
_CMAKE_OWN_FLAGS = ("-fPIC",)
_CMAKE_OWN_DEFINES = ("kpc_probe_EXPORTS",)


class ToolchainError(RuntimeError):
    """CMake is missing, or probing the compiler and the Kokkos flags failed."""


class CompileError(RuntimeError):
    """The C++ compiler rejected a source; the message holds its first error lines."""

    def __init__(self, source: Path, command: Sequence[str], output: str, returncode: int):
        self.source = Path(source)
        self.command = list(command)
        self.output = output
        self.returncode = returncode
        super().__init__(
            f"compiling {self.source} failed (compiler exit status {returncode}):\n"
            + "\n".join(first_error_lines(output))
        )


@dataclass(frozen=True)
class Toolchain:
    """Compiler plus what Kokkos and pybind11 require, as CMake resolved it."""

    compiler: str
    compiler_id: str
    compiler_version: str
    cxx_standard: str
    compile_options: tuple
    definitions: tuple
    include_dirs: tuple
    link_flags: tuple
    kokkos_root: str
    kokkos_version: str
    cmake: str

    def compile_flags(self) -> list:
        """Everything between the compiler and the source file."""
        flags = list(BASE_FLAGS) + [f"-std=c++{self.cxx_standard}"]
        flags += [option for option in self.compile_options if option not in flags]
        flags += [f"-D{definition}" for definition in self.definitions]
        flags += device_arrays.include_flags(self.include_dirs, self.compiler)
        return flags

    def compile_command(self, source, output, extra_flags: Sequence[str] = (), objects: Sequence = (),
                        link: bool = True) -> list:
        """The one command that compiles and links ``source`` (and ``objects``) into the extension
        ``output``; with ``link=False``, the command that compiles ``source`` into the object ``output``."""
        compile_flags = self.compile_flags() + list(extra_flags)
        if not link:
            return [self.compiler] + compile_flags + ["-c", str(source), "-o", str(output)]
        # Kokkos repeats some compile flags (-fopenmp) as link flags; one compile-and-link
        # command needs them once.
        link_flags = [flag for flag in self.link_flags if flag not in compile_flags]
        return (
            [self.compiler]
            + compile_flags
            + [str(source)]
            + [str(path) for path in objects]
            + ["-shared", "-o", str(output)]
            + link_flags
        )

    def link_command(self, objects: Sequence, output) -> list:
        """The command that links the compiled ``objects`` into the extension ``output``."""
        return self.compile_command(objects[0], output, (), objects[1:])

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping) -> "Toolchain":
        values = {}
        for field in fields(cls):
            value = data[field.name]
            values[field.name] = tuple(value) if isinstance(value, list) else value
        return cls(**values)


def extension_suffix() -> str:
    """File name suffix of an extension module for this interpreter (``.cpython-311-...so``)."""
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def compile_extension(
    source,
    output,
    toolchain: Toolchain,
    extra_flags: Sequence[str] = (),
    precompiled=None,
    objects=(),
) -> str:
    """Compile the C++ ``source`` into the Python extension ``output``; return the compiler's output.

    ``objects``: compiled objects linked into the extension (kpc's support library), or a
    function returning them, called once ``source`` is compiled (they may be built meanwhile):
    ``source`` is then compiled into an object first and linked with them after.
    ``precompiled``: a ``kpc.runtime.pch.PrecompiledHeader`` to compile with. When the
    compiler says it cannot use it, it is rejected for later compiles, and a compile that
    failed because of it is done again without it: a PCH never fails a module.
    Raise ``CompileError`` (source path, command, first error lines) when the compiler fails.
    """
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    if not callable(objects):
        return _compile(source, output, toolchain, extra_flags, precompiled, objects)
    compiled = output.with_name(output.name + ".o")
    try:
        text = _compile(source, compiled, toolchain, extra_flags, precompiled, (), link=False)
        command = toolchain.link_command([compiled] + list(objects()), output)
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            raise CompileError(Path(source), command, result.stdout, result.returncode)
        return text + result.stdout
    finally:
        compiled.unlink(missing_ok=True)


def _compile(source, output: Path, toolchain: Toolchain, extra_flags, precompiled, objects, link=True) -> str:
    """One compiler call (see ``compile_extension``), with the PCH if it is usable."""
    if precompiled is not None:
        command = toolchain.compile_command(source, output, list(extra_flags) + precompiled.flags(), objects, link)
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if not precompiled.unusable_in(result.stdout, result.returncode):
            if result.returncode != 0:
                raise CompileError(Path(source), command, result.stdout, result.returncode)
            return result.stdout
        precompiled.reject(precompiled.complaint(result.stdout))
        if result.returncode == 0:
            return result.stdout
    command = toolchain.compile_command(source, output, extra_flags, objects, link)
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        raise CompileError(Path(source), command, result.stdout, result.returncode)
    return result.stdout


def first_error_lines(output: str, limit: int = 12) -> list:
    """The compiler's first error and the lines after it (or its last lines if none says error)."""
    lines = output.splitlines()
    for index, line in enumerate(lines):
        if "error" in line.lower() or "undefined reference" in line:
            return lines[index : index + limit]
    return lines[-limit:]


def toolchain_for(
    install: KokkosInstall,
    cache_dir: Optional[Path] = None,
    environ: Optional[Mapping[str, str]] = None,
) -> Toolchain:
    """The toolchain for ``install``: from the cache, or probed with CMake and cached (under the
    cache's lock, so processes sharing a cache probe once)."""
    from .cache import BuildCache

    environ = os.environ if environ is None else environ
    cache_file = toolchain_cache_file(install, cache_dir, environ)
    cached = _load_cached(cache_file)
    if cached is not None:
        return cached
    with BuildCache(cache_file.parent.parent).locked(f"toolchain-{cache_file.stem}"):
        cached = _load_cached(cache_file)
        if cached is not None:
            return cached
        toolchain = probe_toolchain(install, environ)
        write_atomically(cache_file, json.dumps(toolchain.to_json(), indent=2) + "\n")
    return toolchain


def toolchain_cache_file(
    install: KokkosInstall, cache_dir: Optional[Path] = None, environ: Optional[Mapping[str, str]] = None
) -> Path:
    """Where ``toolchain_for`` keeps the probe result for ``install``."""
    environ = os.environ if environ is None else environ
    return (cache_dir or cache_root(environ)) / "toolchain" / f"{_cache_key(install, environ)}.json"


def _cache_key(install: KokkosInstall, environ: Mapping[str, str]) -> str:
    material = {
        "probe_format": PROBE_FORMAT,
        "kokkos_root": str(install.root),
        "kokkos_cmake_dir": str(install.cmake_dir),
        "kokkos_version": install.version,
        "kokkos_backends": list(install.backends),
        "python": sys.executable,
        "python_version": sys.version,
        # CMake reads these when it picks and configures the compiler.
        "compiler_environment": {name: environ.get(name, "") for name in ("CXX", "CXXFLAGS", "LDFLAGS")},
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:20]


def _load_cached(cache_file: Path) -> Optional[Toolchain]:
    try:
        toolchain = Toolchain.from_json(json.loads(cache_file.read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not Path(toolchain.compiler).exists():
        return None
    return toolchain


def find_cmake() -> str:
    """The ``cmake`` next to this interpreter (pip's ``cmake`` package), else the one on PATH."""
    beside_python = Path(sys.executable).parent / "cmake"
    if beside_python.is_file() and os.access(beside_python, os.X_OK):
        return str(beside_python)
    found = shutil.which("cmake")
    if found is None:
        raise ToolchainError(
            "cmake not found (kpc uses it once per Kokkos install to learn the compiler "
            "flags). Install it with `pip install 'cmake<4'` or your system package manager."
        )
    return found


def probe_toolchain(install: KokkosInstall, environ: Optional[Mapping[str, str]] = None) -> Toolchain:
    """Configure the probe with CMake and read the compiler and flags it resolved."""
    import pybind11

    environ = os.environ if environ is None else environ
    cmake = find_cmake()
    with tempfile.TemporaryDirectory(prefix="kpc-probe-") as build:
        build_dir = Path(build)
        query_dir = build_dir / ".cmake" / "api" / "v1" / "query"
        query_dir.mkdir(parents=True)
        (query_dir / "codemodel-v2").touch()
        command = [
            cmake,
            "-S",
            str(RECIPE_DIR),
            "-B",
            str(build_dir),
            "-DKPC_PROBE=ON",
            f"-DKokkos_DIR={install.cmake_dir}",
            f"-DPython_EXECUTABLE={sys.executable}",
            f"-Dpybind11_DIR={pybind11.get_cmake_dir()}",
        ] + device_arrays.probe_arguments(install)
        result = subprocess.run(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(environ)
        )
        if result.returncode != 0:
            tail = "\n".join(result.stdout.splitlines()[-25:])
            raise ToolchainError(
                f"probing the C++ toolchain for Kokkos at {install.root} failed; "
                f"command: {shlex.join(command)}\n{tail}"
            )
        facts = json.loads((build_dir / "kpc_probe.json").read_text())
        target = _probe_target_reply(build_dir / ".cmake" / "api" / "v1" / "reply")
    return _toolchain_from_reply(facts, target, install, cmake)


def _probe_target_reply(reply_dir: Path) -> dict:
    """The file API's description of the ``kpc_probe`` target."""
    indexes = sorted(reply_dir.glob("index-*.json"))
    if not indexes:
        raise ToolchainError(f"CMake wrote no file API reply in {reply_dir} (CMake 3.14 or newer needed)")
    index = json.loads(indexes[-1].read_text())
    codemodel_file = next(
        entry["jsonFile"] for entry in index["objects"] if entry["kind"] == "codemodel"
    )
    codemodel = json.loads((reply_dir / codemodel_file).read_text())
    for configuration in codemodel["configurations"]:
        for target in configuration["targets"]:
            if target["name"] == "kpc_probe":
                return json.loads((reply_dir / target["jsonFile"]).read_text())
    raise ToolchainError("CMake's reply describes no kpc_probe target")


def _toolchain_from_reply(facts: dict, target: dict, install: KokkosInstall, cmake: str) -> Toolchain:
    group = next(group for group in target["compileGroups"] if group["language"] == "CXX")
    options = []
    standard = MINIMUM_CXX_STANDARD
    for fragment in group.get("compileCommandFragments", []):
        for flag in shlex.split(fragment["fragment"]):
            if flag.startswith("-std="):
                standard = max(standard, _standard_number(flag))
            elif flag not in _CMAKE_OWN_FLAGS and flag not in options:
                options.append(flag)
    for requested in (group.get("languageStandard", {}).get("standard"), facts.get("kokkos_cxx_standard")):
        if requested and requested.isdigit():
            standard = max(standard, int(requested))
    definitions = [
        entry["define"] for entry in group.get("defines", []) if entry["define"] not in _CMAKE_OWN_DEFINES
    ]
    include_dirs = []
    for entry in group.get("includes", []):
        if entry["path"] not in include_dirs:
            include_dirs.append(entry["path"])
    link_flags = []
    for fragment in target.get("link", {}).get("commandFragments", []):
        link_flags += shlex.split(fragment["fragment"])
    if device_arrays.has_cuda(install):
        link_flags = list(device_arrays.cuda_link_flags(link_flags))
    if has_static_libstdcxx_only(facts["cxx_compiler"]) and HIDE_STATIC_LIBS not in link_flags:
        link_flags.append(HIDE_STATIC_LIBS)
    return Toolchain(
        compiler=facts["cxx_compiler"],
        compiler_id=facts["cxx_compiler_id"],
        compiler_version=facts["cxx_compiler_version"],
        cxx_standard=str(standard),
        compile_options=tuple(options),
        definitions=tuple(definitions),
        include_dirs=tuple(include_dirs),
        link_flags=tuple(link_flags),
        kokkos_root=str(install.root),
        kokkos_version=install.version,
        cmake=cmake,
    )


HIDE_STATIC_LIBS = "-Wl,--exclude-libs,ALL"
"""Linker flag that keeps the symbols of static archives (libstdc++.a) local to a module."""


def has_static_libstdcxx_only(compiler: str) -> bool:
    """Whether GCC ``compiler`` links libstdc++ from a static archive only.

    A relocated GCC (e.g. ``/opt/gcc``) without ``libstdc++.so`` puts a private copy of
    libstdc++ into every shared object it links, with its ``std::`` symbols exported; next
    to the interpreter's shared libstdc++ (or Kokkos' own copy) the copies mix, and Kokkos
    crashes in its first stream output. Such a compiler answers ``-print-file-name`` with
    a bare name instead of a path. Compilers that do not know the option (nvcc) say no.
    """
    try:
        found = subprocess.run(
            [compiler, "-print-file-name=libstdc++.so"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return False
    answer = found.stdout.strip()
    return found.returncode == 0 and answer == "libstdc++.so"


def _standard_number(flag: str) -> int:
    """``-std=c++17`` or ``-std=gnu++20`` -> 17 or 20 (C++ standards CMake writes)."""
    digits = flag.rsplit("+", 1)[-1]
    return int(digits) if digits.isdigit() else MINIMUM_CXX_STANDARD
