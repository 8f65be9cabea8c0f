"""`kpc check` and `kpc bench` on a small corpus file (sum2d: one C++ module, shared through the
build cache). The bench test is a smoke test: it never looks at times."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from kpc.check.runner import CheckReport, Failure

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
SUM2D = CORPUS / "sum2d.py"


@pytest.mark.compile
def test_check_kokkos_agrees_with_numba(kpc):
    result = kpc("check", SUM2D, "--target", "kokkos")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[kokkos]:" in result.stdout and "0 failed" in result.stdout


def upstream_pykokkos_file():
    """The file of an installed PyKokkos package, or None.

    Not ``import pykokkos``: under pytest ``tests/backend/pykokkos`` (no ``__init__.py``) imports
    as an empty namespace package, which has no file (and the ``kpc`` subprocess never sees it).
    """
    spec = importlib.util.find_spec("pykokkos")
    return spec.origin if spec is not None and spec.has_location else None


def test_check_pykokkos_without_pykokkos(kpc):
    if upstream_pykokkos_file() is not None:
        pytest.skip(f"pykokkos is installed here ({upstream_pykokkos_file()})")
    result = kpc("check", SUM2D, "--target", "pykokkos")
    assert result.returncode == 3
    assert "pykokkos" in result.stderr and "nothing was checked" in result.stderr
    assert "passed" not in result.stdout
    result = kpc("bench", SUM2D, "--target", "pykokkos")
    assert result.returncode == 3 and "nothing was timed" in result.stderr


@pytest.mark.compile
def test_check_reports_a_mismatch(monkeypatch, capsys):
    """A mismatch is printed with the kernel, the variant, the index and both values, and exits 1."""
    import kpc.check.runner as runner
    from kpc.cli import main

    def disagreeing(path, module, target="target", kernels=None, **kwargs):
        report = CheckReport(str(path), target, runs=3)
        report.failures.append(Failure("sum2d", "float64 C m=3,n=4",
                                       "return: value mismatch at index (): expected 6.0, got 7.0"))
        return report

    monkeypatch.setattr(runner, "check_file", disagreeing)
    assert main(["check", str(SUM2D)]) == 1
    out = capsys.readouterr().out
    assert "FAIL sum2d [float64 C m=3,n=4]: return: value mismatch" in out and "expected 6.0, got 7.0" in out


def test_check_unknown_kernel(kpc):
    result = kpc("check", SUM2D, "--kernel", "nope")
    assert result.returncode == 1 and "no case for nope" in result.stderr


@pytest.mark.compile
def test_bench_smoke(kpc, tmp_path):
    result = kpc("bench", SUM2D, "--sizes", "m=8,n=16,m=16,n=32", "--repeats", "7", "--budget", "2",
                 "--bytes", "8 * m * n", "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "| sum2d | 16 |" in result.stdout and "| sum2d | 32 |" in result.stdout
    data = json.loads((tmp_path / "results.json").read_text())
    assert [row["size"] for row in data["results"]] == [16, 32]
    assert set(data["results"][0]["timings"]) == {"numba", "kokkos"}
    assert len(data["results"][0]["timings"]["kokkos"]["samples_s"]) >= 3
    assert (tmp_path / "results.md").read_text().startswith("| kernel |")
    assert "kokkos GB/s (best)" in result.stdout and data["results"][0]["kokkos_GBps_best"] > 0
    assert (tmp_path / "results.png").read_bytes()[:4] == b"\x89PNG"


def test_check_device_arrays_need_the_cuda_space(kpc):
    result = kpc("check", SUM2D, "--arrays", "cupy")
    assert result.returncode == 2 and "--arrays cupy needs --space cuda" in result.stderr
