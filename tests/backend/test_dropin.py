"""The generated drop-in module: same names, signatures and docstrings as the Numba module;
lazy specialization on the first call with new argument types; arrays allocated by a
kernel come back as NumPy arrays; functions kpc cannot translate stay Numba."""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "dropin_kernels.py"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from kpc.api import build

    out = tmp_path_factory.mktemp("dropin")
    result = build(KERNELS, out)
    sys.path.insert(0, str(out))
    try:
        spec = importlib.util.spec_from_file_location("dropin_kernels_kpc", result.module_path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(out))
    return result, module


def test_build_report_lists_lazy_and_numba_functions(built):
    result, _ = built
    assert result.functions == ["scaled_sum", "normalized"]
    assert list(result.rejected) == ["with_list"]
    assert "list comprehension" in result.rejected["with_list"]
    report = result.report()
    assert "compiled on first call: scaled_sum, normalized" in report and "kept as Numba: with_list" in report


def test_functions_keep_names_signatures_and_docstrings(built):
    _, module = built
    assert str(inspect.signature(module.scaled_sum)) == "(x, factor=2.0)"
    assert module.scaled_sum.__doc__.strip() == "Sum of ``factor * x``."
    assert "x / x.max()" in module.normalized.__doc__
    assert sorted(module.__all__) == ["normalized", "scaled_sum", "with_list"]


@pytest.mark.compile
def test_first_call_compiles_a_specialization_then_reuses_it(built):
    _, module = built
    x = np.arange(1.0, 6.0)
    assert module.scaled_sum(x) == 30.0
    assert module.scaled_sum(x, 0.5) == 7.5
    assert module.scaled_sum(x, factor=1) == 15.0
    signatures = module._scaled_sum.signatures
    assert (("array", "float64", 1, "C"), ("scalar", "float64")) in signatures
    assert (("array", "float64", 1, "C"), ("scalar", "int64")) in signatures


@pytest.mark.compile
def test_allocated_array_comes_back_as_a_numpy_array(built):
    _, module = built
    x = np.array([1.0, 4.0, 2.0])
    out = module.normalized(x)
    assert isinstance(out, np.ndarray) and out.dtype == np.float64 and out.flags.c_contiguous
    assert out.flags.owndata or out.base is not None
    np.testing.assert_array_equal(out, x / 4.0)


def test_untranslatable_function_is_the_original_numba_function(built):
    _, module = built
    assert module.with_list(4) == 4
    assert type(module.with_list).__module__.startswith("numba")


@pytest.mark.compile
def test_warm_import_in_a_new_process_needs_no_compiler(built, tmp_path):
    result, _ = built
    out = str(Path(result.module_path).parent)
    script = (f"import sys, numpy as np; sys.path.insert(0, {out!r}); import dropin_kernels as m; "
              "print(m.scaled_sum(np.arange(4.0)), 'kpc.api' in sys.modules, 'numba' in sys.modules)")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["12.0", "False", "False"]
    assert completed.stderr == ""
