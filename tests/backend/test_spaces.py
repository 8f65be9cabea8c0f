"""Execution spaces: a space the Kokkos install was not built with is a clear error before
anything is built (cuda here: this Kokkos has OpenMP and Serial only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kpc.api import build, check_space
from kpc.runtime.kokkos import find_kokkos

SUM2D = Path(__file__).resolve().parent.parent / "corpus" / "sum2d.py"


def test_host_spaces_of_the_install_are_accepted():
    backends = find_kokkos().backends
    hosts = [space for space, backend in (("openmp", "OpenMP"), ("serial", "Serial")) if backend in backends]
    assert hosts, f"this Kokkos has neither OpenMP nor Serial: {backends}"
    for space in hosts:
        assert check_space(space).backends == backends


def test_space_missing_from_the_install_is_refused_with_the_reason(tmp_path):
    if "Cuda" in find_kokkos().backends:
        pytest.skip("this Kokkos has CUDA")
    with pytest.raises(RuntimeError, match="'cuda' needs a Kokkos built with Cuda"):
        build(SUM2D, tmp_path, space="cuda")
    assert not (tmp_path / "sum2d.py").exists()


def test_unknown_space_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="unknown execution space 'gpu'"):
        build(SUM2D, tmp_path, space="gpu")
