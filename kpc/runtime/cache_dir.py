"""Where kpc keeps what it builds: ``$KPC_CACHE_DIR``, default ``~/.cache/kpc``."""

from __future__ import annotations

import os
import tempfile
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
