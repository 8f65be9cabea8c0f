"""`@kpc.jit` in place of `numba.njit`: compiled through the Kokkos target on first call, Numba
with a warning when kpc cannot translate the function (or take a call's arguments), an error
instead with strict=True."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

MODULE = textwrap.dedent("""
    import kpc
    from numba import njit


    @kpc.jit(parallel=True)
    def total(a):
        s = 0.0
        for i in range(len(a)):
            s += a[i]
        return s


    @kpc.jit
    def listy(a):
        xs = [1.0, 2.0]
        return a[0] + xs[1]


    @kpc.jit(strict=True)
    def strict_listy(a):
        xs = [1.0, 2.0]
        return a[0] + xs[1]


    @kpc.jit(strict=True)
    def strict_total(a):
        s = 0.0
        for i in range(len(a)):
            s += a[i]
        return s
""")


@pytest.fixture
def user_module(kpc_cache_dir, worker_id):
    """The module at a fixed place beside the build cache (cache keys include the source's path),
    so a rerun finds what the previous run compiled; written atomically (workers share it)."""
    path = Path(kpc_cache_dir) / "jit-test-sources" / "user_kernels.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text() != MODULE:
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        temporary.write_text(MODULE)
        os.replace(temporary, path)
    spec = importlib.util.spec_from_file_location(f"user_kernels_{worker_id}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_import_kpc_stays_cheap():
    code = "import sys, kpc; print(sorted(m for m in ('numba', 'numpy', 'kpc.api', 'kpc.jit') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]"


def test_fallback_to_numba_with_a_warning(user_module):
    from kpc.jit import KpcFallbackWarning

    with pytest.warns(KpcFallbackWarning, match="unsupported construct 'list'"):
        assert user_module.listy(np.array([1.0])) == 3.0
    assert user_module.listy.target == "numba" and "user_kernels.py:16:" in user_module.listy.fallback_reason


def test_strict_raises(user_module):
    from kpc.ir.diagnostics import KpcError

    with pytest.raises(KpcError, match="unsupported construct 'list'"):
        user_module.strict_listy(np.array([1.0]))


@pytest.mark.compile
def test_translated_on_first_call(user_module):
    a = np.arange(1000.0)
    assert user_module.total(a) == a.sum()
    assert user_module.total.target == "kokkos"
    assert user_module.total(a[:10]) == 45.0


def test_arguments_kpc_cannot_take_run_the_numba_version_of_that_function(user_module):
    from kpc.jit import KpcFallbackWarning

    z = [1 + 1j, 2 - 3j]
    with pytest.warns(KpcFallbackWarning, match=r"kpc cannot take the arguments of total\(list"):
        assert user_module.total(z) == 3 - 2j          # numba.njit(parallel=True) of the Python function
    assert user_module.total.target == "kokkos"        # other argument types still go to Kokkos
    with pytest.raises(TypeError, match="argument 'a' must be a NumPy array or a number, got list"):
        user_module.strict_total(z)
