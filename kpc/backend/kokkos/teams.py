"""C++ of a ``Team`` region (``choose-teams``): one team per iteration, inner loops across its threads.

The region's body becomes the body of a ``TeamPolicy`` lambda. Every thread of the team
runs the statements that compute private scalars (they all get the same values); the
statements that write memory or update the region's reduction variables run once per
team (``Kokkos::single(Kokkos::PerTeam(...))``); loops marked ``For.team`` run across the
team's threads (``Kokkos::TeamThreadRange``), reductions as team reductions whose result
every thread receives. A barrier separates statements where one of them writes memory.

A region whose team loops hold loops marked ``ThreadVectorRange`` runs one level deeper:
those loops split across the vector lanes of the thread (``Kokkos::ThreadVectorRange``,
reductions broadcast to every lane), every lane runs the other statements of the team loops'
bodies, and the statements that write memory run on one lane
(``Kokkos::single(Kokkos::PerThread(...))``). On CUDA the policy then asks for
``kpc::kVectorLength`` lanes; host spaces have one.

The flat lambda of the region is still emitted: it runs the serial path of the cost guard,
and the parallel path on host spaces when the iterations alone fill the threads
(``kpc::team_size`` returns 0).
"""

from __future__ import annotations

from dataclasses import dataclass

from kpc.ir import nodes as n
from kpc.ir.types import INT64, ScalarType
from kpc.ir.queries import statements
from kpc.passes.aliasing import view_roots
from kpc.passes.choose_teams import runs_once

from .cxx import value_type


ANY = "*"  # every array (what a kernel call may touch)


@dataclass
class TeamModel:
    """What the region template prints for the team launch of a region."""

    policy: str  # the TeamPolicy type
    league: str  # the number of teams (the region's trip count)
    lambda_params: str
    prologue: list
    body: list
    vector: str  # the vector length the policy asks for


def team_model(emitter, loop, info, begin: str, end: str, index: str, prologue: list, acc_type: str,
               region_body) -> TeamModel:
    """The team launch of ``loop``; ``index`` is the flat lambda's index variable (the team's
    iteration is ``begin + league_rank``), ``prologue`` the flat lambda's prologue,
    ``region_body(emit)`` the lines ``emit(body)`` prints as a region's lambda body."""
    traits = ["kpc_exec_space"]
    if info.schedule == "dynamic":
        traits.append("Kokkos::Schedule<Kokkos::Dynamic>")
    policy = f"Kokkos::TeamPolicy<{', '.join(traits)}>"
    params = [f"const {policy}::member_type& kpc_team"]
    if acc_type:
        params.append(f"{acc_type}& kpc_acc")
    start = [f"const int64_t {index} = {begin} + static_cast<int64_t>(kpc_team.league_rank());"]
    team_body = _TeamBody(emitter, info, loop)
    body = region_body(team_body.emit)
    return TeamModel(policy=policy, league=f"({end} - {begin})", lambda_params=", ".join(params),
                     prologue=start + prologue, body=body, vector="kpc::kVectorLength" if team_body.lanes else "1")


class _TeamBody:
    """Emits the statements of a Team region's body through the function's emitter."""

    def __init__(self, emitter, info, loop):
        self.emitter = emitter
        self.combined = {r.var for r in info.reductions}
        self.roots = view_roots(emitter.function)
        # the region has vector loops: the team loops' bodies run on every lane of a thread
        self.lanes = any(isinstance(node, n.For) and node.team is not None and node.team.level == "vector"
                         for node in n.walk(loop.body))

    def emit(self, body) -> None:
        e = self.emitter
        e.declare_top(body)
        read, written = set(), set()  # arrays touched since the last barrier
        for stmt in body:
            reads, writes = self.accesses(stmt)
            if writes & (read | written | {ANY}) or reads & (written | {ANY}) or ANY in writes and (read or written):
                e.emit_line("kpc_team.team_barrier();")
                read, written = set(), set()
            read |= reads
            written |= writes
            self.statement(stmt, self.combined, "PerTeam")

    def thread_body(self, body) -> None:
        """The body of a team loop in a region with vector lanes: vector loops across the lanes,
        statements that write memory on one lane, the others on every lane (choose-teams'
        ``thread_blocker`` checked that no value set on one lane is read after)."""
        for stmt in body:
            self.statement(stmt, (), "PerThread")

    def statement(self, stmt, combined, level: str) -> None:
        """A loop marked ``For.team`` across the next level down; a statement that runs once
        (``runs_once`` with ``combined``) in ``Kokkos::single(Kokkos::<level>)``; any other as is."""
        e = self.emitter
        if isinstance(stmt, n.For) and stmt.team is not None:
            e.source_line(stmt)
            self.nested_loop(stmt)
        elif runs_once(stmt, combined):
            self.once(lambda s=stmt: e.statement(s), level)
        else:
            e.statement(stmt)

    def accesses(self, stmt) -> tuple:
        """``(arrays read, arrays written)`` by a statement, as root arrays (``ANY`` for a
        kernel call, which may touch any of them)."""
        reads, writes = set(), set()
        for node in n.walk(stmt):
            if isinstance(node, n.Call) and node.kind == "kernel":
                reads.add(ANY)
                writes.add(ANY)
            elif isinstance(node, n.Index) and isinstance(node.base, n.Name):
                reads |= self.roots.get(node.base.id, {node.base.id})
        for s in statements([stmt]):
            if isinstance(s, (n.Assign, n.AugAssign)) and isinstance(s.target, n.Index):
                base = s.target.base
                while isinstance(base, n.Index):
                    base = base.base
                writes |= self.roots.get(base.id, {base.id}) if isinstance(base, n.Name) else {ANY}
        return reads, writes

    def once(self, emit, level: str) -> None:
        e = self.emitter
        e.emit_line(f"Kokkos::single(Kokkos::{level}(kpc_team), [&]() {{")
        e.depth += 1
        e.last_line = None
        emit()
        e.depth -= 1
        e.emit_line("});")

    def nested_loop(self, loop: n.For) -> None:
        """A loop across the team's threads (``TeamThreadRange``) or a thread's lanes (``ThreadVectorRange``)."""
        e = self.emitter
        team = loop.team
        vector = team.level == "vector"
        e.regions += 1
        m = e.regions
        var = loop.var.id
        t = e.type_of(var) if var in e.types else INT64
        ct = value_type(t) if isinstance(t, ScalarType) else "int64_t"
        e.emit_line("{")
        e.depth += 1
        e.emit_line(f"const int64_t kpc_tb{m} = {e.expr.emit(loop.start, INT64)};")
        e.emit_line(f"const int64_t kpc_te{m} = kpc::max<int64_t>(kpc_tb{m}, {e.expr.emit(loop.stop, INT64)});")
        bounds = f"Kokkos::{team.policy}(kpc_team, kpc_tb{m}, kpc_te{m})"
        counter = f"kpc_j{m}"
        declare = [f"const {ct} {e.name_text(var)} = {counter};"]  # not read after the loop (choose-teams)
        capture = "[=]"  # copies: a store to an array cannot change them, so the loop vectorizes
        inside = {id(stmt) for stmt in statements(loop.body)}
        for name in team.privates:
            if any((sid, name) in e.plan.inline for sid in inside):
                continue
            t = e.type_of(name)
            if isinstance(t, ScalarType):
                declare.append(f"{value_type(t)} {e.name_text(name)};")  # declared above, private here
            else:
                capture = "[&]"  # a view bound above and rebound here: this thread's own
        for inner in n.walk(loop.body):
            # the variable of a serial loop inside, declared above when several loops share it
            # (the copy captured above is const)
            if (isinstance(inner, n.For) and inner.team is None and id(inner) not in e.plan.for_init
                    and inner.var.id not in team.privates):
                t = e.type_of(inner.var.id) if inner.var.id in e.types else INT64
                line = f"{value_type(t) if isinstance(t, ScalarType) else 'int64_t'} {e.name_text(inner.var.id)};"
                if line not in declare:
                    declare.append(line)
        if team.pattern == "reduce":
            acc_type = f"{e.function.name}_{team.level}{m}"
            parts = e.accumulator(acc_type, team.reductions, f"kpc_team_result{m}", loop.loc)
            e.emit_line(f"{acc_type} kpc_team_result{m};")
            e.emit_line(f"Kokkos::parallel_reduce({bounds}, {capture}(const int64_t {counter}, {acc_type}& kpc_acc{m}) "
                        "{")
            self.loop_body(loop, declare + [f"{ct_}& {field_} = kpc_acc{m}.{field_};" for _, ct_, field_, _ in parts])
            e.emit_line(f"}}, kpc::Reduce<{acc_type}>(kpc_team_result{m}));")
            for name, _, _, line in parts:
                # the region's own reduction variable: one thread adds (a vector loop's variable is
                # private to the thread, or the team loop's, of which every lane holds a copy)
                if name in self.combined and not vector:
                    e.emit_line(f"Kokkos::single(Kokkos::PerTeam(kpc_team), [&]() {{ {line} }});")
                else:
                    e.emit_line(line)
        else:
            e.emit_line(f"Kokkos::parallel_for({bounds}, {capture}(const int64_t {counter}) {{")
            self.loop_body(loop, declare)
            e.emit_line("});")
        e.depth -= 1
        e.emit_line("}")
        e.last_line = None

    def loop_body(self, loop: n.For, prologue: list) -> None:
        """The loop's body inside the nested lambda: ``continue`` returns from it."""
        e = self.emitter
        saved = e.region_loop_depth
        e.region_loop_depth = 0
        e.depth += 1
        for line in prologue:
            e.emit_line(line)
        e.last_line = None
        if self.lanes and loop.team.level == "team":
            self.thread_body(loop.body)
        else:
            e.block(loop.body)
        e.depth -= 1
        e.region_loop_depth = saved
