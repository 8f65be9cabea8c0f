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
