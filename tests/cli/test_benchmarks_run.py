"""`benchmarks/run.py --quick` runs (on two entries here, to keep the compile count low); the
suite's entries name real corpus kernels and declared dtypes, and span 10^2 to 10^7 elements."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent


def test_suite_entries_are_valid():
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from suite import SUITE
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    from kpc.check.spec import load_cases

    names = {entry.name for entry in SUITE}
    assert {"sum2d", "sum3d", "lennard_jones", "star", "star2", "stream_triad", "reduce_sum", "stencil2d",
            "matvec", "matmul_into", "histogram", "softmax_rows", "jacobi_2d"} <= names
    for entry in SUITE:
        case = load_cases(entry.path).cases[entry.kernel]
        assert entry.dtype in case.dtypes
        assert all(set(sizes) == set(case.sizes[0]) for sizes in entry.sizes), entry.name
    lj = next(e for e in SUITE if e.name == "lennard_jones")
    assert {1000, 3000, 10000} <= {s["n"] for s in lj.sizes}
    triad = next(e for e in SUITE if e.name == "stream_triad")
    assert triad.bytes_per_call and triad.sizes[0]["n"] == 10**2 and triad.sizes[-1]["n"] == 10**7


@pytest.mark.compile
def test_quick_run(tmp_path):
    env = dict(os.environ, OMP_NUM_THREADS="2", NUMBA_NUM_THREADS="2")
    result = subprocess.run([sys.executable, str(REPO / "benchmarks" / "run.py"), "--quick", "--only",
                             "sum2d,stream_triad", "--out", str(tmp_path)], capture_output=True, text=True,
                            env=env, timeout=900)
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["suite"] == "quick" and {row["kernel"] for row in data["results"]} == {"sum2d", "stream_triad"}
    assert all("kokkos_GBps_best" in row for row in data["results"] if row["kernel"] == "stream_triad")
    assert (tmp_path / "results.md").is_file() and (tmp_path / "results.png").is_file()
