"""C++ of parallel regions: the Kokkos launch of a parallel loop, its lambda body, its host-space forms."""

from __future__ import annotations

from dataclasses import dataclass, field

from kpc.ir import nodes as n
from kpc.ir.queries import assigned_names
from kpc.ir.types import INT64, ScalarType
from kpc.passes.choose_host_forms import CHUNKED_REDUCE, ELEMENT_COPY, copied_arrays

from . import analysis, teams
from .cxx import BackendError, c_string, identifier, value_type

# Spaces whose threads share memory and where ScatterView duplicates arrays per thread
# (on CUDA it would fall back to atomics; Serial needs neither copies nor atomics).
SCATTER_SPACES = ("openmp", "threads")


@dataclass
class RegionModel:
    """What the region template prints for one parallel loop."""

    index: int
    label: str
    pattern: str
    comment: str
    setup: list
    lambda_params: str
    prologue: list
    body: list
    serial_loops: list
    call_args: str
    policy: str
    trip_count: str
    serial_below: int
    serial_call_args: str = ""  # call_args of the serial arm: the accumulator as a local (serial_local)
    serial_local: tuple | None = None  # (the shared accumulator, the serial arm's local copy of it)
    learn_below: int = 0  # unknown work: below this trip count the region learns serial vs parallel
    learn_every_size: bool = False  # the guard learns at any amount of work (ParallelInfo.learn_every_size)
    acc_type: str = ""
    scan_type: str = ""
    combine: list = field(default_factory=list)
    scatter: "ScatterModel | None" = None
    serial_body: list | None = None  # the body of the serial arm when it differs (plain updates, no atomics)
    work: str = ""  # run-time inner trip counts multiplied into the cost guard's count
    inner: str = ""  # the longest of those trip counts (kpc::team_size's test of inner work)
    chunked: dict | None = None  # host Range reductions: {"begin", "end"} of the chunked launch
    paired: dict | None = None  # host triangular regions: {"begin", "end"} of the paired launch
    copy: dict | None = None  # host element copies: {"dst", "src", "type", "begin", "end"} (memmove per chunk)
    team: "teams.TeamModel | None" = None  # the TeamPolicy launch of a Team region (teams.py)


@dataclass
class ScatterModel:
    """The privatized version of a region (``kpc_scatter.hpp``): its body updates per-thread
    copies of the arrays it only scatters into; it runs instead of the atomic one when
    ``condition`` holds at run time."""

    condition: str
    setup: list
    prologue: list
    body: list
    contribute: list


@dataclass
class IndexSpace:
    """The indices of a region's collapsed loops: the setup lines computing their bounds
    (``kpc_begin<suffix>``, ``kpc_end<suffix>``), the lambda's index variables and the prologue
    that turns them into the loop variables."""

    setup: list = field(default_factory=list)
    prologue: list = field(default_factory=list)
    indices: list = field(default_factory=list)
    suffixes: list = field(default_factory=list)

    @property
    def begins(self) -> list:
        return [f"kpc_begin{suffix}" for suffix in self.suffixes]

    @property
    def ends(self) -> list:
        return [f"kpc_end{suffix}" for suffix in self.suffixes]

    @property
    def counts(self) -> list:
        """The trip count of each loop."""
        return [f"(kpc_end{suffix} - kpc_begin{suffix})" for suffix in self.suffixes]

    @property
    def serial_loops(self) -> list:
        """The loop headers of the serial path."""
        return [f"for (int64_t {index} = kpc_begin{suffix}; {index} < kpc_end{suffix}; ++{index})"
                for index, suffix in zip(self.indices, self.suffixes)]


class RegionEmitter:
    """The parallel regions of a ``FunctionEmitter``'s host variant."""

    def region(self, loop) -> None:
        info = loop.parallel
        try:
            loops = analysis.region_loops(loop)
        except ValueError as error:
            raise BackendError(str(error), loop.loc) from None
        vars_ = analysis.region_vars(loop)
        self.regions += 1
        k = self.regions
        label = f"{self.function.name}:{loop.loc.line}" if loop.loc.line else f"{self.function.name}#{k}"
        indices = self.index_space(loops, k)
        if self.unit.space == "cuda" and info.device_form == "flat" and len(loops) > 1:
            indices = _flat(indices, k)
        setup, prologue, begins, ends = indices.setup, indices.prologue, indices.begins, indices.ends
        lambda_params = [f"const int64_t {index}" for index in indices.indices]

        saved_overrides = dict(self.overrides)
        pattern, acc_type, scan_type, call_args, combine = self.combination(loop, k, setup, lambda_params, prologue)

        self.region_pools, self.region_stores = {}, assigned_names(loop.body) | {l.var.id for l in loops}
        self.region_index = k
        body_lines = self.region_body(loops[-1].body, info, vars_, k)
        team = None
        if info.policy == "Team":
            index = lambda_params[0].split()[-1]
            team = teams.team_model(self, loop, info, begins[0], ends[0], index, prologue, acc_type,
                                    lambda emit: self.region_body(loops[-1].body, info, vars_, k, emit))
        scatter = None
        if pattern in ("for", "reduce") and self.unit.space in SCATTER_SPACES:
            scatter = self.scatter_region(loop, loops[-1].body, info, vars_, k, prologue, " * ".join(indices.counts))
        serial_body = self.serial_arm_body(loop, loops[-1].body, info, vars_, k)
        self.overrides = saved_overrides
        for lines in self.region_pools.values():
            setup.extend(lines)
        self.region_pools = {}

        chunked = paired = copy = None
        if self.unit.space != "cuda" and len(loops) == 1:
            chunked, paired, copy = self.host_forms(loop, pattern, begins[0], ends[0])
        work, inner = self.guard_work(info)
        serial_local, serial_call_args = None, call_args
        if pattern in ("reduce", "scan"):
            shared = f"kpc_result{k}" if pattern == "reduce" else f"kpc_total{k}"
            serial_local = (shared, f"kpc_local{k}")
            serial_call_args = ", ".join(f"kpc_local{k}" if a == shared else a for a in call_args.split(", "))
        model = RegionModel(
            index=k, label=c_string(label), pattern=pattern, comment=_comment(info, loops, pattern, paired),
            setup=setup, lambda_params=", ".join(lambda_params), prologue=prologue, body=body_lines,
            serial_loops=indices.serial_loops, call_args=call_args, policy=_policy(info, begins, ends),
            trip_count=" * ".join(indices.counts), serial_below=info.serial_below or 0,
            learn_below=info.learn_below or 0, learn_every_size=info.learn_every_size, work=work, inner=inner,
            acc_type=acc_type, scan_type=scan_type, combine=combine, scatter=scatter, serial_body=serial_body,
            chunked=chunked, team=team, serial_call_args=serial_call_args, serial_local=serial_local,
            paired=paired, copy=copy,
        )
        text = self.render_region(model)
        for line in text.splitlines():
            if line.startswith("#line"):
                self.lines.append(line)
            else:
                self.emit_line(line)
        self.last_line = None

    def index_space(self, loops, k: int) -> IndexSpace:
        """The ``IndexSpace`` of region ``k`` over ``loops``: a loop of unit step runs over its own
        variable, another over ``0 .. trip count`` with its variable computed in the prologue."""
        space = IndexSpace()
        for d, l in enumerate(loops):
            var = identifier(l.var.id)
            t = self.type_of(l.var.id) if l.var.id in self.types else INT64
            step_value = l.step.value if isinstance(l.step, n.Const) else None
            start = self.expr.emit(l.start, INT64)
            stop = self.expr.emit(l.stop, INT64)
            suffix = f"{k}" if len(loops) == 1 else f"{k}_{d}"
            if step_value == 1:
                index = var
                space.setup.append(f"const int64_t kpc_begin{suffix} = {start};")
                space.setup.append(f"const int64_t kpc_end{suffix} = kpc::max<int64_t>(kpc_begin{suffix}, {stop});")
            else:
                index = f"kpc_k{suffix}"
                space.setup.append(f"const int64_t kpc_first{suffix} = {start};")
                space.setup.append(f"const int64_t kpc_step{suffix} = {self.expr.emit(l.step, INT64)};")
                space.setup.append(f"const int64_t kpc_begin{suffix} = 0;")
                space.setup.append(f"const int64_t kpc_end{suffix} = kpc::trip_count(kpc_first{suffix}, {stop}, "
                                   f"kpc_step{suffix});")
                space.prologue.append(f"const int64_t {var} = kpc_first{suffix} + {index} * kpc_step{suffix};")
            if isinstance(t, ScalarType) and t != INT64 and index == var:
                raise BackendError(f"parallel loop variable of type {t} is not supported", l.loc)
            space.indices.append(index)
            space.suffixes.append(suffix)
        return space

    def host_forms(self, loop, pattern: str, begin: str, end: str) -> tuple:
        """``(chunked, paired, copy)`` launches of a one-loop region on a host space, each None or
        the template's dict: the forms the passes chose (``ParallelInfo.host_form``, ``paired``)."""
        info = loop.parallel
        chunked = {"begin": begin, "end": end} if info.host_form == CHUNKED_REDUCE else None
        # Host spaces pair the iterations of a triangular region (ParallelInfo.paired) under a
        # static schedule: Schedule<Dynamic>'s work stealing cost ~15 us per launch on 16 threads,
        # more than the whole region at small sizes. CUDA ignores the schedule.
        paired = {"begin": begin, "end": end} if info.paired and pattern in ("for", "reduce") else None
        copy = self.element_copy(loop, begin, end) if info.host_form == ELEMENT_COPY else None
        return chunked, paired, copy

    def element_copy(self, loop, begin: str, end: str) -> dict:
        """The memmove launch of an ``element-copy`` region (``dst[i] = src[i]``, see
        ``choose-host-forms``): ``{"dst", "src", "type", "begin", "end"}``."""
        dst, src = copied_arrays(loop)
        return {"dst": self.name_text(dst), "src": self.name_text(src), "type": value_type(self.types[dst].dtype),
                "begin": begin, "end": end}

    def guard_work(self, info) -> tuple:
        """``(work, inner)`` of the cost guard: the largest product of the run-time trip counts of
        the loops inside an iteration (``serial_work``), and the longest of those trip counts."""
        def trip(bounds) -> str:
            return f"kpc::trip_count({', '.join(self.expr.emit(e, INT64) for e in bounds)})"

        paths = list(dict.fromkeys(" * ".join(trip(bounds) for bounds in path) for path in info.serial_work))
        trips = list(dict.fromkeys(trip(bounds) for path in info.serial_work for bounds in path))
        work = f"kpc::max_of({{{', '.join(paths)}}})" if len(paths) > 1 else "".join(paths)
        inner = f"kpc::max_of({{{', '.join(trips)}}})" if len(trips) > 1 else "".join(trips)
        return work, inner

    def scatter_region(self, loop, body, info, vars_, k, prologue, trip_count):
        """The region again, with the arrays it only scatters into privatized (``ScatterModel``);
        None when it has none."""
        arrays = analysis.scatter_arrays(loop, self.types)
        if not arrays:
            return None
        self.uses_scatter = True
        setup, access, contribute, views = [], [], [], []
        for name in arrays:
            view = self.name_text(name)
            scatter = f"kpc_scatter{k}_{name}"
            self.scatter_access[name] = f"kpc_access{k}_{name}"
            setup.append(f"const auto {scatter} = kpc::scatter_sum_of<kpc_exec_space>({view});")
            access.append(f"auto {self.scatter_access[name]} = {scatter}.view.access();")
            contribute.append(f"{scatter}.contribute();")
            views.append(view)
        try:
            body_lines = self.region_body(body, info, vars_, k)
        finally:
            self.scatter_access = {}
        condition = f"kpc::scatter_pays<kpc_exec_space>({trip_count}, {', '.join(views)})"
        return ScatterModel(condition, setup, prologue + access, body_lines, contribute)

    def serial_arm_body(self, loop, body, info, vars_, k):
        """The region's body for its serial arm (the cost guard's small sizes), with its atomic
        updates as plain ones: one thread needs no atomics, and a ``lock``-prefixed add per
        element cost 5-10x Numba's serial loop on a 1200-element histogram. None when the body
        has no atomic update, or on a space whose serial arm is not host code."""
        if self.unit.space not in SCATTER_SPACES:
            return None
        if not any(isinstance(node, n.AugAssign) and node.atomic for node in n.walk(body)):
            return None
        self.plain_updates = True
        try:
            return self.region_body(body, info, vars_, k)
        finally:
            self.plain_updates = False

    def region_body(self, body, info, vars_, k, emit=None) -> list:
        """The lines of a region's lambda body; ``emit(body)`` emits its statements when given."""
        saved = (self.lines, self.depth, self.last_line, self.in_region, self.region_loop_depth)
        self.lines, self.depth, self.last_line = [], 0, None
        self.in_region, self.region_loop_depth = True, 0
        try:
            if emit is not None:
                emit(body)
                return self.lines
            self.declare_top(body)
            if info.pattern == "scan" and info.scan is not None:
                self.scan_body(body, info.scan.var, k)
            else:
                self.block(body)
            return self.lines
        finally:
            self.lines, self.depth, self.last_line, self.in_region, self.region_loop_depth = saved



def _flat(space: IndexSpace, k: int) -> IndexSpace:
    """``space`` launched as one 1-D range ``kpc_t<k>`` over the product of its trip counts
    (``device_form`` ``flat``): the prologue recomputes each loop's index, the last fastest."""
    flat = IndexSpace(setup=list(space.setup), indices=[f"kpc_t{k}"], suffixes=[f"{k}"])
    counts = []
    for suffix in space.suffixes:
        flat.setup.append(f"const int64_t kpc_n{suffix} = kpc_end{suffix} - kpc_begin{suffix};")
        counts.append(f"kpc_n{suffix}")
    flat.setup.append(f"const int64_t kpc_begin{k} = 0;")
    flat.setup.append(f"const int64_t kpc_end{k} = {' * '.join(counts)};")
    flat.prologue.append(f"int64_t kpc_rest{k} = kpc_t{k};")
    last = len(space.suffixes) - 1
    for d in range(last, 0, -1):
        suffix, index = space.suffixes[d], space.indices[d]
        flat.prologue.append(f"int64_t kpc_r{suffix};")
        flat.prologue.append(f"kpc_rest{k} = kpc::flat_split(kpc_rest{k}, kpc_n{suffix}, kpc_r{suffix});")
        flat.prologue.append(f"const int64_t {index} = kpc_begin{suffix} + kpc_r{suffix};")
    flat.prologue.append(f"const int64_t {space.indices[0]} = kpc_begin{space.suffixes[0]} + kpc_rest{k};")
    flat.prologue.extend(space.prologue)
    return flat


def _policy(info, begins: list, ends: list) -> str:
    """The Kokkos policy of a region over the collapsed loops' ``begins`` and ``ends``."""
    space = "kpc_exec_space"
    if len(begins) == 1:
        traits = [space]
        if info.schedule == "dynamic":
            traits.append("Kokkos::Schedule<Kokkos::Dynamic>")
        traits.append("Kokkos::IndexType<int64_t>")
        return f"Kokkos::RangePolicy<{', '.join(traits)}>({begins[0]}, {ends[0]})"
    # The last collapsed loop varies fastest on every space, as the source's loop order says (Kokkos'
    # default on CUDA is the first: a 2-D reduction over C-ordered arrays then read memory a
    # row apart in neighbouring threads, 0.11 TB/s on an H200 against 4.3 for the 1-D triad).
    iterate = "Kokkos::Iterate::Right"
    return (f"Kokkos::MDRangePolicy<{space}, Kokkos::Rank<{len(begins)}, {iterate}, {iterate}>, "
            f"Kokkos::IndexType<int64_t>>({{{', '.join(begins)}}}, {{{', '.join(ends)}}})")


def _comment(info, loops, pattern: str, paired) -> str:
    """The comment above a region's launch: pattern, reductions, loop variables, schedule."""
    what = {"for": "parallel_for", "reduce": "parallel_reduce", "scan": "parallel_scan"}[pattern]
    detail = ""
    if info.reductions:
        detail = " (" + ", ".join(f"{r.op}:{r.var}" for r in info.reductions) + ")"
    if info.scan is not None:
        detail = f" (scan:{info.scan.var})"
    comment = f"{what}{detail} over {', '.join(l.var.id for l in loops)}"
    if paired:
        comment += ", iterations t and n - 1 - t paired (static schedule)"
    elif info.schedule == "dynamic":
        comment += ", dynamic schedule"
    return comment
