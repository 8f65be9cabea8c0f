"""The differential corpus on the PyKokkos target.

For every corpus file and every dtype of its cases, the file is built with signatures
for that dtype (``tests/backend/pykokkos/pykokkos_corpus_builds.py``), and:

- the build report lists every jitted function, each translated or kept as Numba
  with the construct and line that stopped it, and the emitted module keeps every
  rule of the static contract checker;
- ``test_upstream_pykokkos``: when ``import pykokkos`` works, the module runs on it and
  every case is compared with Numba by its results (upstream signals some failures with
  exit status 0, so only results count); otherwise the test is skipped, saying why;
- ``test_contract_interpreter``: the module runs on the CONTRACT INTERPRETER (a
  pure-Python model of upstream's documented semantics, NOT upstream PyKokkos) and
  every case is compared with Numba. Where Numba itself departs from Python (e.g. a
  ``prange`` min reduction over no iterations), agreement with the kernel run as plain
  Python is accepted and reported.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest

from kpc.check import corpus_files, load_cases
from kpc.check.inputs import variants
from kpc.check.runner import check_file, import_path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "backend" / "pykokkos"))

from contract_interpreter import ContractInterpreter  # noqa: E402
from pykokkos_corpus_builds import build_for_dtype, dtypes_of  # noqa: E402

HAVE_SCIPY = importlib.util.find_spec("scipy") is not None


def _params():
    params = []
    for path in corpus_files(HERE):
        for dtype in dtypes_of(path):
            params.append(pytest.param(path, dtype, id=f"{path.stem}-{dtype}",
                                       marks=pytest.mark.xdist_group(path.stem)))
    return params


_builds: dict = {}


def build(path, dtype, tmp_root):
    key = (str(path), dtype)
    if key not in _builds:
        _builds[key] = build_for_dtype(path, dtype, str(tmp_root))
    return _builds[key]


@pytest.fixture(scope="session")
def out_root(tmp_path_factory):
    return tmp_path_factory.mktemp("pykokkos")


def _only(dtype):
    return lambda case: [v for v in variants(case) if v.dtype == dtype]


def _differential(path, dtype, module, target):
    """Failures against Numba, minus those where the output agrees with the kernel run as Python."""
    report = check_file(path, module, target, select=_only(dtype))
    failures = []
    for failure in report.failures:
        if not HAVE_SCIPY and "scipy" in failure.message:
            continue  # the Numba reference needs SciPy for np.dot / @
        python = check_file(path, module, target, kernels=[failure.kernel],
                            select=lambda case, label=failure.variant: [
                                v for v in variants(case) if v.label == label],
                            reference=import_path(path, jit=False))
        if python.failures:
            failures.append(str(failure))
        else:
            print(f"{failure.kernel} [{failure.variant}]: Numba departs from Python here; "
                  f"{target} agrees with Python")
    return report, failures


@pytest.mark.parametrize("path, dtype", _params())
def test_build_report_and_contract_rules(path, dtype, out_root):
    result = build(path, dtype, out_root)
    assert result.violations == [], "\n".join(str(v) for v in result.violations)
    names = {k.name for k in result.kernels}
    for kernel in load_cases(path).cases:
        assert kernel in names, f"{kernel} missing from the build report"
    for kernel in result.kept_as_numba:
        assert kernel.construct, kernel
        assert "# Kept as Numba: " in result.source and f"{kernel.name} = _numba.{kernel.name}" in result.source


def upstream_pykokkos():
    """The real upstream package, or the reason it is not importable.

    ``tests/backend/pykokkos`` (no ``__init__.py``) imports as an empty namespace package
    named ``pykokkos`` whenever ``tests/backend`` is on ``sys.path``: that is not upstream.
    """
    try:
        module = importlib.import_module("pykokkos")
    except Exception as error:  # noqa: BLE001 - any failure to import means no upstream here
        return None, f"{type(error).__name__}: {error}"
    if getattr(module, "__file__", None) is None or not hasattr(module, "workunit"):
        return None, f"'pykokkos' resolves to a namespace package at {list(getattr(module, '__path__', []))}"
    return module, None


@pytest.mark.parametrize("path, dtype", _params())
def test_upstream_pykokkos(path, dtype, out_root):
    upstream, reason = upstream_pykokkos()
    if upstream is None:
        pytest.skip(f"upstream pykokkos not importable: {reason}")
    result = build(path, dtype, out_root)
    spec = importlib.util.spec_from_file_location(f"kpc_pykokkos_{path.stem}_{dtype}", result.output)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    report, failures = _differential(path, dtype, module, "pykokkos")
    assert report.runs > 0
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("path, dtype", _params())
def test_contract_interpreter(path, dtype, out_root):
    result = build(path, dtype, out_root)
    module = ContractInterpreter().load(result.output, name=f"kpc_contract_{path.stem}_{dtype}")
    report, failures = _differential(path, dtype, module, "pykokkos-contract-interpreter")
    assert report.runs > 0
    assert not failures, "\n".join(failures)
