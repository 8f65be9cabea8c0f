"""Run the inner parallel loops and inner reductions of a region across the threads of a team (Kokkos TeamPolicy)."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.queries import statements, stmt_defs, stmt_uses, target_names
from kpc.ir.types import UNKNOWN

from .array_accesses import ArrayScope, call_effects
from .dependence import analyze_nest
from .liveness import live_out_of_loops
from .manager import Pass, register
from .parallelize import constant_trip_count, unit_step

# An inner loop whose trip count is a constant below this stays a serial loop in each
# iteration: a team would split a handful of iterations and pay a barrier for it.
MIN_TEAM_TRIP = 32


def runs_once(stmt, combined) -> bool:
    """Whether a top-level statement of a Team region's body runs on one thread of the team.

    Statements that write memory (element stores, calls of other kernels) or update a
    variable the region combines across iterations run once per team
    (``Kokkos::single(PerTeam)``); the others compute the same private values on every
    thread of the team, which then all know them.
    """
    for s in statements([stmt]):
        if isinstance(s, (n.Assign, n.AugAssign)) and (
                isinstance(s.target, n.Index) or set(target_names(s.target)) & set(combined)):
            return True
    return any(isinstance(node, n.Call) and node.kind == "kernel" for node in n.walk(stmt))


def _top_level_jumps(body) -> list:
    """``continue``/``break`` of the region's own loop (not of loops nested in it)."""
    found = []
    for stmt in body:
        if isinstance(stmt, (n.Break, n.Continue)):
            found.append(stmt)
        elif isinstance(stmt, n.If):
            found += _top_level_jumps(stmt.body) + _top_level_jumps(stmt.orelse)
    return found


@register
class ChooseTeams(Pass):
    """Give ``Range`` regions whose body runs long inner loops a ``Team`` policy (C++ target).

    One team runs each iteration of the region (the league is the outer loop); a loop
    at the top of the body runs across the team's threads (``For.team``, a
    ``TeamThreadRange``) when the dependence test proves its iterations independent (a
    ``prange``, or a ``range`` with auto-parallelization on; Numba runs an inner
    ``prange`` serially, so one that may race stays serial), its only carried values
    sum/prod/min/max reductions (team reductions), no exits, atomics, allocations,
    random draws or other side effects, unit step, and a trip count that is not a
    constant below ``MIN_TEAM_TRIP``. The other statements of the body either compute private scalars
    (every thread of the team computes them) or write memory / update the region's
    reduction variables (they run once per team, ``Kokkos::single``); a region where a
    value set by such a statement is read later stays flat, as do regions with
    ``continue``, allocations, atomics or side effects in the body. Perfectly nested
    rectangular loops were collapsed into an MDRange by ``parallelize`` and stay so (the
    MDRange tiles both dimensions with no barrier); scans stay flat. On host spaces the
    generated code still launches the flat region when the iterations alone fill the
    threads (``kpc::team_size``). ``KPC_TEAMS=0`` (``PassContext.teams``) turns the pass off.

    One level deeper, a loop at the top of a team loop's body runs across the vector lanes of
    the thread (``For.team`` with policy ``ThreadVectorRange``) when it passes the same tests;
    the team loop's other statements then run on every lane, except those that write memory,
    which run on one (``Kokkos::single(PerThread)``): a value they set must not be read after
    them, and the team loop's body may not ``continue``/``break`` (``thread_blocker``). Such a
    region asks CUDA for vector lanes; host spaces run one lane. ``KPC_TEAMS=novector``
    (``PassContext.vectors``) keeps the teams and the inner loops serial.

    Before::

        func @softmax_rows(x: f64[:, :], out: f64[:, :]) -> none   role=entry parallel
          parallel_for Range i: i64 in prange(0, x.shape[0]):
            m: f64 = x[i, 0]
            for j: i64 in range(0, x.shape[1]):
              m = max(m, x[i, j])
            s: f64 = 0.0
            for j: i64 in prange(0, x.shape[1]):
              out[i, j] = np.exp(x[i, j] - m)
              s += out[i, j]
            for j: i64 in prange(0, x.shape[1]):
              out[i, j] = out[i, j] / s

    After::

        func @softmax_rows(x: f64[:, :], out: f64[:, :]) -> none   role=entry parallel
          parallel_for Team i: i64 in prange(0, x.shape[0]):
            m: f64 = x[i, 0]
            team_reduce(max:m) TeamThreadRange j: i64 in range(0, x.shape[1]):
              m = max(m, x[i, j])
            s: f64 = 0.0
            team_reduce(sum:s) TeamThreadRange j: i64 in prange(0, x.shape[1]):
              out[i, j] = np.exp(x[i, j] - m)
              s += out[i, j]
            team_for TeamThreadRange j: i64 in prange(0, x.shape[1]):
              out[i, j] = out[i, j] / s

    After (report)::

        @softmax_rows (role entry)
          line 4, i in prange: parallel_for [Team]: prange; TeamPolicy: a team per iteration of i, the loops over j (lines 6, 9, 12) across its threads
            line 6, j in range: team_reduce (max: m) [TeamThreadRange]: independent iterations; max reduction of m
            line 9, j in prange: team_reduce (sum: s) [TeamThreadRange]: prange; sum reduction of s
            line 12, j in prange: team_for [TeamThreadRange]: prange
    """

    name = "choose-teams"
    transforms = False

    def apply(self, ctx, module) -> None:
        effects = None
        for function in module.functions.values():
            regions = [loop for loop in n.walk(function) if isinstance(loop, n.For) and loop.parallel is not None]
            if not regions:
                continue
            effects = effects or call_effects(module)
            chooser = _TeamChooser(ctx, function, effects)
            for loop in regions:
                chooser.region(loop)


def _set_once_and_read(body, nested: set, combined, read_anyway: set) -> str:
    """The names (joined) that a statement of ``body`` running once (``runs_once``; loops in
    ``nested`` are shared out instead) sets and a later statement reads, or that are in
    ``read_anyway``; the variables ``combined`` across iterations are not counted."""
    for k, stmt in enumerate(body):
        if id(stmt) in nested or not runs_once(stmt, combined):
            continue
        later = set(read_anyway)
        for after in statements(body[k + 1:]):
            later |= stmt_uses(after)
        shared = sorted(({name for s in statements([stmt]) for name in stmt_defs(s)} - set(combined)) & later)
        if shared:
            return ", ".join(shared)
    return ""


def _loops(chosen: list) -> str:
    """``the loops over j, k (lines 6, 9)`` for the report."""
    names = ", ".join(sorted({stmt.var.id for stmt, _ in chosen}))
    lines = ", ".join(str(stmt.loc.line) for stmt, _ in chosen)
    several = len(chosen) > 1
    return f"the loop{'s' if several else ''} over {names} (line{'s' if several else ''} {lines})"


class _TeamChooser:
    """Decides the regions of one function."""

    def __init__(self, ctx, function: n.Function, effects):
        self.ctx = ctx
        self.function = function
        self.effects = effects
        self.scope = ArrayScope(function)
        self.live = live_out_of_loops(function)

    def region(self, loop: n.For) -> None:
        info = loop.parallel
        if info.policy == "MDRange":
            info.reason += "; MDRange kept over TeamPolicy (a rectangular perfect nest: every dimension tiled, no barriers)"
        if info.policy != "Range" or info.depth != 1 or info.pattern not in ("for", "reduce"):
            return
        chosen = []
        for stmt in loop.body:
            if isinstance(stmt, n.For):
                team = self.inner(stmt)
                if isinstance(team, str):
                    stmt.decision += f"; not across a team: {team}"
                else:
                    chosen.append((stmt, team))
        if not chosen:
            return
        blocker = self.body_blocker(loop, chosen)
        if blocker is None and not self.ctx.teams:
            blocker = "disabled (KPC_TEAMS=0)"
        if blocker is not None:
            info.reason += f"; no TeamPolicy: {blocker}"
            return
        info.policy = "Team"
        vectors = self.vectors(chosen)
        for stmt, team in chosen + vectors:
            stmt.team = team
            stmt.decision = ""
        info.reason += f"; TeamPolicy: a team per iteration of {loop.var.id}, {_loops(chosen)} across its threads"
        if vectors:
            info.reason += f", {_loops(vectors)} across each thread's vector lanes"

    def vectors(self, chosen: list) -> list:
        """The loops at the top of the team loops' bodies that run across the vector lanes of a
        thread (``ThreadVectorRange``), as ``(loop, annotation)``; [] when a team loop's body
        cannot run on lanes (the reason goes to its annotation)."""
        found = []
        for team_loop, _ in chosen:
            for stmt in team_loop.body:
                if isinstance(stmt, n.For):
                    vector = self.inner(stmt, "ThreadVectorRange")
                    if isinstance(vector, str):
                        stmt.decision += f"; not across vector lanes: {vector}"
                    else:
                        found.append((stmt, vector))
        if not found:
            return []
        vector_loops = {id(stmt) for stmt, _ in found}
        for team_loop, team in chosen:
            blocker = self.thread_blocker(team_loop, team, vector_loops)
            if blocker is None and not self.ctx.vectors:
                blocker = "disabled (KPC_TEAMS=novector)"
            if blocker is not None:
                team.reason += f"; no ThreadVectorRange: {blocker}"
                for stmt, _ in found:
                    stmt.decision += f"; not across vector lanes: {blocker} (line {team_loop.loc.line})"
                return []
        return found

    def inner(self, loop: n.For, policy: str = "TeamThreadRange"):
        """The ``TeamThreadRange`` (or ``ThreadVectorRange``) annotation of an inner loop, or why
        it stays serial."""
        prange = loop.kind == "prange" and bool(self.function.options.get("parallel"))
        if not prange and not self.ctx.auto_parallel:
            return "auto-parallelization disabled"
        if not unit_step(loop):
            return "step is not 1"
        trip = constant_trip_count(loop)
        if trip is not None and trip < MIN_TEAM_TRIP:
            return f"constant trip count {trip} is below {MIN_TEAM_TRIP}"
        body_nodes = list(n.walk(loop.body))
        if any(isinstance(node, n.Call) and node.kind in ("numpy", "random") for node in body_nodes):
            return "allocates arrays or draws random numbers"
        facts = analyze_nest(self.function, [loop], self.live, self.effects, self.scope)
        blockers = facts.blockers()
        if blockers:
            return blockers[0]
        if facts.scan is not None:
            return f"prefix sum of {facts.scan.var}"
        if facts.atomics:
            return f"atomic updates of {', '.join(facts.atomic_texts)}"
        reductions = [n.ReductionSpec(c.var, c.op, self.function.locals.get(c.var, UNKNOWN))
                      for c in facts.reductions]
        reason = ["prange" if prange else "independent iterations"]
        reason += [f"{r.op} reduction of {r.var}" for r in reductions]
        return n.ParallelInfo(pattern="reduce" if reductions else "for", policy=policy,
                              reductions=reductions, reason="; ".join(reason), captures=facts.captures,
                              privates=facts.privates)

    def thread_blocker(self, team_loop: n.For, team, vector_loops: set):
        """Why the body of a team loop cannot run on the vector lanes of a thread (None when it
        can): every lane runs its statements, the vector loops split across the lanes, and the
        statements that write memory run on one lane (``Kokkos::single(PerThread)``), so no
        value they set may be read after them or be the team loop's reduction variable."""
        if _top_level_jumps(team_loop.body):
            return f"continue/break in the body of the loop over {team_loop.var.id}"
        shared = _set_once_and_read(team_loop.body, vector_loops, (), {r.var for r in team.reductions})
        return f"{shared} set by a statement that runs once per thread and read after it" if shared else None

    def body_blocker(self, loop: n.For, chosen: list):
        """Why the region cannot run as teams (None when it can)."""
        info = loop.parallel
        combined = {r.var for r in info.reductions}
        team_loops = {id(stmt) for stmt, _ in chosen}
        for node in n.walk(loop.body):
            if isinstance(node, n.Call) and node.kind == "numpy":
                return f"allocation {node.func}() in the body"
            effect = self.effects.side_effect(node)
            if effect:
                return effect
            if isinstance(node, n.AugAssign) and node.atomic:
                return "atomic updates in the body"
        if _top_level_jumps(loop.body):
            return "continue/break in the body"
        shared = _set_once_and_read(loop.body, team_loops, combined, set())
        return f"{shared} set by a statement that runs once per team and read after it" if shared else None
