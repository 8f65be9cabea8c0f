"""`kpc build`: the report (table and JSON, checked against its schema), kernels kept as Numba,
--strict, --dump-ir, --explain, --no-auto-parallel, --check-pykokkos, -j, and one real C++ build."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kpc.report import SCHEMA, validate

CORPUS = Path(__file__).resolve().parent.parent / "corpus"

MIXED = textwrap.dedent("""
    import numpy as np
    from numba import njit, prange


    @njit
    def total(a):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i]
        return s


    @njit(parallel=True)
    def scale(a, out):
        for i in prange(a.shape[0]):
            out[i] = 2.0 * a[i]


    @njit
    def listy(a):
        xs = [1.0, 2.0]
        return a[0] + xs[1]
""")


@pytest.fixture
def mixed(tmp_path):
    path = tmp_path / "mixed.py"
    path.write_text(MIXED)
    return path


def _report(out: Path, stem: str) -> dict:
    data = json.loads((out / f"{stem}.kpc.json").read_text())
    assert validate(data) == [], validate(data)
    return data


def _kernels(data: dict) -> dict:
    return {k["name"]: k for k in data["kernels"]}


@pytest.mark.parametrize("target", ["kokkos", "pykokkos"])
def test_report_table_and_json(kpc, mixed, tmp_path, target):
    result = kpc("build", mixed, "--target", target, "-o", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    space = "openmp" if target == "kokkos" else "pykokkos-default"   # PyKokkos picks its space at run time
    assert f"({target}, {space})" in result.stdout and "2 translated, 1 kept as Numba, 0 failed" in result.stdout
    if target == "pykokkos":
        assert "pk.OpenMP" not in (tmp_path / "out" / "mixed.py").read_text()
    assert "mixed.py:22:" in result.stdout and "list" in result.stdout        # where listy was stopped
    data = _report(tmp_path / "out", "mixed")
    assert data["target"] == target and data["summary"] == {"translated": 2, "lazy": 0, "numba": 1, "failed": 0}
    kernels = _kernels(data)
    assert kernels["total"]["dispatch"] == "parallel_reduce" and kernels["total"]["reductions"] == ["sum:s"]
    assert kernels["total"]["policy"].startswith("Range")
    assert kernels["scale"]["dispatch"] == "parallel_for"
    assert kernels["listy"]["status"] == "numba" and kernels["listy"]["construct"] == "list"
    assert kernels["listy"]["location"].endswith("mixed.py:22:10")
    if target == "kokkos":
        assert kernels["total"]["cache"] == "lazy"            # no signature: compiled on first call
    assert (tmp_path / "out" / "mixed.py").is_file()


def test_json_flag_prints_the_report(kpc, mixed, tmp_path):
    result = kpc("build", mixed, "--target", "pykokkos", "-o", tmp_path, "--json")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert validate(data) == [] and data == _report(tmp_path, "mixed")


@pytest.mark.parametrize("target", ["kokkos", "pykokkos"])
def test_strict_fails_and_writes_nothing(kpc, mixed, tmp_path, target):
    result = kpc("build", mixed, "--target", target, "-o", tmp_path / "out", "--strict")
    assert result.returncode == 1
    assert "list" in result.stdout + result.stderr
    out = tmp_path / "out"
    assert not out.exists() or not list(out.iterdir())       # not the module, not the report


def test_strict_passes_when_everything_translates(kpc, tmp_path):
    result = kpc("build", CORPUS / "lennard_jones.py", "--target", "pykokkos", "-o", tmp_path, "--strict")
    assert result.returncode == 0, result.stderr
    assert "parallel_reduce" in result.stdout and "sum:energy" in result.stdout


def test_dump_ir_and_explain(kpc, tmp_path):
    lj = CORPUS / "lennard_jones.py"
    whole = kpc("build", lj, "--target", "pykokkos", "-o", tmp_path, "--dump-ir")
    assert whole.returncode == 0
    assert "after the pykokkos pipeline" in whole.stdout and "parallel_reduce(sum:energy)" in whole.stdout
    early = kpc("build", "--dump-ir", lj, "--target", "pykokkos", "-o", tmp_path)   # FILE after --dump-ir
    assert early.returncode == 0 and "parallel_reduce(sum:energy)" in early.stdout
    typed = kpc("build", lj, "--target", "pykokkos", "-o", tmp_path, "--dump-ir=infer-types")
    assert typed.returncode == 0 and "after infer-types" in typed.stdout
    assert "parallel_reduce" not in typed.stdout.split(" -> ")[0]                     # not yet parallelized
    explained = kpc("build", lj, "--target", "pykokkos", "-o", tmp_path, "--explain")
    assert explained.returncode == 0
    assert "@potential" in explained.stdout and "parallel_reduce (sum: energy) [Range]" in explained.stdout


def test_no_auto_parallel(kpc, mixed, tmp_path):
    result = kpc("build", mixed, "--target", "pykokkos", "-o", tmp_path, "--no-auto-parallel", "--explain")
    assert result.returncode == 0
    kernels = _kernels(_report(tmp_path, "mixed"))
    assert kernels["total"]["dispatch"] == "serial"             # a plain range loop stays serial
    assert kernels["scale"]["dispatch"] == "parallel_for"       # prange still runs in parallel
    assert "auto-parallelization disabled" in result.stdout


def test_check_pykokkos(kpc, tmp_path):
    result = kpc("build", CORPUS / "star.py", "--target", "pykokkos", "-o", tmp_path, "--check-pykokkos")
    assert result.returncode == 0, result.stdout
    assert "contract violation" not in result.stdout
    assert _report(tmp_path, "star")["violations"] == []


def test_pykokkos_cuda_space(kpc, tmp_path):
    """The PyKokkos Cuda output names pk.Cuda in its policies and passes CuPy arrays; it keeps the Cuda rules."""
    result = kpc("build", CORPUS / "star.py", "--target", "pykokkos", "--space", "cuda", "-o", tmp_path,
                 "--check-pykokkos")
    assert result.returncode == 0, result.stdout + result.stderr
    report = _report(tmp_path, "star")
    assert report["space"] == "cuda" and report["violations"] == []
    text = (tmp_path / "star.py").read_text()
    assert "pk.RangePolicy(pk.Cuda, " in text and "import cupy as cp" in text and "cp.ascontiguousarray" in text


def test_several_files_in_parallel(kpc, mixed, tmp_path):
    star = tmp_path / "star.py"
    shutil.copy(CORPUS / "star.py", star)
    result = kpc("build", mixed, star, "-j", "2", "-o", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert "[2/2]" in result.stderr                             # plain progress lines off a terminal
    assert {p.name for p in (tmp_path / "out").iterdir()} == {"mixed.py", "mixed.kpc.json", "star.py",
                                                              "star.kpc.json"}


def test_python_api_build(mixed, tmp_path):
    import kpc

    report = kpc.build(mixed, target="pykokkos", out=tmp_path)
    assert report.kernel("total").status == "translated" and report.kernel("listy").status == "numba"
    assert Path(report.output) == tmp_path / "mixed.py" and validate(report.to_dict()) == []


@pytest.mark.compile
def test_ahead_of_time_kokkos_build_and_cache(kpc, tmp_path):
    """One C++ module (sum2d for float64 C arrays); a second build is a cache hit."""
    args = ("build", CORPUS / "sum2d.py", "-o", tmp_path, "--signature", "sum2d(float64[:, ::1])")
    first = kpc(*args)
    assert first.returncode == 0, first.stderr
    assert _kernels(_report(tmp_path, "sum2d"))["sum2d"]["cache"] in ("hit", "miss")
    second = kpc(*args)
    assert second.returncode == 0, second.stderr
    kernel = _kernels(_report(tmp_path, "sum2d"))["sum2d"]
    assert kernel["cache"] == "hit" and kernel["signatures"] == ["sum2d(float64[:, ::1])"]
    assert kernel["dispatch"] == "parallel_reduce" and kernel["policy"] == "MDRange 2-D"
    check = "import sys, numpy as np; sys.path.insert(0, sys.argv[1]); import sum2d; " \
            "print(sum2d.sum2d(np.ones((30, 40))))"
    ran = subprocess.run([sys.executable, "-c", check, str(tmp_path)], capture_output=True, text=True)
    assert ran.returncode == 0 and float(ran.stdout) == 1200.0, ran.stderr


def test_compile_failure_is_reported_as_failed(monkeypatch, mixed, tmp_path, capsys):
    """When the C++ build fails, its translated kernels are 'failed', no module is written, exit 1."""
    import kpc.api
    from kpc.cli import main

    def broken_build(*args, **kwargs):
        raise RuntimeError("g++ exited with status 1: mixed.kokkos.cpp:12: error: 'x' was not declared")

    monkeypatch.setattr(kpc.api, "build", broken_build)
    out_dir = tmp_path / "out"
    assert main(["build", str(mixed), "-o", str(out_dir), "--signature", "total(float64[::1])"]) == 1
    out = capsys.readouterr().out
    assert "0 translated, 1 kept as Numba, 2 failed" in out and "build failed: RuntimeError: g++ exited" in out
    data = _report(out_dir, "mixed")
    assert data["error"].startswith("RuntimeError") and _kernels(data)["total"]["status"] == "failed"
    assert not (out_dir / "mixed.py").exists()


@pytest.mark.parametrize("target", ["kokkos", "pykokkos"])
def test_explain_without_signatures_decides_every_kernel(kpc, tmp_path, target):
    """``--explain`` of a file without signatures: a decision for every kernel, the guessed types
    said to be guesses, and a kernel whose first guess does not type shown under a second one."""
    result = kpc("build", CORPUS / "guessed_types.py", "--target", target, "-o", tmp_path, "--explain")
    assert result.returncode == 0, result.stderr
    explained = result.stdout.split("== decisions for")[1]
    blocks = {block.split(" ")[0]: block for block in explained.split("\n@")[1:]}
    assert set(blocks) == {"bin_counts", "strided_sum", "low_bits", "gather_sum"}
    assert "i in prange: parallel_for [Range]: prange; atomic updates of counts[b]" in blocks["bin_counts"]
    assert "types guessed" in blocks["bin_counts"] and "counts: f64[:]" in blocks["bin_counts"]
    assert "keys:" not in blocks["bin_counts"] and "nbins:" not in blocks["bin_counts"]  # settled: integers
    assert "types guessed" not in blocks["low_bits"]  # every type settled by the body
    assert "types guessed, each call compiles for its own: values: i64[" in blocks["gather_sum"]
    assert "float64 did not type" in blocks["gather_sum"] and "k in range" not in blocks["gather_sum"]
    assert "i in range" in blocks["gather_sum"]
    kernels = _kernels(_report(tmp_path, "guessed_types"))
    assert kernels["gather_sum"]["status"] == "lazy"    # typed at each call, on both targets
    assert {kernels[k]["status"] for k in ("bin_counts", "strided_sum", "low_bits")} == {"translated"}
