"""Fixtures of the frontend tests."""

from __future__ import annotations

import pytest

from frontend_support import load_source


@pytest.fixture
def load(tmp_path):
    """``load(source, signatures=None, strict=False)``: write ``source`` to a file and parse it."""

    def _load(source: str, signatures=None, strict: bool = False, name: str = "kernels.py"):
        return load_source(tmp_path, source, signatures, strict, name)

    return _load
