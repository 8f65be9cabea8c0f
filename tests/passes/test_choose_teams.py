"""choose-teams: which regions become Team regions, which inner loops run across a team, and
the reasons the report gives when they do not."""

import pytest
from source_ir import load

from kpc.ir import nodes as n
from kpc.passes.explain import explain
from kpc.passes.manager import PassContext, pipeline, run_pipeline

SIGNATURE = "(f8[:, ::1], f8[::1])"


def decided(source: str, teams: bool = True, auto_parallel: bool = True, signature: str = SIGNATURE,
            vectors: bool = True):
    module = load(source, {"k": signature})
    names = pipeline("kokkos")
    run_pipeline(module, PassContext(teams=teams, auto_parallel=auto_parallel, vectors=vectors),
                 names[names.index("lower-numpy"):])
    loops = [node for node in n.walk(module.functions["k"]) if isinstance(node, n.For)]
    return loops, explain(module)


def test_inner_reduction_and_inner_prange_run_across_the_team():
    loops, report = decided("""
        @njit(parallel=True)
        def k(a, y):
            for i in prange(a.shape[0]):
                s = 0.0
                for j in range(a.shape[1]):
                    s += a[i, j]
                for j in prange(a.shape[1]):
                    a[i, j] -= s
                y[i] = s
        """)
    outer, reduce, update = loops
    assert outer.parallel.policy == "Team" and outer.parallel.pattern == "for"
    assert (reduce.team.pattern, [(r.var, r.op) for r in reduce.team.reductions]) == ("reduce", [("s", "sum")])
    assert update.team.pattern == "for" and update.team.reductions == []
    assert "line 6, j in range: team_reduce (sum: s) [TeamThreadRange]: independent iterations" in report


@pytest.mark.parametrize("body, why", [
    ("""
                for j in range(3):
                    y[i] += a[i, j]
     """, "constant trip count 3 is below 32"),
    ("""
                s = 0.0
                for j in range(a.shape[1]):
                    s += a[i, j]
                    a[i, j] = s
     """, "prefix sum of s"),
    ("""
                for j in prange(1, a.shape[1]):
                    a[i, j] = a[i, j - 1] + 1.0
     """, "a[i, j] written, a[i, j - 1] read"),
    ("""
                for j in range(a.shape[1]):
                    if a[i, j] < 0.0:
                        break
                    y[i] += 1.0
     """, "early exit: break"),
    ("""
                for j in range(a.shape[1]):
                    y[i] += np.random.random()
     """, "allocates arrays or draws random numbers"),
])
def test_inner_loops_that_stay_serial_say_why(body, why):
    loops, report = decided(f"""
        @njit(parallel=True)
        def k(a, y):
            for i in prange(a.shape[0]):{body}""")
    outer = loops[0]
    assert outer.parallel.policy == "Range"
    assert all(loop.team is None for loop in loops)
    assert f"not across a team: {why}" in report


def test_regions_that_stay_flat_say_why():
    source = """
        @njit(parallel=True)
        def k(a, y):
            for i in prange(a.shape[0]):
                t = np.empty(a.shape[1])
                s = 0.0
                for j in range(a.shape[1]):
                    s += a[i, j]
                for j in range(a.shape[1]):
                    t[j] = a[i, j] / s
                y[i] = t[0]
        """
    loops, report = decided(source)
    assert loops[0].parallel.policy == "Range" and "no TeamPolicy: allocation np.empty() in the body" in report
    loops, report = decided(source.replace("t = np.empty(a.shape[1])", "t = a[i]"), teams=False)
    assert loops[0].parallel.policy == "Range" and "no TeamPolicy: disabled (KPC_TEAMS=0)" in report
    # a value computed once per team (a store's side) read later: the other threads would not have it
    loops, report = decided("""
        @njit(parallel=True)
        def k(a, y):
            for i in prange(a.shape[0]):
                c = 0.0
                if a[i, 0] > 0.0:
                    y[i] = 1.0
                    c = 2.0
                for j in range(a.shape[1]):
                    a[i, j] *= c
        """)
    assert loops[0].parallel.policy == "Range"
    assert "no TeamPolicy: c set by a statement that runs once per team and read after it" in report


def test_a_perfect_rectangular_nest_stays_an_mdrange_and_plain_ranges_need_auto_parallel():
    loops, report = decided("""
        @njit(parallel=True)
        def k(a, y):
            for i in prange(a.shape[0]):
                for j in prange(a.shape[1]):
                    a[i, j] = 2.0 * a[i, j]
        """)
    assert loops[0].parallel.policy == "MDRange"
    assert "MDRange kept over TeamPolicy (a rectangular perfect nest" in report
    loops, report = decided("""
        @njit(parallel=True)
        def k(a, y):
            for i in prange(a.shape[0]):
                s = 0.0
                for j in range(a.shape[1]):
                    s += a[i, j]
                y[i] = s
        """, auto_parallel=False)
    assert loops[0].parallel.policy == "Range" and "not across a team: auto-parallelization disabled" in report


BATCHED = "(f8[:, :, ::1], f8[:, ::1])"


def batched(rows: str, vectors: bool = True):
    """Decisions for a kernel whose batches read a value, then run ``rows`` (a loop over i)."""
    return decided(f"""
        @njit(parallel=True)
        def k(a, y):
            for b in prange(a.shape[0]):
                c = y[b, 0]
                for i in prange(a.shape[1]):{rows}""", signature=BATCHED, vectors=vectors)


def test_loops_inside_team_loops_run_across_vector_lanes():
    loops, report = batched("""
                    r = 0.0
                    for j in prange(a.shape[2]):
                        r += a[b, i, j] * a[b, i, j]
                    for j in prange(a.shape[2]):
                        a[b, i, j] *= c
                    y[b, i] = r
        """)
    outer, rows, norm, scale = loops
    assert outer.parallel.policy == "Team" and rows.team.policy == "TeamThreadRange"
    assert (norm.team.policy, norm.team.pattern, [(r.var, r.op) for r in norm.team.reductions]) == (
        "ThreadVectorRange", "reduce", [("r", "sum")])
    assert (scale.team.policy, scale.team.pattern) == ("ThreadVectorRange", "for")
    assert "the loops over j (lines 8, 10) across each thread's vector lanes" in report
    assert "line 8, j in prange: vector_reduce (sum: r) [ThreadVectorRange]: prange; sum reduction of r" in report


@pytest.mark.parametrize("body, why", [
    ("""
                    if a[b, i, 0] > 0.0:
                        y[b, i] = 1.0
                        g = 2.0
                    else:
                        g = 1.0
                    for j in prange(a.shape[2]):
                        a[b, i, j] *= g
     """, "g set by a statement that runs once per thread and read after it"),
    ("""
                    if a[b, i, 0] > 0.0:
                        continue
                    for j in prange(a.shape[2]):
                        a[b, i, j] *= 2.0
     """, "continue/break in the body of the loop over i"),
])
def test_team_loops_whose_bodies_cannot_run_on_lanes_keep_their_loops_serial(body, why):
    loops, report = batched(body)
    outer, rows = loops[:2]
    assert outer.parallel.policy == "Team" and rows.team.policy == "TeamThreadRange"
    assert all(loop.team is None for loop in loops[2:])
    assert f"no ThreadVectorRange: {why}" in report and f"not across vector lanes: {why}" in report


def test_kpc_teams_novector_keeps_teams_without_lanes():
    loops, report = batched("""
                    for j in prange(a.shape[2]):
                        a[b, i, j] *= c
        """, vectors=False)
    assert loops[0].parallel.policy == "Team" and loops[1].team is not None and loops[2].team is None
    assert "no ThreadVectorRange: disabled (KPC_TEAMS=novector)" in report
