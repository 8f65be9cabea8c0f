"""The generated drop-in module: same names, signatures and docstrings as the Numba module;
lazy specialization on the first call with new argument types; arrays allocated by a
kernel come back as NumPy arrays; functions kpc cannot translate stay Numba; every other
top-level name of the source (plain functions, constants, classes, imports, ``__all__``) is
the source module's own object."""

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
WHOLE_MODULE = HERE / "dropin_whole_module.py"


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


def _import(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # importable by name, as after ``sys.path.insert(0, out)``
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The drop-in of ``dropin_whole_module.py`` and the source module it resolves names from."""
    from kpc.api import build

    result = build(WHOLE_MODULE, tmp_path_factory.mktemp("whole"))
    module = _import(result.module_path, "dropin_whole_module_kpc")
    return module, module._kpc.source_module()


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
    # no __all__ in the source: its public names, as ``from dropin_kernels import *`` takes them
    assert sorted(module.__all__) == ["njit", "normalized", "np", "prange", "scaled_sum", "with_list"]


@pytest.mark.compile
def test_first_call_compiles_a_specialization_then_reuses_it(built):
    _, module = built
    x = np.arange(1.0, 6.0)
    assert module.scaled_sum(x) == 30.0
    assert module.scaled_sum(x, 0.5) == 7.5
    assert module.scaled_sum(x, factor=1) == 15.0
    signatures = module._kpc_scaled_sum.signatures
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
    result, module = built
    # This process compiles the specialization (pytest-xdist may have run the tests that
    # call scaled_sum in another worker); the new process must find it in the cache.
    assert module.scaled_sum(np.arange(4.0)) == 12.0
    out = str(Path(result.module_path).parent)
    script = (f"import sys, numpy as np; sys.path.insert(0, {out!r}); import dropin_kernels as m; "
              "from dropin_kernels import scaled_sum; "
              "print(scaled_sum(np.arange(4.0)), 'kpc.api' in sys.modules, 'numba' in sys.modules)")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["12.0", "False", "False"]
    assert completed.stderr == ""


def test_every_top_level_name_of_the_source_is_there_with_the_same_value(whole):
    module, source = whole
    for name in ("SCALE", "LABELS", "_CALLS", "Particle", "describe", "main", "pi", "np", "njit", "with_list",
                 "dataclass", "__version__"):
        assert getattr(module, name) is getattr(source, name), name
    assert module.pi is __import__("math").pi and module.np is np
    assert module.SCALE == 2.5 and module.__version__ == "1.2"
    assert module.Particle(1.0).mass == 1.0
    assert module.describe([1, 2]) == "2 values, scale 2.5"
    assert type(module.with_list).__module__.startswith("numba") and module.with_list(3) == 3


def test_the_translated_kernel_is_the_drop_ins_own(whole):
    module, source = whole
    assert module.total is not source.total
    assert module.total.__module__ == module.__name__
    assert "total" in vars(module) and "SCALE" not in vars(module), "other names resolve through __getattr__"


def test_all_doc_dir_and_star_import_follow_the_source(whole):
    module, source = whole
    assert module.__all__ == source.__all__
    assert module.__doc__.startswith(source.__doc__)
    assert {"SCALE", "LABELS", "Particle", "describe", "total", "np"} <= set(dir(module))
    namespace = {}
    exec(f"from {module.__name__} import *", namespace)
    assert sorted(n for n in namespace if n != "__builtins__") == sorted(source.__all__)
    assert namespace["total"] is module.total and namespace["Particle"] is source.Particle


def test_plain_python_calling_a_kernel_runs_the_sources_numba_kernel(whole):
    module, source = whole
    assert module.main() == 15.0
    assert source._CALLS == ["main"]


def test_missing_names_and_dunder_probes_raise_attribute_error(whole):
    module, _ = whole
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        module.nothing_here
    assert not hasattr(module, "__path__") and not hasattr(module, "__wrapped__")


def test_the_source_loads_on_first_use_of_one_of_its_names(tmp_path):
    from kpc.api import build

    result = build(WHOLE_MODULE, tmp_path)
    out = str(Path(result.module_path).parent)
    script = (f"import sys; sys.path.insert(0, {out!r}); from dropin_whole_module import total; "
              "print('kpc_original_dropin_whole_module' in sys.modules); "
              "import dropin_whole_module as m; print(m.SCALE, 'kpc_original_dropin_whole_module' in sys.modules)")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["False", "2.5", "True"]


def test_source_names_docstring_examples_run():
    import doctest

    import kpc.backend.source_names as source_names

    result = doctest.testmod(source_names)
    assert result.failed == 0 and result.attempted > 0
