"""Backend tests share compiled modules through kpc's build cache (``.kpc-cache/`` at the
repository root unless ``KPC_CACHE_DIR`` is set): each module is compiled once, and
not again on a rerun while nothing it depends on changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "2")

REPO = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="session", autouse=True)
def kpc_cache_dir():
    if not os.environ.get("KPC_CACHE_DIR"):
        os.environ["KPC_CACHE_DIR"] = str(REPO / ".kpc-cache")
    return os.environ["KPC_CACHE_DIR"]

