"""A drop-in module whose ahead-of-time cache entry was truncated rebuilds that entry (same
key, same translation unit) on its next call, instead of loading it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kpc.runtime.cache import BuildCache

SUM2D = Path(__file__).resolve().parent.parent / "corpus" / "sum2d.py"

SCRIPT = """
import sys, numpy as np
sys.path.insert(0, {out!r})
import sum2d
print(sum2d.sum2d(np.ones((3, 4))), sum2d.sum2d(np.ones((2, 2), dtype=np.int64)))
"""


@pytest.mark.compile
def test_truncated_library_is_rebuilt_not_loaded(tmp_path, monkeypatch):
    from kpc.api import build

    monkeypatch.setenv("KPC_CACHE_DIR", str(tmp_path / "cache"))
    result = build(SUM2D, tmp_path / "out", signatures=["sum2d(float64[:, ::1])", "sum2d(int64[:, ::1])"])
    key = result.specializations[0].key
    library = BuildCache().verify(key).library
    size = library.stat().st_size
    library.write_bytes(library.read_bytes()[: size // 3])
    assert BuildCache().lookup(key) is None

    environ = dict(os.environ, KPC_CACHE_DIR=str(tmp_path / "cache"))
    completed = subprocess.run([sys.executable, "-c", SCRIPT.format(out=str(tmp_path / "out"))],
                               capture_output=True, text=True, timeout=600, env=environ)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["12.0", "4.0"]
    rebuilt = BuildCache().verify(key)
    assert rebuilt.library.stat().st_size == size
