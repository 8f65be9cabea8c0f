"""Team regions (choose-teams): the TeamPolicy C++ the emitter writes, compiled against the real
Kokkos of the environment and run with teams of every thread (``KPC_TEAMS=always``), against
Numba; ``KPC_TEAMS=0`` keeps the flat regions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kpc.api import load_module
from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
from kpc.passes.manager import PassContext, run_pipeline

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
NESTED = CORPUS / "nested_prange.py"


VECTOR = CORPUS / "team_vector.py"


def cpp(signature: str, space: str = "openmp", teams: bool = True, path: Path = NESTED, vectors: bool = True) -> str:
    module = load_module(path, signatures=[signature])
    run_pipeline(module, PassContext(target="kokkos", teams=teams, vectors=vectors))
    name = signature.split("(")[0]
    return emit_translation_unit([Specialization(module, [name])], space=space, source=str(path)).source


def test_softmax_rows_is_a_team_region_with_team_reductions():
    text = cpp("softmax_rows(float64[:, ::1])")
    assert "Kokkos::TeamPolicy<kpc_exec_space>::member_type& kpc_team" in text
    assert text.count("Kokkos::parallel_reduce(Kokkos::TeamThreadRange(kpc_team") == 2
    assert text.count("Kokkos::parallel_for(Kokkos::TeamThreadRange(kpc_team") == 1
    assert "top = kpc::max<double>(top, kpc_team_result" in text
    # the flat region is still there for the serial path and for host launches that fill the threads
    assert "kpc::team_size<kpc_exec_space>(" in text and "Kokkos::RangePolicy<kpc_exec_space" in text


def test_statements_that_write_memory_run_once_per_team_behind_barriers():
    text = cpp("matvec_nested(float64[:, ::1], float64[::1])")
    assert "Kokkos::single(Kokkos::PerTeam(kpc_team), [&]() {" in text  # y[i] = acc
    assert "team_barrier" not in text  # the reduction reads A and x, not y
    centred = cpp("center_rows(float64[:, ::1])")
    # the mean is reduced from x, then x is written: every thread must have read its part first
    team = centred.split("kpc_team_body = KOKKOS_LAMBDA")[1]
    assert team.index("kpc::Reduce<center_rows_team") < team.index("kpc_team.team_barrier();") < team.index(
        "Kokkos::parallel_for(Kokkos::TeamThreadRange")
    reduce = cpp("row_norm_sum(float64[:, ::1])")
    # the outer reduction variable takes one contribution per team
    assert "Kokkos::parallel_reduce(\"row_norm_sum:51\", kpc_team_policy, kpc_team_body" in reduce
    assert "Kokkos::single(Kokkos::PerTeam(kpc_team), [&]() {" in reduce


def test_teams_off_and_mdrange_and_cuda():
    assert "TeamPolicy" not in cpp("softmax_rows(float64[:, ::1])", teams=False)
    assert "TeamPolicy" not in cpp("laplacian(float64[:, ::1], float64[:, ::1])")
    cuda = cpp("softmax_rows(float64[:, ::1])", space="cuda")
    assert "#define KPC_CUDA 1" in cuda and "kpc::team_policy<Kokkos::TeamPolicy<kpc_exec_space>>" in cuda


RUNNER = r'''
import json, sys
import numpy as np
from kpc.api import build
from kpc.check.runner import import_path
path, out = sys.argv[1], sys.argv[2]
signatures = ["softmax_rows(float64[:, ::1])", "softmax_rows(float32[:, :])", "matvec_nested(float64[:, ::1], float64[::1])",
              "matvec_nested(int64[:, ::1], int64[::1])", "row_norm_sum(float64[:, ::1])",
              "scaled_laplacian(float64[:, ::1], float64[::1], float64[:, ::1])", "center_rows(float64[:, ::1])",
              "row_ranges(int64[:, ::1])", "row_ranges(float64[:, ::1])", "upper_sum(float64[:, ::1])"]
module = import_path(build(path, out, signatures=signatures, strict=True).module_path, "teams_dropin")
numba = import_path(path, "teams_numba")
rng = np.random.default_rng(7)
errors = {}
for n, m in [(1, 1), (1, 700), (2, 3), (3, 257), (17, 100)]:
    x = rng.standard_normal((n, m))
    v = rng.standard_normal(m)
    xi = rng.integers(-50, 50, (n, m))
    vi = rng.integers(-5, 5, m)
    cases = [("softmax_rows", (x,)), ("softmax_rows", (x.astype(np.float32)[:, ::1],)),
             ("matvec_nested", (x, v)), ("matvec_nested", (xi, vi)), ("row_norm_sum", (x,)),
             ("row_ranges", (xi,)), ("row_ranges", (x,)), ("upper_sum", (x,))]
    for name, args in cases:
        got, want = getattr(module, name)(*args), getattr(numba, name)(*args)
        errors[f"{name}{[a.dtype.name for a in args]}{(n, m)}"] = float(np.max(np.abs(np.asarray(got) - want), initial=0))
    w = rng.standard_normal(n)
    ours, theirs = np.zeros((n, m)), np.zeros((n, m))
    module.scaled_laplacian(x, w, ours)
    numba.scaled_laplacian(x, w, theirs)
    errors[f"scaled_laplacian{(n, m)}"] = float(np.max(np.abs(ours - theirs), initial=0))
    ours, theirs = x.copy(), x.copy()
    module.center_rows(ours)
    numba.center_rows(theirs)
    errors[f"center_rows{(n, m)}"] = float(np.max(np.abs(ours - theirs), initial=0))
print(json.dumps(errors))
'''


@pytest.mark.parametrize("mode", ["always", ""])
def test_team_regions_compute_what_numba_computes(tmp_path, mode):
    """Teams of every thread on every launch (``always``), and the host choice (teams only for
    few rows), both on the parallel path (``KPC_SERIAL_THRESHOLD=0``)."""
    env = dict(os.environ, KPC_TEAMS=mode, KPC_SERIAL_THRESHOLD="0", OMP_NUM_THREADS="2")
    result = subprocess.run([sys.executable, "-c", RUNNER, str(NESTED), str(tmp_path / "out")], env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    errors = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(errors) == 5 * 10
    bad = {case: error for case, error in errors.items() if error > (1e-4 if "float32" in case else 1e-9)}
    assert not bad


def test_kpc_teams_0_is_part_of_the_lazy_index_key(tmp_path, monkeypatch):
    """A warm index entry compiled with teams is not reused by a process that asks for flat regions."""
    from kpc.runtime.dispatch import ModuleRuntime

    runtime = ModuleRuntime(str(NESTED), "openmp", {}, [], str(tmp_path))
    types = (("array", "float64", 2, "C"),)
    monkeypatch.delenv("KPC_TEAMS", raising=False)
    teams = runtime._index_key("softmax_rows", types)
    monkeypatch.setenv("KPC_TEAMS", "0")
    assert runtime._index_key("softmax_rows", types) != teams


def test_loops_inside_team_loops_run_on_vector_lanes_and_writes_on_one_lane():
    softmax = cpp("batched_softmax(float64[:, :, ::1], float64[::1])", path=VECTOR)
    team = softmax.split("kpc_team_body = KOKKOS_LAMBDA")[1]
    assert team.count("Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(kpc_team") == 2
    assert team.count("Kokkos::parallel_for(Kokkos::ThreadVectorRange(kpc_team") == 1
    # every lane takes the reduced max and sum (the next vector loops read them)
    assert "top = kpc::max<double>(top, kpc_team_result" in team and "s += kpc_team_result" in team
    assert "kpc::kVectorLength);" in team
    scaled = cpp("scale_rows(float64[:, :, ::1], float64[:, ::1])", path=VECTOR).split("kpc_team_body")[1]
    # the row's factor is stored by one lane; every lane reads it back after the lane barrier
    assert scaled.index("Kokkos::single(Kokkos::PerThread(kpc_team), [&]() {") < scaled.index("f(b, i) = ") < \
        scaled.index("double g = f(b, i) + base;") < scaled.index("Kokkos::ThreadVectorRange")
    # without lanes (KPC_TEAMS=novector): the same teams, serial column loops, one lane
    plain = cpp("batched_softmax(float64[:, :, ::1], float64[::1])", path=VECTOR, vectors=False)
    assert "Kokkos::TeamThreadRange" in plain and "ThreadVectorRange" not in plain and "PerThread" not in plain
    assert "kpc_team_size1, 1);" in plain
    cuda = cpp("batched_matvec(float64[:, :, ::1], float64[:, ::1], float64[::1])", path=VECTOR, space="cuda")
    assert "Kokkos::ThreadVectorRange" in cuda and "kpc::kVectorLength);" in cuda


VECTOR_RUNNER = r"""
import os, sys
from kpc.check.runner import case_signatures, check_file, import_path
from kpc.build_file import build
path, out = sys.argv[1], sys.argv[2]
report = build(path, target="kokkos", out=out, space="openmp", signatures=case_signatures(path), write_report=False)
assert report.ok(), report.format_table(color=False)
module = import_path(report.output, name="team_vector_dropin")
os.environ["KPC_TEAMS"] = "always"  # read by the generated code at its first Team launch
result = check_file(path, module)
print(result.summary())
sys.exit(0 if result.ok else 1)
"""


@pytest.mark.parametrize("build_mode", ["", "novector"])
def test_three_level_regions_compute_what_numba_computes(tmp_path, build_mode):
    """The corpus file of three-level kernels, built with vector lanes and without
    (``KPC_TEAMS=novector``), run as teams of every thread on the parallel path."""
    env = dict(os.environ, KPC_TEAMS=build_mode, KPC_SERIAL_THRESHOLD="0", OMP_NUM_THREADS="2")
    result = subprocess.run([sys.executable, "-c", VECTOR_RUNNER, str(VECTOR), str(tmp_path / "out")], env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "0 failed" in result.stdout
