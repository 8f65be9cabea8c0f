"""A precompiled header of what every generated module includes, kept in the cache.

Much of a generated module's compile time is spent on its headers (Kokkos, Python.h,
kpc's ``kpc_host.hpp``; pybind11 only for CUDA modules, which are not precompiled, and in the
support library, compiled once: ``kpc.runtime.support_library``). With GCC, kpc precompiles an *umbrella* header
that includes them, once per compiler and exact flag set, and compiles each module with
``-include <umbrella>``: GCC then loads ``<umbrella>.gch`` instead of parsing the headers.

The umbrella includes exactly the headers a module includes first, in the same order,
so a module compiled with the PCH is the same translation unit as without it (its
cache key does not mention the PCH). The PCH lives in
``$KPC_CACHE_DIR/toolchain/pch/<key>/`` (umbrella, ``.gch`` and ``pch.json``, written
last), where ``key`` hashes the compiler (path, id, version, binary), every flag, the
umbrella, the contents of the headers in ``-I`` folders and a fingerprint of those in
``-isystem`` folders (Kokkos, pybind11, Python; file names, sizes and times) and the
host CPU when ``-march=native`` is used. It is built in a temporary folder and renamed
into place under a per-key lock, so concurrent processes wait for one build and never
see a half-written ``.gch``; one whose size or time disagrees with ``pch.json`` is
rebuilt. The PCH is built when a second module of a flag set is compiled (building it costs
more than it saves on one module; ``KPC_PCH=eager`` builds it for the first). A failed build leaves a ``failed`` record (no retry for that key), and the
module compiles without a PCH. GCC ignores an unusable ``.gch`` silently unless
``-Winvalid-pch`` is given: kpc gives it, and a PCH that GCC reports as not used is
marked ``rejected`` and not offered again.

Only GCC is supported: for any other compiler (Clang, ``nvcc_wrapper`` for CUDA) and
with ``KPC_PCH=0`` nothing changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence

from .cache_dir import cache_root, staged_folder, write_atomically

PCH_FORMAT = 1
UMBRELLA = "kpc_pch.hpp"
RECORD = "pch.json"
# What GCC says about a .gch it cannot use (with -Winvalid-pch), or cannot read at all.
_UNUSABLE_MARKS = ("not used because", "not a PCH file", "cannot read PCH", "invalid-pch")
# Flags only a CUDA toolchain has; kpc does not precompile for nvcc.
_CUDA_MARKS = ("nvcc", "cuda", "-arch=sm_", "--expt-")


def disabled_by_environment(environ: Optional[Mapping[str, str]] = None) -> bool:
    """``KPC_PCH=0`` (or ``off``, ``no``, ``false``) turns precompiled headers off."""
    environ = os.environ if environ is None else environ
    return environ.get("KPC_PCH", "1").strip().lower() in ("0", "off", "no", "false")


def eager(environ: Optional[Mapping[str, str]] = None) -> bool:
    """``KPC_PCH=eager``: build the PCH for the first module of a flag set, not the second."""
    environ = os.environ if environ is None else environ
    return environ.get("KPC_PCH", "").strip().lower() == "eager"


def supported(compiler: str, compiler_id: str, flags: Sequence[str]) -> bool:
    """Whether kpc precompiles headers for this compiler: GCC only, never for CUDA."""
    if compiler_id != "GNU":
        return False
    name = os.path.basename(compiler).lower()
    if "nvcc" in name:
        return False
    return not any(mark in str(flag).lower() for flag in flags for mark in _CUDA_MARKS)


@dataclass(frozen=True)
class PrecompiledHeader:
    """A built PCH: ``flags()`` make a compile use it."""

    directory: Path
    key: str

    @property
    def umbrella(self) -> Path:
        return self.directory / UMBRELLA

    @property
    def gch(self) -> Path:
        return self.directory / (UMBRELLA + ".gch")

    def flags(self) -> list:
        """``-include`` the umbrella (GCC finds the ``.gch`` next to it) and warn if it is unusable."""
        return ["-Winvalid-pch", "-include", str(self.umbrella)]

    def unusable_in(self, compiler_output: str, returncode: int = 0) -> bool:
        """Whether the compiler's output says it could not use this PCH (or, for a failed
        compile, names the umbrella at all: then the module is compiled again without it)."""
        if returncode != 0 and UMBRELLA in compiler_output:
            return True
        return any(mark in compiler_output for mark in _UNUSABLE_MARKS) and (
            UMBRELLA in compiler_output or "PCH" in compiler_output
        )

    def complaint(self, compiler_output: str) -> str:
        """The compiler's lines about the PCH."""
        lines = [line for line in compiler_output.splitlines() if UMBRELLA in line or "PCH" in line]
        return "\n".join(lines[:12]) or compiler_output[-2000:]

    def reject(self, reason: str) -> None:
        """Do not offer this PCH again (the compiler could not use it)."""
        try:
            write_atomically(self.directory / "rejected", reason + "\n")
        except OSError:
            pass


def pch_root(cache_dir: Optional[Path] = None, environ: Optional[Mapping[str, str]] = None) -> Path:
    return (cache_dir or cache_root(environ)) / "toolchain" / "pch"


def precompiled_header(
    compiler: str,
    compiler_id: str,
    compiler_version: str,
    flags: Sequence[str],
    headers: Sequence[str],
    cache_dir: Optional[Path] = None,
    environ: Optional[Mapping[str, str]] = None,
) -> Optional[PrecompiledHeader]:
    """The PCH of ``headers`` (included in this order) for ``compiler`` and ``flags``, built
    when missing; None when PCHs are off or unsupported here, or building failed.

    ``flags`` are the module's compile flags without its per-module ``-D`` of names the
    headers do not use (``KPC_MODULE_NAME``): GCC accepts a PCH when such macros differ.
    """
    environ = os.environ if environ is None else environ
    flags = list(flags)
    if not headers or disabled_by_environment(environ) or not supported(compiler, compiler_id, flags):
        return None
    try:
        key = pch_key(compiler, compiler_id, compiler_version, flags, headers)
        root = pch_root(cache_dir, environ)
        found = _usable(root / key, key)
        if found is not None or _gave_up(root / key):
            return found
        if not eager(environ) and not _wanted_before(root, key):
            return None
        from .cache import BuildCache

        with BuildCache(root).locked(key):
            found = _usable(root / key, key)
            if found is not None or _gave_up(root / key):
                return found
            return _build(root, key, compiler, flags, headers)
    except OSError:
        return None


def umbrella_text(headers: Sequence[str]) -> str:
    lines = ["// kpc's precompiled umbrella header: what generated modules include first.", "#pragma once"]
    lines += [f'#include "{header}"' for header in headers]
    return "\n".join(lines) + "\n"


def pch_key(compiler: str, compiler_id: str, compiler_version: str, flags: Sequence[str],
            headers: Sequence[str]) -> str:
    """Hash of everything the ``.gch`` depends on (see the module docstring)."""
    material = {
        "format": PCH_FORMAT,
        "compiler": [compiler, compiler_id, compiler_version, compiler_stamp(compiler)],
        "flags": list(flags),
        "umbrella": umbrella_text(headers),
        "headers": include_fingerprint(flags),
        "cpu": cpu_model() if "-march=native" in flags or "-mtune=native" in flags else "",
    }
    text = json.dumps(material, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def include_fingerprint(flags: Sequence[str]) -> list:
    """Contents of the headers in ``-I`` folders (kpc's own), and names, sizes and times of
    the files in ``-isystem`` folders (Kokkos, pybind11, Python)."""
    own, system = [], []
    iterator = iter(flags)
    for flag in iterator:
        if flag == "-isystem":
            system.append(next(iterator, ""))
        elif flag.startswith("-isystem") and len(flag) > len("-isystem"):
            system.append(flag[len("-isystem"):])
        elif flag == "-I":
            own.append(next(iterator, ""))
        elif flag.startswith("-I"):
            own.append(flag[2:])
    fingerprint = []
    for folder in own:
        digest = hashlib.sha256()
        path = Path(folder)
        for header in sorted(path.glob("*.h*")) if path.is_dir() else ():
            digest.update(header.name.encode() + b"\0" + header.read_bytes() + b"\0")
        fingerprint.append(["I", folder, digest.hexdigest()])
    for folder in system:
        digest = hashlib.sha256()
        for directory, subdirs, files in sorted(os.walk(folder)):
            subdirs.sort()
            for name in sorted(files):
                path = os.path.join(directory, name)
                try:
                    stat = os.stat(path)
                except OSError:
                    continue
                digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
        fingerprint.append(["isystem", folder, digest.hexdigest()])
    return fingerprint


def compiler_stamp(compiler: str) -> list:
    """The compiler's binary (real path, size, time): a reinstalled compiler is another one."""
    return _file_stamp(shutil.which(compiler) or compiler)


def _file_stamp(path: str) -> list:
    try:
        real = os.path.realpath(path)
        stat = os.stat(real)
        return [real, stat.st_size, stat.st_mtime_ns]
    except OSError:
        return [path]


def cpu_model() -> str:
    """The host CPU (``-march=native`` compiles for it; a cache shared between hosts must not mix)."""
    found = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as stream:
            for line in stream:
                name = line.split(":", 1)[0].strip()
                if name in ("model name", "flags") and name not in found:
                    found[name] = line.split(":", 1)[1].strip()
                if len(found) == 2 or not line.strip():
                    break
    except OSError:
        pass
    if found:
        return " | ".join(found[name] for name in sorted(found))
    import platform

    return platform.processor() or platform.machine()


def _usable(directory: Path, key: str) -> Optional[PrecompiledHeader]:
    """The PCH in ``directory`` when its record matches its ``.gch`` and it was not rejected."""
    found = PrecompiledHeader(directory, key)
    try:
        record = json.loads((directory / RECORD).read_text())
        stat = found.gch.stat()
        found.umbrella.stat()
    except (OSError, ValueError):
        return None
    if (directory / "rejected").exists():
        return None
    if not isinstance(record, dict) or record.get("key") != key or record.get("format") != PCH_FORMAT:
        return None
    if record.get("size") != stat.st_size or record.get("mtime_ns") != stat.st_mtime_ns:
        return None
    return found


def _wanted_before(root: Path, key: str) -> bool:
    """Whether a module of this flag set was compiled before (else note that one is now).

    Building the PCH costs more than it saves on one module, so the first module of a flag
    set compiles without it (a throw-away cache, as in tests, never pays for it) and the
    second builds it."""
    marker = root / "wanted" / key
    if marker.exists():
        return True
    write_atomically(marker, f"{time.time()}\n")
    return False


def _gave_up(directory: Path) -> bool:
    """A build of this key failed before, or the compiler rejected its PCH: compile without."""
    return (directory / "failed").exists() or (directory / "rejected").exists()


def _build(root: Path, key: str, compiler: str, flags: list, headers: Sequence[str]) -> Optional[PrecompiledHeader]:
    """Build the PCH of ``key`` (the caller holds its lock); None if the compiler fails."""
    with staged_folder(root, key) as staging:
        umbrella = staging / UMBRELLA
        umbrella.write_text(umbrella_text(headers))
        gch = staging / (UMBRELLA + ".gch")
        command = [compiler] + flags + ["-x", "c++-header", str(umbrella), "-o", str(gch)]
        started = time.perf_counter()
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        seconds = time.perf_counter() - started
        if result.returncode != 0 or not gch.is_file():
            for leftover in staging.iterdir():
                leftover.unlink()
            write_atomically(staging / "failed", result.stdout[-4000:] or f"exit status {result.returncode}")
            return None
        stat = gch.stat()
        record = {
            "format": PCH_FORMAT,
            "key": key,
            "headers": list(headers),
            "command": command,
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "build_seconds": round(seconds, 3),
            "created": time.time(),
        }
        write_atomically(staging / RECORD, json.dumps(record, indent=2) + "\n")
    return _usable(root / key, key)
