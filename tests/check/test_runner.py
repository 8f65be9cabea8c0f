"""The differential runner reports agreement and names the first difference."""

import types
from pathlib import Path

import numpy as np

from kpc.check.runner import check_file, import_path

CORPUS = Path(__file__).parents[1] / "corpus"


def test_numba_against_itself_passes():
    path = CORPUS / "sum2d.py"
    report = check_file(path, import_path(path), target="numba")
    assert report.ok and report.runs > 5, report.summary()


def test_wrong_target_is_reported_with_kernel_and_variant():
    path = CORPUS / "sum2d.py"
    wrong = types.SimpleNamespace(sum2d=lambda a: float(np.sum(a)) + 1.0)
    report = check_file(path, wrong, target="wrong")
    assert not report.ok
    assert all(f.kernel == "sum2d" for f in report.failures)
    assert "FAIL sum2d [float64-" in report.summary()


def test_crashing_target_is_a_failure_not_an_error():
    path = CORPUS / "sum2d.py"

    def boom(a):
        raise TypeError("bad parameter 'a'")

    report = check_file(path, types.SimpleNamespace(sum2d=boom), target="boom")
    assert report.failures and "TypeError: bad parameter 'a'" in report.failures[0].message


def test_a_target_raising_as_numba_does_passes_and_returning_instead_fails(tmp_path):
    path = tmp_path / "inverse.py"
    path.write_text(
        "from numba import njit\n\n\n@njit\ndef inverse(a):\n    s = 0.0\n"
        "    for i in range(a.shape[0]):\n        s += 1.0 / i\n    return s\n\n\n"
        "KPC_CASES = {'inverse': {'args': {'a': ('n',)}, 'sizes': [{'n': 0}, {'n': 3}]}}\n")

    def inverse(a):
        if a.shape[0]:
            raise ZeroDivisionError("division by zero")
        return 0.0

    assert check_file(path, types.SimpleNamespace(inverse=inverse), target="python").ok
    report = check_file(path, types.SimpleNamespace(inverse=lambda a: float("inf") if a.shape[0] else 0.0))
    assert [f.variant for f in report.failures] == ["float64-n=3-C"]
    assert "expected 'ZeroDivisionError: division by zero', got 'no exception'" in report.failures[0].message
