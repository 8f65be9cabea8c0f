"""``kpc ir``: text and JSON IR after any pass, signatures, one function, the pipeline, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kpc.cli import main
from kpc.ir.serialize import from_json
from kpc.ir.printer import format_module
from kpc.passes.manager import pipeline

from frontend_support import ROOT

LJ = os.path.join(ROOT, "tests", "frontend", "sources", "lennard_jones.py")


def run(capsys, *argv):
    status = main(["ir", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_default_is_typed_ir_after_infer_view_dims(capsys):
    status, out, err = run(capsys, LJ)
    assert status == 0 and err == ""
    assert "func @potential(cluster: f64[:, :]) -> f64" in out
    assert "call @distance(cluster[i, :], cluster[j, :])" in out
    assert "# assumed: cluster: f64[:, :]" in out


def test_after_parse_is_the_untyped_frontend_ir(capsys):
    status, out, _ = run(capsys, LJ, "--after", "parse")
    assert status == 0
    assert "func @potential(cluster: ?) -> ?" in out
    assert "call @distance(cluster[i], cluster[j])" in out


def test_signature_and_function(capsys):
    status, out, _ = run(capsys, LJ, "--signature", "potential(float32[:, ::1])", "--function", "distance")
    assert status == 0
    assert out.startswith("func @distance(atom1: f32[:] C, atom2: f32[:] C) -> f64")
    assert "func @potential" not in out


def test_repeated_signatures(capsys):
    path = os.path.join(ROOT, "tests", "frontend", "sources", "control_flow.py")
    status, out, _ = run(capsys, path, "--signature", "classify(f4)", "--signature", "collatz(int64)")
    assert status == 0
    assert "func @classify(x: f32) -> i64" in out and "func @collatz(n: i64) -> i64" in out


def test_json_round_trips_to_the_text(capsys):
    status, out, _ = run(capsys, LJ, "--format", "json")
    assert status == 0
    module = from_json(out)
    _, text, _ = run(capsys, LJ)
    assert format_module(module) == text
    status, out, _ = run(capsys, LJ, "--format", "json", "--function", "lj")
    assert [f["name"] for f in json.loads(out)["functions"]] == ["lj"]


def test_passes_prints_the_pipeline(capsys):
    for target in ("kokkos", "pykokkos"):
        status, out, _ = run(capsys, "--passes", "--target", target)
        assert status == 0
        assert [line.split()[0] for line in out.splitlines()] == pipeline(target)


def test_diagnostic_goes_to_stderr_with_exit_1(tmp_path, capsys):
    path = tmp_path / "bad.py"
    path.write_text("from numba import njit\n\n@njit\ndef f(n):\n    return [n]\n\n@njit\ndef g(x):\n    return x\n")
    status, out, err = run(capsys, str(path))
    assert status == 0, "a rejected kernel is listed, not an error"
    assert "rejected @f: unsupported construct 'list'" in out
    status, out, err = run(capsys, str(path), "--strict")
    assert status == 1 and out == ""
    assert err.startswith(f"{path}:5:12: error: unsupported construct 'list' in kernel 'f'")
    assert "    return [n]\n           ^~~" in err
    status, out, err = run(capsys, str(path), "--function", "f")
    assert status == 1 and "unsupported construct 'list'" in err


def test_type_error_exit_1(tmp_path, capsys):
    path = tmp_path / "types.py"
    path.write_text("from numba import njit\n\n@njit\ndef f(a):\n    return a[0, 0, 0]\n")
    status, _, err = run(capsys, str(path), "--signature", "f(f8[:])")
    assert status == 1
    assert "too many indices for f64[:]" in err and f"{path}:5:12: error:" in err


def test_missing_file_syntax_error_unknown_pass_unknown_function(tmp_path, capsys):
    status, _, err = run(capsys, str(tmp_path / "absent.py"))
    assert status == 1 and "no such file" in err
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n")
    status, _, err = run(capsys, str(broken))
    assert status == 1 and err.startswith(f"{broken}:1:7: error: syntax error")
    status, _, err = run(capsys, LJ, "--after", "no-such-pass")
    assert status == 1 and "no pass 'no-such-pass'" in err
    status, _, err = run(capsys, LJ, "--function", "nope")
    assert status == 1 and "no kernel 'nope'" in err
    status, _, err = run(capsys, LJ, "--signature", "nope(f8)")
    assert status == 1 and "'nope', which is not a kernel" in err
    status, _, err = run(capsys, LJ, "--signature", "potential(f8[::3])")
    assert status == 1 and "bad signature" in err


@pytest.mark.parametrize("argv, status", [([LJ], 0), ([LJ, "--signature", "potential(f8)"], 1)])
def test_console_entry_point_exit_status(argv, status):
    result = subprocess.run([sys.executable, "-m", "kpc.cli", "ir", *argv], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == status, result.stderr


def test_build_takes_decorator_options_from_module_constants(tmp_path, capsys):
    reports = {}
    for flag in (True, False):
        source = tmp_path / f"opts_{flag}.py"
        source.write_text(f"from numba import njit, prange\n\nRUN_PARALLEL = {flag}\nOPTS = dict(parallel=RUN_PARALLEL)\n"
                          "pjit = njit(**OPTS)\n\n@pjit\ndef scale(x, out):\n    for i in prange(x.shape[0]):\n"
                          "        out[i] = 2.0 * x[i]\n")
        status = main(["build", str(source), "-o", str(tmp_path / "out"), "--explain"])
        reports[flag] = capsys.readouterr().out
        assert status == 0
    assert "line 9, i in prange: parallel_for [Range]: prange;" in reports[True]
    # parallel=False: prange is range (Numba), parallelized only as kpc proves independent loops
    assert "line 9, i in prange: parallel_for [Range]: independent writes to out[i]" in reports[False]
