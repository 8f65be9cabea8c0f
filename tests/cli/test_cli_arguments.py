"""Every subcommand's --help lists every option; bad arguments exit 2; missing files,
syntax errors and unwritable output directories exit 1 with a clear message."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kpc.cli import build_parser

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def _kokkos_has_cuda() -> bool:
    try:
        from kpc.runtime.kokkos import find_kokkos

        return "Cuda" in find_kokkos().backends
    except RuntimeError:
        return False


_HAS_CUDA = _kokkos_has_cuda()

COMMANDS = ("build", "check", "bench", "ir", "cache", "doctor")


def _subparser(name):
    parser = build_parser()
    for action in parser._subparsers._group_actions:
        return action.choices[name]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_lists_every_option(kpc, command):
    result = kpc(command, "--help")
    assert result.returncode == 0
    for action in _subparser(command)._actions:
        for option in action.option_strings:
            assert option in result.stdout, f"kpc {command} --help does not mention {option}"


def test_top_level_help_lists_every_command(kpc):
    result = kpc("--help")
    assert result.returncode == 0
    for command in COMMANDS:
        assert command in result.stdout


@pytest.mark.parametrize("args", [
    [],                                                   # no command
    ["frobnicate"],                                       # unknown command
    ["build"],                                            # no FILE
    ["build", str(CORPUS / "sum2d.py"), "--target", "cuda"],
    ["build", str(CORPUS / "sum2d.py"), "--space", "hip"],
    ["build", str(CORPUS / "sum2d.py"), "-j", "zero"],
    ["build", str(CORPUS / "sum2d.py"), "-j", "0"],
    ["build", str(CORPUS / "sum2d.py"), "--space", "cuda"] if not _HAS_CUDA else ["build"],  # no CUDA Kokkos here
    ["build", str(CORPUS / "sum2d.py"), "--check-pykokkos"],  # needs --target pykokkos
    ["build", str(CORPUS / "sum2d.py"), "--target", "pykokkos", "--dump-ir=no-such-pass"],
    ["check"],
    ["check", str(CORPUS / "sum2d.py"), "--target", "numba"],
    ["bench"],
    ["bench", str(CORPUS / "sum2d.py"), "--repeats", "many"],
    ["bench", str(CORPUS / "sum2d.py"), "--repeats", "0"],
    ["cache", "shred"],
])
def test_usage_errors_exit_2(kpc, args):
    result = kpc(*args)
    assert result.returncode == 2, result.stderr
    assert "error" in result.stderr or "usage" in result.stdout + result.stderr


@pytest.mark.parametrize("command", ["build", "check", "bench", "ir"])
def test_missing_file_exits_1(kpc, tmp_path, command):
    missing = tmp_path / "nowhere.py"
    result = kpc(command, missing, cwd=tmp_path)
    assert result.returncode == 1
    assert "no such file" in result.stderr and "nowhere.py" in result.stderr
    assert not (tmp_path / "kpc_out" / "nowhere.py").exists()


SYNTAX_ERROR = "from numba import njit\n\n@njit\ndef f(a):\n    return a[0] +\n"


@pytest.mark.parametrize("target", ["kokkos", "pykokkos"])
def test_syntax_error_points_at_file_line_col(kpc, tmp_path, target):
    (tmp_path / "broken.py").write_text(SYNTAX_ERROR)
    result = kpc("build", "broken.py", "--target", target, "-o", "out", cwd=tmp_path)
    assert result.returncode == 1
    first = result.stderr.splitlines()[0]
    assert first.startswith("broken.py:5:") and "syntax" in first, result.stderr
    assert "return a[0] +" in result.stderr and "^" in result.stderr
    assert not (tmp_path / "out" / "broken.py").exists()
    assert not (tmp_path / "out" / "broken.kpc.json").exists()


def test_unwritable_output_dir(kpc, tmp_path):
    (tmp_path / "plain_file").write_text("not a directory")
    result = kpc("build", CORPUS / "sum2d.py", "--target", "pykokkos", "-o", tmp_path / "plain_file" / "out")
    assert result.returncode == 1
    assert "cannot write to output directory" in result.stderr and "plain_file" in result.stderr
    assert (tmp_path / "plain_file").read_text() == "not a directory"
    result = kpc("bench", CORPUS / "sum2d.py", "--out", tmp_path / "plain_file" / "bench")
    assert result.returncode == 1 and "cannot write to output directory" in result.stderr


def test_signature_for_no_kernel(kpc, tmp_path):
    result = kpc("build", CORPUS / "sum2d.py", CORPUS / "star.py", "--target", "pykokkos",
                 "--signature", "nothing(float64[:])", "-o", tmp_path)
    assert result.returncode == 1 and "names no kernel" in result.stderr
    assert not list(tmp_path.iterdir())


def test_check_without_cases(kpc, tmp_path):
    (tmp_path / "plain.py").write_text(textwrap.dedent("""
        from numba import njit

        @njit
        def f(a):
            return a[0]
    """))
    result = kpc("check", tmp_path / "plain.py")
    assert result.returncode == 1 and "KPC_CASES" in result.stderr


def test_bench_bad_sizes(kpc, tmp_path):
    result = kpc("bench", CORPUS / "sum2d.py", "--sizes", "n=lots", "--out", tmp_path)
    assert result.returncode == 1 and "bad size" in result.stderr
    result = kpc("bench", CORPUS / "sum2d.py", "--sizes", "n=10", "--out", tmp_path)
    assert result.returncode == 1 and "needs sizes for m" in result.stderr


def test_bench_device_arrays_need_the_cuda_space(kpc, tmp_path):
    result = kpc("bench", CORPUS / "sum2d.py", "--arrays", "cupy", "--out", tmp_path)
    assert result.returncode == 2 and "--arrays cupy needs --space cuda" in result.stderr
