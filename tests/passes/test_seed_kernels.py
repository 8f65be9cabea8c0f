"""The seed kernels through the whole pass pipelines: what the emitters receive for them."""

from pathlib import Path

import pytest

from kpc.frontend import parse_module
from kpc.ir import nodes as n
from kpc.ir.verifier import verify
from kpc.passes.explain import explain
from kpc.passes.manager import PassContext, run_pipeline

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def compiled(name: str, signatures: dict, target: str = "kokkos", auto_parallel: bool = True):
    path = CORPUS / f"{name}.py"
    module = parse_module(path.read_text(), str(path), signatures=signatures)
    ctx = PassContext(target=target, auto_parallel=auto_parallel, verify=True)
    run_pipeline(module, ctx, verifier=verify)
    return module, ctx


def loops(function: n.Function) -> list:
    return [s for s in n.walk(function) if isinstance(s, n.For)]


@pytest.fixture(scope="module")
def lennard_jones():
    return compiled("lennard_jones", {"potential": "(f8[:, ::1],)"})


def test_lennard_jones_potential_is_a_dynamic_sum_reduction_over_i(lennard_jones):
    module, ctx = lennard_jones
    outer, inner = loops(module.functions["potential"])
    info = outer.parallel
    # a team per i, the triangular j loop across its threads (choose-teams); host spaces launch
    # the flat dynamic Range when the iterations fill the threads
    assert (outer.var.id, outer.kind, info.pattern, info.policy, info.depth) == ("i", "prange", "reduce", "Team", 1)
    # the j loop sums into a local of each i, added to energy after it (local-accumulators)
    assert inner.team is not None and [(r.var, r.op) for r in inner.team.reductions] == [("energy_inner", "sum")]
    assert [(r.var, r.op, str(r.type)) for r in info.reductions] == [("energy", "sum", "f64")]
    assert info.schedule == "dynamic" and info.paired
    assert info.captures == ["cluster"] and info.privates == ["e", "energy_inner", "r"]
    # the guard weighs the iterations by the widest trip count of the triangular j loop (at i = 0)
    assert info.serial_below is not None and [str(e) for e in info.serial_work[0][0][:2]] == ["1", "len(cluster)"]
    assert inner.parallel is None and inner.decision == ""
    assert not ctx.warnings


def test_lennard_jones_helpers_are_device_functions_without_powers(lennard_jones):
    module, _ = lennard_jones
    assert module.functions["distance"].role == "device" and module.functions["lj"].role == "device"
    assert module.functions["potential"].role == "entry"
    everything = list(n.walk([f for f in module.functions.values()]))
    assert not [e for e in everything if isinstance(e, n.BinOp) and e.op == "**"]
    assert [e.func for e in everything if isinstance(e, n.Call) and e.kind == "math"] == ["math.sqrt"]


def test_lennard_jones_report(lennard_jones):
    report = explain(lennard_jones[0])
    assert "i in prange: parallel_reduce (sum: energy) [Team]: prange; sum reduction of energy; " \
           "serial below 898 iterations x inner trips (range(1, len(cluster))) (~73 operations each; a triangle: half " \
           "its widest trips on average); " \
           "dynamic schedule: inner trip count depends on i; on host spaces iterations t and n - 1 - t paired in one " \
           "work item under a static schedule instead (no work stealing); TeamPolicy: a team per iteration of i, the loop over j " \
           "(line 33) across its threads" in report
    assert "j in range: team_reduce (sum: energy_inner) [TeamThreadRange]: independent iterations; sum reduction of " \
           "energy_inner" in report


def test_lennard_jones_for_pykokkos_passes_rows_as_named_subviews():
    module, _ = compiled("lennard_jones", {"potential": "(f8[:, ::1],)"}, target="pykokkos")
    potential = module.functions["potential"]
    outer, pair, inner = loops(potential)  # fold-triangular: a work item runs rows t and n - 1 - t
    assert str(pair.body[0].target) == "i"
    row_i, row_j = pair.body[1], inner.body[0]  # row i once per i, row j once per j
    assert [str(s.value) for s in (row_i, row_j)] == ["cluster[i, :]", "cluster[j, :]"]
    call = inner.body[1].value
    assert [str(a) for a in call.args] == [row_i.target.id, row_j.target.id]
    assert {row_i.target.id, row_j.target.id} <= set(outer.parallel.privates)


def test_sum2d_is_a_parallel_reduction_and_the_report_says_so():
    module, _ = compiled("sum2d", {"sum2d": "(f8[:, :],)"})
    outer, inner = loops(module.functions["sum2d"])
    info = outer.parallel
    assert (info.pattern, info.policy, info.depth) == ("reduce", "MDRange", 2)
    assert [(r.var, r.op) for r in info.reductions] == [("result", "sum")]
    assert info.captures == ["arr"] and info.privates == []
    report = explain(module)
    assert "i in range: parallel_reduce (sum: result) [MDRange 2-D]: no writes to shared arrays; " \
           "sum reduction of result" in report
    assert "j in range: serial: collapsed into the MDRange region of line 14" in report


def test_sum2d_stays_serial_without_auto_parallel():
    module, _ = compiled("sum2d", {"sum2d": "(f8[:, :],)"}, auto_parallel=False)
    assert all(loop.parallel is None for loop in loops(module.functions["sum2d"]))
    assert "i in range: serial: auto-parallelization disabled (--no-auto-parallel)" in explain(module)


def test_sum2d_for_pykokkos_is_a_flat_range():
    module, _ = compiled("sum2d", {"sum2d": "(f8[:, :],)"}, target="pykokkos")
    (region,) = loops(module.functions["sum2d"])
    assert (region.parallel.policy, region.parallel.depth, region.parallel.pattern) == ("Range", 1, "reduce")
    assert [f"{s.target.id} = {s.value}" for s in region.body[:2]] == ["i = t // n_j", "j = t % n_j"]
    assert region.parallel.captures == ["arr", "n_j"]
    assert region.parallel.privates == ["i", "j"]
