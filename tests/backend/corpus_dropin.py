"""A corpus file's drop-in module beside its Numba module, for the tests that call them alike
(``test_vectorize.py``, ``test_gufunc.py``, ``test_stencil.py``): built under ``KPC_STRICT=1``, so
that a call kpc cannot run raises instead of running Numba."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from kpc.check.runner import import_path


def dropin_and_numba(path, folder):
    """``(drop-in module, Numba module)`` of the corpus file ``path``, built into ``folder``; a
    generator for a module-scoped fixture (``KPC_STRICT=1`` while the tests use them)."""
    from kpc.api import build

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KPC_STRICT", "1")
        result = build(path, folder)
        spec = importlib.util.spec_from_file_location(f"kpc_dropin_{path.stem}", result.module_path)
        dropin = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = dropin
        spec.loader.exec_module(dropin)
        yield dropin, import_path(path)


def assert_same(got, want):
    """The same kind of result (array, NumPy scalar, tuple), dtype, shape and values (float32: 1e-6)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-6 if np.asarray(want).dtype == np.float32 else 1e-13, atol=0)
