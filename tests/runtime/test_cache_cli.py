"""`kpc cache ls | info | clear` on a cache with fake entries."""

from __future__ import annotations

from pathlib import Path

from kpc.cli import main
from kpc.runtime.cache import BuildCache


def _fill(root: Path) -> BuildCache:
    cache = BuildCache(root)

    def compile_source(source_path, library, module_name):
        Path(library).write_bytes(b"binary")

    metadata = {"python_source": "/src/star.py", "space": "openmp",
                "entries": [{"function": "star", "types": ["f64[:, :] C"], "symbol": "star__s0"}]}
    cache.get_or_build("1" * 40, "src", compile_source, metadata)
    cache.get_or_build("2" * 40, "src", compile_source, dict(metadata, space="serial"))
    return cache


def test_ls_info_clear(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KPC_CACHE_DIR", str(tmp_path))
    cache = _fill(tmp_path)
    assert main(["cache", "ls"]) == 0
    listing = capsys.readouterr().out
    assert "111111111111" in listing and "222222222222" in listing and "star.py: star" in listing

    assert main(["cache", "info", "1111"]) == 0
    info = capsys.readouterr().out
    assert "ok (checksum verified)" in info and "star__s0: star(f64[:, :] C)" in info

    cache.lookup("1" * 40).library.write_bytes(b"bin")
    assert main(["cache", "info", "1111"]) == 0
    assert "corrupt" in capsys.readouterr().out

    assert main(["cache", "info", "9"]) == 1
    assert main(["cache", "clear", "1111"]) == 0
    assert "removed 1 entry" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    assert cache.entries() == []
