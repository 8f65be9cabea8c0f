"""The differential runner reports agreement and names the first difference."""

import math
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


class _StandInCupy(types.ModuleType):
    """A host-memory stand-in for CuPy's ``asarray``/``asnumpy``/``ndarray``: it tests how
    ``on_device`` moves arguments and results, not CuPy (the GPU machine runs the real one,
    ``kpc check --space cuda --arrays cupy``)."""

    class ndarray(np.ndarray):
        pass

    def __init__(self):
        super().__init__("cupy")
        self.copies = 0

    def asarray(self, array):
        self.copies += 1
        return np.array(array, copy=True).view(self.ndarray)

    @staticmethod
    def asnumpy(array):
        return np.array(array, copy=True).view(np.ndarray)


def test_on_device_copies_writes_back_and_returns_host_arrays(monkeypatch):
    from kpc.check.runner import on_device

    cupy = _StandInCupy()
    monkeypatch.setitem(__import__("sys").modules, "cupy", cupy)
    seen = []

    def kernel(out, x, a):
        seen.append((type(out), type(x), type(a)))
        out[...] = x * a
        return x + 1, float(a)

    x = np.arange(6.0)[::2]  # non-contiguous: the copy is contiguous, the write-back goes into the view
    out = np.zeros(3)
    returned = on_device(kernel)(out, x, 2.0)
    assert seen == [(cupy.ndarray, cupy.ndarray, float)] and cupy.copies == 2
    np.testing.assert_array_equal(out, [0.0, 4.0, 8.0])
    assert type(returned[0]) is np.ndarray and returned[1] == 2.0
    np.testing.assert_array_equal(returned[0], [1.0, 3.0, 5.0])


def test_check_file_with_device_arrays_compares_on_the_host(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "cupy", _StandInCupy())
    path = CORPUS / "sum2d.py"
    report = check_file(path, import_path(path), target="numba on stand-in device arrays", arrays="cupy")
    assert report.ok and report.runs > 5, report.summary()


def test_an_atol_floor_accepts_the_rounding_noise_of_reassociated_sums():
    # jackknife_var's bias is 0 exactly; Numba's sequential sums leave 9.1e-12 at n = 1e6, exact sums 0.0
    root = Path(__file__).parents[2]
    path = root / "examples" / "collection2" / "c2_35_bootstrap_jackknife.py"
    script = import_path(root / "scripts" / "collection_report.py", "collection_report_for_test")
    atol, why = script.REASSOCIATION_NOISE[(path.name, "jackknife_var")]
    assert "0 exactly" in why

    def exact_sums(x):
        n = x.shape[0]
        loo = (math.fsum(x) - x) / (n - 1)
        m = math.fsum(loo) / n
        return (n - 1) / n * math.fsum((loo - m) ** 2), (n - 1) * (m - math.fsum(x) / n)

    target = types.SimpleNamespace(jackknife_var=exact_sums)
    report = check_file(path, target, kernels={"jackknife_var"})
    large = {"float64-n=1000000-C", "float64-n=1000000-strided"}
    assert {f.variant for f in report.failures} == large, report.summary()
    assert check_file(path, target, kernels={"jackknife_var"}, atol_floors={"jackknife_var": atol}).ok
