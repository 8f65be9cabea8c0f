"""CLI tests run ``kpc`` as a user does (a subprocess) and share compiled modules through kpc's
build cache (``.kpc-cache/`` at the repository root unless ``KPC_CACHE_DIR`` is set), so each
C++ module they need is compiled once, and not again on a rerun."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
CORPUS = REPO / "tests" / "corpus"

os.environ.setdefault("OMP_NUM_THREADS", "2")


@pytest.fixture(scope="session", autouse=True)
def kpc_cache_dir():
    if not os.environ.get("KPC_CACHE_DIR"):
        os.environ["KPC_CACHE_DIR"] = str(REPO / ".kpc-cache")
    return os.environ["KPC_CACHE_DIR"]


def run_kpc(*args, cwd=None, env=None, timeout=600) -> subprocess.CompletedProcess:
    """``kpc ARGS...`` in a subprocess (stdout and stderr captured as text, colours off)."""
    environment = dict(os.environ, NO_COLOR="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "kpc.cli", *map(str, args)], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def kpc():
    return run_kpc
