"""Where kpc keeps what it builds: ``$KPC_CACHE_DIR``, default ``~/.cache/kpc``."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Mapping, Optional


def cache_root(environ: Optional[Mapping[str, str]] = None) -> Path:
    """The cache root (not created here).

    >>> cache_root({"KPC_CACHE_DIR": "/tmp/kpc-cache"})
    PosixPath('/tmp/kpc-cache')
    """
    environ = os.environ if environ is None else environ
    configured = environ.get("KPC_CACHE_DIR", "").strip()
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "kpc"


@contextmanager
def numba_cache_aside(module_name: str, environ: Optional[Mapping[str, str]] = None):
    """While a user's module is imported under a name of kpc's (the drop-in module's copy of
    it, ``kpc check``'s reference), Numba's on-disk cache of its ``cache=True`` functions goes
    to ``<cache root>/numba/<module_name>``: Numba's entries record the module's name, and
    entries written under kpc's name next to the source would break the user's own import of
    it (and one name's entries the import under another name)."""
    import numba

    saved = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(cache_root(environ) / "numba" / module_name)
    try:
        yield
    finally:
        numba.config.CACHE_DIR = saved


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def discard_folder(path: Path, aside: Optional[Path] = None) -> None:
    """Remove the folder ``path`` so that no reader sees it half removed: it is renamed aside
    first (into the folder ``aside``, else a hidden name in its own folder)."""
    if not path.exists():
        return
    name = f"discard-{path.name}-{os.getpid()}-{time.monotonic_ns()}"
    if aside is not None:
        aside.mkdir(parents=True, exist_ok=True)
    trash = aside / name if aside is not None else path.parent / f".{name}"
    os.rename(path, trash)
    shutil.rmtree(trash, ignore_errors=True)


@contextmanager
def staged_folder(root: Path, key: str):
    """A fresh temporary folder in ``root`` that becomes ``root / key`` (replacing what was
    there) when the block ends; removed, leaving no ``root / key``, when the block raises.
    The caller holds ``key``'s lock."""
    final = root / key
    root.mkdir(parents=True, exist_ok=True)
    discard_folder(final)  # damaged, half-written by an older kpc, or stale: replace it
    staging = Path(tempfile.mkdtemp(prefix=f".{key[:12]}-", dir=root))
    try:
        yield staging
        os.rename(staging, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
