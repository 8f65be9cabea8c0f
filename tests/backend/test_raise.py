"""``raise`` in a kernel: the Kokkos C++ module raises what Numba raises (class, message and
arguments) where the statement runs, on OpenMP and Serial; a ``raise`` kpc cannot reach from a
parallel region keeps the kernel as Numba with the reason."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from kpc.check.runner import import_path

KERNELS = Path(__file__).resolve().parent.parent / "corpus" / "raise_statements.py"

CALLS = [
    ("normalized", (np.zeros(0),)),
    ("normalized", (np.arange(3.0),)),
    ("trimmed_total", (np.arange(4.0), 2)),
    ("trimmed_total", (np.arange(9.0), 2)),
    ("relax_edges", (np.array([0, 1]), np.array([1, 0]), np.array([-1.0, 0.5]), np.array([0.0, 0.0]))),
    ("relax_edges", (np.array([0, 1]), np.array([1, 0]), np.array([1.0, 0.5]), np.array([0.0, 0.0]))),
    ("bounded_rows", (np.array([[1, 2], [3, 99]]), 10, np.zeros(2, dtype=np.int64))),
    ("doubled_halves", (np.arange(6.0),)),
    ("doubled_halves", (np.arange(8.0),)),
]
SIGNATURES = {
    "normalized": ["normalized(float64[::1])"],
    "trimmed_total": ["trimmed_total(float64[::1], int64)"],
    "relax_edges": ["relax_edges(int64[::1], int64[::1], float64[::1], float64[::1])"],
    "bounded_rows": ["bounded_rows(int64[:, ::1], int64, int64[::1])"],
    "doubled_halves": ["doubled_halves(float64[::1])"],
}


def outcome(function, args):
    """What a call gives: ``("returned", value)`` or ``("raised", class name, str, args)``."""
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return ("returned", function(*args))
    except Exception as error:  # the outcome under test
        return ("raised", type(error).__name__, str(error), error.args)


@pytest.fixture(scope="module", params=["openmp", "serial"])
def modules(request, tmp_path_factory):
    from kpc.api import build

    out = tmp_path_factory.mktemp(f"raise-{request.param}")
    result = build(KERNELS, out, signatures=SIGNATURES, space=request.param, strict=True)
    return import_path(result.module_path, f"kpc_raise_{request.param}"), import_path(KERNELS, "kpc_raise_numba")


@pytest.mark.compile
@pytest.mark.parametrize("name,args", CALLS, ids=[f"{n}-{k}" for k, (n, _) in enumerate(CALLS)])
def test_raises_what_numba_raises(modules, name, args):
    kokkos, numba = modules
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = outcome(getattr(numba, name), args)
    actual = outcome(getattr(kokkos, name), args)
    assert actual[0] == expected[0]
    if expected[0] == "raised":
        assert actual == expected
    else:
        np.testing.assert_allclose(actual[1], expected[1], rtol=1e-12)


@pytest.mark.compile
def test_raise_in_a_helper_called_from_a_region_stays_numba(tmp_path):
    from kpc.api import build

    path = tmp_path / "helper_raise.py"
    path.write_text(textwrap.dedent('''
        from numba import njit, prange

        @njit
        def doubled(v):
            if v < 0:
                raise ValueError("negative")
            return 2 * v

        @njit(parallel=True)
        def doubled_all(x, out):
            for i in prange(x.shape[0]):
                out[i] = doubled(x[i])
    '''))
    result = build(path, tmp_path / "out", signatures={"doubled_all": ["doubled_all(float64[::1], float64[::1])"]})
    assert "doubled_all" in result.rejected
    assert "raise ValueError inside a parallel loop" in str(result.rejected["doubled_all"])
    assert ":7:" in str(result.rejected["doubled_all"])


def test_pykokkos_callers_raise_in_python(tmp_path):
    from kpc.api import build_pykokkos

    built = build_pykokkos(KERNELS, tmp_path, signatures={name: texts[0] for name, texts in SIGNATURES.items()})
    assert not built.kept_as_numba and not built.violations
    text = built.source
    assert "raise ValueError('cannot normalize an empty vector')" in text
    assert "        raise ValueError\n" in text


def test_cuda_units_throw_from_host_functions_only():
    """On ``--space cuda`` the statement is emitted in host code (an ``inline`` function, never a
    ``KOKKOS_INLINE_FUNCTION`` nvcc would compile for the device)."""
    import re

    from kpc.api import load_module
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
    from kpc.passes.manager import PassContext, run_pipeline

    module = load_module(KERNELS, signatures=[text for texts in SIGNATURES.values() for text in texts])
    run_pipeline(module, PassContext(target="kokkos"))
    source = emit_translation_unit([Specialization(module, list(SIGNATURES))], space="cuda",
                                   source=str(KERNELS)).source
    functions = re.split(r"\n(?=KOKKOS_INLINE_FUNCTION |inline )", source)
    throwing = [f.split("(")[0] for f in functions if "throw kpc::exception(\"builtins\"" in f]
    assert {f.split()[-1] for f in throwing} == {"normalized", "trimmed_total", "relax_edges", "bounded_rows",
                                                "check_power_of_two"}
    assert all(f.startswith("inline ") for f in throwing)
