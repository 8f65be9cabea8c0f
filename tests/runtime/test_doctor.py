"""`kpc doctor` and `kpc --version`, run as a user runs them: a subprocess."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kpc import __version__
from kpc.runtime.kokkos import find_kokkos, known_limits
from kpc.runtime.toolchain import toolchain_for


def run_kpc(*arguments, **environment):
    """Run the installed `kpc` console script (or `python -m kpc.cli`) and capture it."""
    script = Path(sys.executable).parent / "kpc"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "kpc.cli"]
    env = dict(os.environ, **environment)
    return subprocess.run(
        command + list(arguments), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )


def test_version():
    result = run_kpc("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"kpc {__version__}"


def test_doctor_reports_the_kokkos_found_and_the_compiler(tmp_path):
    install = find_kokkos()
    result = run_kpc("doctor", KPC_CACHE_DIR=str(tmp_path))
    assert result.returncode == 0, result.stdout
    report = result.stdout
    assert f"Kokkos      {install.version} at {install.root}" in report
    assert f"backends    {', '.join(install.backends)}" in report
    assert f"found via   {install.source_of_discovery}" in report
    assert f"Cache dir   {tmp_path}" in report
    assert "Compiler    " in report and "-fopenmp" in report
    assert "numba       " in report and "numpy       " in report


def test_bootstrapped_kokkos_is_3_4_01_with_openmp_and_serial(tmp_path):
    """scripts/bootstrap.sh provisions this exact build through pykokkos-base."""
    install = find_kokkos()
    if install.source_of_discovery != "Python environment (sys.prefix)":
        pytest.skip(f"Kokkos comes from {install.source_of_discovery}, not from the bootstrap")
    report = run_kpc("doctor", KPC_CACHE_DIR=str(tmp_path)).stdout
    assert "Kokkos      3.4.01" in report
    assert "backends    OpenMP, Serial" in report
    assert "Limits      Kokkos 3.4.01 (OpenMP, Serial): GCC >= 13 builds it only with the bootstrap's patch" in report


def test_doctor_reports_the_cxx_standard_and_the_known_limits(tmp_path):
    install = find_kokkos()
    report = run_kpc("doctor", KPC_CACHE_DIR=str(tmp_path)).stdout
    toolchain = toolchain_for(install, cache_dir=tmp_path)
    limits = known_limits(install, toolchain.compiler_id, toolchain.compiler_version)
    assert f"C++         {install.cxx_standard or 'unknown'}" in report
    assert f"Limits      {(limits or [install.summary() + ': none known to kpc'])[0]}" in report
    for limit in limits[1:]:
        assert f"            {limit}" in report


def test_doctor_with_a_bad_kokkos_root_fails_and_names_the_folder(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_kpc("doctor", KOKKOS_ROOT=str(empty), KPC_CACHE_DIR=str(tmp_path))
    assert result.returncode == 1
    assert f"KOKKOS_ROOT is set to {empty}" in result.stdout
    assert "scripts/bootstrap.sh" in result.stdout
