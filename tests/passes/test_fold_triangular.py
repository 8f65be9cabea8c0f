"""fold-triangular: which regions it pairs, and that every original iteration still runs once.

The results are checked on the PyKokkos output run by the contract interpreter (a
pure-Python model of upstream's rules) against Numba, for every trip count from 0 to 9
(even, odd, the middle work item that runs one iteration).
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from source_ir import load

from kpc.api import build_pykokkos
from kpc.ir import nodes as n
from kpc.passes.manager import PassContext, run_pipeline

sys.path.insert(0, str(Path(__file__).parent.parent / "backend" / "pykokkos"))
from contract_interpreter import ContractInterpreter  # noqa: E402

SOURCE = """
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def pairs(x):
    s = 0.0
    for i in prange(len(x) - 1):
        if x[i] < 0.0:
            continue
        for j in range(i + 1, len(x)):
            s += x[i] * x[j]
    return s


@njit(parallel=True)
def rows_from(a, out, k):
    for i in prange(k, a.shape[0]):
        t = 0
        for j in range(i):
            t += a[i, j]
        out[i] = t


@njit(parallel=True)
def waits(x, out):
    for i in prange(len(x)):
        v = x[i]
        while v > 1.0:
            v = v / 2.0
        for j in range(i):
            v += 1.0
        out[i] = v
"""


def _regions(function):
    return [node for node in n.walk(function) if isinstance(node, n.For) and node.parallel is not None]


def test_only_index_dependent_inner_trip_counts_are_paired():
    module = load(SOURCE, {"pairs": "(f8[:],)", "rows_from": "(i8[:, :], i8[:], i8)", "waits": "(f8[:], f8[:])"})
    run_pipeline(module, PassContext(target="pykokkos"))
    for name, folded in (("pairs", True), ("rows_from", True), ("waits", False)):
        (region,) = _regions(module.functions[name])
        assert ("paired" in region.parallel.reason) is folded, (name, region.parallel.reason)


def test_the_kokkos_target_keeps_its_loop_and_pairs_at_launch_on_host_spaces():
    """No fold on the Kokkos target: CUDA keeps the region (a team per i there), and host
    spaces pair iterations when they launch it (``ParallelInfo.paired``)."""
    module = load(SOURCE, {"pairs": "(f8[:],)", "waits": "(f8[:], f8[:])"})
    run_pipeline(module, PassContext(target="kokkos"))
    (region,) = _regions(module.functions["pairs"])
    assert region.var.id == "i" and region.parallel.schedule == "dynamic" and region.parallel.paired
    assert "paired in one work item under a static schedule" in region.parallel.reason
    (waits,) = _regions(module.functions["waits"])  # a while loop: stealing balances it, pairing would not
    assert waits.parallel.schedule == "dynamic" and not waits.parallel.paired


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fold")
    path = folder / "tri.py"
    path.write_text(textwrap.dedent(SOURCE))
    result = build_pykokkos(path, folder / "out", signatures=["pairs(float64[:])", "rows_from(int64[:, :], int64[:], int64)",
                                                             "waits(float64[:], float64[:])"])
    assert not result.kept_as_numba and not result.violations, result.summary()
    import importlib.util

    spec = importlib.util.spec_from_file_location("tri_numba", path)
    numba_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(numba_module)
    return ContractInterpreter().load(result.output, name="tri_pk"), numba_module


@pytest.mark.parametrize("size", range(10))
def test_every_iteration_runs_once(modules, size):
    ours, numba_module = modules
    x = np.linspace(-1.0, 3.0, size)
    assert ours.pairs(x) == pytest.approx(numba_module.pairs(x), rel=1e-12)
    a = np.arange(size * size, dtype=np.int64).reshape(size, size)
    for k in (0, 1, 3):
        got, want = np.full(size, -1), np.full(size, -1)
        ours.rows_from(a, got, k)
        numba_module.rows_from(a, want, k)
        np.testing.assert_array_equal(got, want)
