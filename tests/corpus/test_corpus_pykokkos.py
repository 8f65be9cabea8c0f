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
  Python is accepted and reported as a ``NumbaDepartsFromPython`` warning (pytest's warnings
  summary lists and counts them, also under ``-q``).
- ``test_per_call_types_*``: the file built once WITHOUT signatures (as a user builds
  it), then called with every case's dtypes (int64, float32, float64, ...): calls with
  other types than the built ones get modules kpc writes for them on first use
  (``kpc.runtime.pykokkos_types``), on upstream PyKokkos when it is importable and on the
  contract interpreter.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import warnings
from pathlib import Path

import pytest

from kpc.api import build_pykokkos
from kpc.check import corpus_files, load_cases
from kpc.check.compare import NumbaDepartsFromPython
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
    """The variants of ``dtype`` (all of them for None)."""
    return lambda case: [v for v in variants(case) if dtype is None or v.dtype == dtype]


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
            warnings.warn(NumbaDepartsFromPython(f"{path.name}: {failure.kernel} [{failure.variant}]: Numba departs "
                                                 f"from Python here; {target} agrees with Python"))
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


def require_upstream():
    """The upstream package; a skip when it is not importable, a failure under
    ``KPC_REQUIRE_UPSTREAM=1`` (``make test-pykokkos``, where a skip would hide a broken build)."""
    upstream, reason = upstream_pykokkos()
    if upstream is None:
        if os.environ.get("KPC_REQUIRE_UPSTREAM", "") not in ("", "0"):
            pytest.fail(f"upstream pykokkos not importable: {reason}")
        pytest.skip(f"upstream pykokkos not importable: {reason}")
    return upstream


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
    require_upstream()
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


_generic_builds: dict = {}


def generic_build(path, tmp_root):
    """The file built without signatures (kpc assumes float64 where nothing says otherwise)."""
    if str(path) not in _generic_builds:
        _generic_builds[str(path)] = build_pykokkos(path, os.path.join(str(tmp_root), "generic"))
    return _generic_builds[str(path)]


def _all_dtypes(path, module, target):
    report, failures = _differential(path, None, module, target)
    assert report.runs > 0
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem, marks=pytest.mark.xdist_group(p.stem))
                                  for p in corpus_files(HERE)])
def test_per_call_types_upstream(path, out_root):
    require_upstream()
    result = generic_build(path, out_root)
    spec = importlib.util.spec_from_file_location(f"kpc_pykokkos_generic_{path.stem}", result.output)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _all_dtypes(path, module, "pykokkos")


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem, marks=pytest.mark.xdist_group(p.stem))
                                  for p in corpus_files(HERE)])
def test_per_call_types_contract_interpreter(path, out_root):
    result = generic_build(path, out_root)
    module = ContractInterpreter().load(result.output, name=f"kpc_contract_generic_{path.stem}")
    _all_dtypes(path, module, "pykokkos-contract-interpreter")
