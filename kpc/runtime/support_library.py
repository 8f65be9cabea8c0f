"""kpc's support library, compiled once per compiler and flag set and kept in the cache.

A host-space module instantiates no pybind11 in its own translation unit: what needs pybind11
and NumPy's API (argument checks, scalar conversion, exception translation, module creation)
is one C++ source (``kpc_support.cpp``, handed over by the caller) compiled into a
position-independent object that is linked into every module. An object, not a shared library,
so that a module has no run-time dependency (no rpath, nothing to find at import) and its
hidden symbols stay its own.

The object lives in ``$KPC_CACHE_DIR/toolchain/support/<key>/`` (``kpc_support.o`` and
``support.json``, written last), where ``key`` hashes what the PCH key hashes (the compiler,
every flag, the headers in ``-I`` folders, a fingerprint of the ``-isystem`` ones, the host CPU
for ``-march=native``) and the source. It is built in a temporary folder and renamed into place
under a per-key lock, so concurrent builds wait for one; an object whose size or SHA-256
disagrees with ``support.json`` (truncated, overwritten) is rebuilt, never linked.

    >>> support_object("g++", "GNU", "12.2.0", flags, Path("kpc_support.cpp"))  # doctest: +SKIP
    PosixPath('/home/me/.cache/kpc/toolchain/support/3f.../kpc_support.o')
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Mapping, Optional, Sequence

from .cache_dir import cache_root, staged_folder, write_atomically
from .pch import compiler_stamp, cpu_model, include_fingerprint
from .toolchain import CompileError

SUPPORT_FORMAT = 1
OBJECT = "kpc_support.o"
RECORD = "support.json"


def support_root(cache_dir: Optional[Path] = None, environ: Optional[Mapping[str, str]] = None) -> Path:
    return (cache_dir or cache_root(environ)) / "toolchain" / "support"


def support_key(compiler: str, compiler_id: str, compiler_version: str, flags: Sequence[str], source: Path) -> str:
    """Hash of everything the object depends on (see the module docstring)."""
    flags = list(flags)
    material = {
        "format": SUPPORT_FORMAT,
        "compiler": [compiler, compiler_id, compiler_version, compiler_stamp(compiler)],
        "flags": flags,
        "source": [source.name, hashlib.sha256(source.read_bytes()).hexdigest()],
        "headers": include_fingerprint(flags),
        "cpu": cpu_model() if "-march=native" in flags or "-mtune=native" in flags else "",
    }
    text = json.dumps(material, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def support_object(
    compiler: str,
    compiler_id: str,
    compiler_version: str,
    flags: Sequence[str],
    source: Path,
    cache_dir: Optional[Path] = None,
    environ: Optional[Mapping[str, str]] = None,
    build: bool = True,
) -> Optional[Path]:
    """The object of ``source`` compiled with ``compiler`` and ``flags``, built when missing or
    damaged (with ``build=False``: None then, nothing is built). Raise
    ``kpc.runtime.toolchain.CompileError`` when the compiler fails."""
    from .cache import BuildCache

    environ = os.environ if environ is None else environ
    source = Path(source)
    key = support_key(compiler, compiler_id, compiler_version, flags, source)
    root = support_root(cache_dir, environ)
    found = _usable(root / key, key)
    if found is not None or not build:
        return found
    with BuildCache(root).locked(key):
        found = _usable(root / key, key)
        if found is not None:
            return found
        return _build(root, key, compiler, list(flags), source)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _usable(directory: Path, key: str) -> Optional[Path]:
    """The object in ``directory`` when its record matches it."""
    path = directory / OBJECT
    try:
        record = json.loads((directory / RECORD).read_text())
        size = path.stat().st_size
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("key") != key or record.get("format") != SUPPORT_FORMAT:
        return None
    if record.get("size") != size:
        return None
    try:
        if record.get("sha256") != _digest(path):
            return None
    except OSError:
        return None
    return path


def _build(root: Path, key: str, compiler: str, flags: list, source: Path) -> Path:
    """Compile the object of ``key`` (the caller holds its lock)."""
    with staged_folder(root, key) as staging:
        path = staging / OBJECT
        command = [compiler] + flags + ["-c", str(source), "-o", str(path)]
        started = time.perf_counter()
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        seconds = time.perf_counter() - started
        if result.returncode != 0 or not path.is_file():
            raise CompileError(source, command, result.stdout, result.returncode)
        record = {
            "format": SUPPORT_FORMAT,
            "key": key,
            "command": command,
            "size": path.stat().st_size,
            "sha256": _digest(path),
            "build_seconds": round(seconds, 3),
            "created": time.time(),
        }
        write_atomically(staging / RECORD, json.dumps(record, indent=2) + "\n")
    return root / key / OBJECT
