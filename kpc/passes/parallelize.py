"""Choose the parallel regions of each function: every ``prange``, and ``range`` loops proven independent."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.diagnostics import Diagnostic, source_line_at
from kpc.ir.queries import expr_names, statements

from .array_accesses import ArrayScope, call_effects
from .cost_guard import SERIAL_THRESHOLD
from .dependence import analyze_nest
from .infer_dispatch import callers_first, calls_by_context, python_callers
from .liveness import live_out_of_loops
from .manager import Pass, register

MAX_DEPTH = 3  # MDRange regions collapse at most three loops (2-D and 3-D)

# A perfectly nested inner loop with a constant trip count below this stays a
# serial loop inside each iteration instead of becoming an MDRange dimension:
# ``for d in range(3)`` tiles badly and the compiler unrolls it anyway.
MIN_COLLAPSED_EXTENT = 16


def constant_trip_count(loop: n.For):
    bounds = (loop.start, loop.stop, loop.step)
    if all(isinstance(b, n.Const) and isinstance(b.value, int) for b in bounds) and loop.step.value:
        return len(range(loop.start.value, loop.stop.value, loop.step.value))
    return None


def unit_step(loop: n.For) -> bool:
    return isinstance(loop.step, n.Const) and loop.step.value == 1


def constant_step(loop: n.For) -> bool:
    step = loop.step
    if isinstance(step, n.UnaryOp) and step.op == "-":
        step = step.operand
    return isinstance(step, n.Const) and type(step.value) is int and step.value != 0


@register
class Parallelize(Pass):
    """Turn loops into parallel regions (``For.parallel``) or record why they stay serial (``For.decision``).

    A ``prange`` in a ``parallel=True`` function is a region (in other functions
    it is a ``range``, as in Numba). A plain ``range`` loop is a region when
    ``ctx.auto_parallel`` is on and the dependence analysis proves its
    iterations independent up to recognized reductions, prefix sums and atomic
    scatter updates; loops with a constant trip count below the cost-guard
    threshold stay serial, and so do plain loops of a function that computes a BLAS product
    (``matmul``: BLAS runs on threads of its own) or is a ``target='cpu'`` ufunc's array kernel
    (``options["serial"]``). Steps must be constants (any sign). Only the
    outermost such loop of a nest is a region; perfectly nested, unit-step,
    rectangular loops below it that stay independent collapse into an MDRange
    (``depth`` 2 or 3). Loops inside device functions stay serial. A ``prange``
    whose iterations certainly race gets a warning and stays parallel, as in
    Numba; one with a ``break``/``return`` runs serially, with a warning.
    Arrays with different names are assumed not to alias (Numba's ``prange``
    assumption); names bound to views of other arrays are followed.

    ``ParallelInfo`` gets ``policy``/``depth``, ``reason``, ``captures`` (names
    defined outside and read inside the innermost collapsed body) and
    ``privates`` (names assigned inside it, except reduction/scan variables and
    loop variables); ``pattern`` and ``reductions`` are filled by later passes.

    Before::

        func @smooth(a: f64[:], b: f64[:]) -> none   role=entry
          for i: i64 in range(1, len(a) - 1):
            b[i] = 0.5 * (a[i - 1] + a[i + 1])
          for i: i64 in range(1, len(a)):
            a[i] = a[i - 1] + b[i]

    After::

        func @smooth(a: f64[:], b: f64[:]) -> none   role=entry
          parallel_for Range i: i64 in range(1, len(a) - 1):
            b[i] = 0.5 * (a[i - 1] + a[i + 1])
          for i: i64 in range(1, len(a)):
            a[i] = a[i - 1] + b[i]

    After (report)::

        @smooth (role entry)
          line 4, i in range: parallel_for [Range]: independent writes to b[i]
          line 6, i in range: serial: a[i] written, a[i - 1] read (distance 1)
    """

    name = "parallelize"
    transforms = False

    def apply(self, ctx, module) -> None:
        module.rebuild_callgraph()
        effects = call_effects(module)
        host = python_callers(module) | {name for name in module.functions if not module.callers(name)}
        device: set = set()
        for name in callers_first(module):
            function = module.functions[name]
            if name in device and name not in host:
                for loop in statements(function.body):
                    if isinstance(loop, n.For):
                        loop.parallel = None
                        loop.decision = f"inside device function @{name} (called from parallel regions)"
                device |= set(module.callees(name))
                continue
            _RegionFinder(ctx, module, function, effects).block(function.body)
            in_regions, in_host = calls_by_context(function)
            host |= in_host
            device |= in_regions
            if name in device:
                device |= in_host


class _RegionFinder:
    """Walks the host code of one function and decides each loop, outermost first."""

    def __init__(self, ctx, module, function: n.Function, effects):
        self.ctx = ctx
        self.module = module
        self.function = function
        self.effects = effects
        self.scope = ArrayScope(function)
        self.live = live_out_of_loops(function)
        # A BLAS product (lower-numpy's matmul routine) runs on BLAS's own threads: OpenMP
        # regions beside it leave threads spinning where the other library's run (16 threads:
        # alpha * A @ B + beta * C at n = 256 took 15 ms against 0.15 ms with the sum serial).
        self.products = any(isinstance(node, n.Call) and node.kind == "builtin" and node.func == "matmul"
                            for node in n.walk(function))

    def block(self, stmts: list) -> None:
        for stmt in stmts:
            if isinstance(stmt, n.For):
                self.loop(stmt)
            elif isinstance(stmt, n.While):
                self.block(stmt.body)
            elif isinstance(stmt, n.If):
                self.block(stmt.body)
                self.block(stmt.orelse)

    def loop(self, loop: n.For) -> None:
        loop.parallel = None
        loop.decision = ""
        decision = self.decide(loop)
        if isinstance(decision, str):
            loop.decision = decision
            self.block(loop.body)
            return
        loop.parallel, nest = decision
        collapsed = {id(inner) for inner in nest[1:]}
        for inner in statements(loop.body):
            if isinstance(inner, n.For):
                inner.parallel = None
                where = "collapsed into the MDRange" if id(inner) in collapsed else "inside the parallel"
                inner.decision = f"{where} region of line {loop.loc.line}"

    def analyze(self, nest):
        return analyze_nest(self.function, nest, self.live, self.effects, self.scope)

    def decide(self, loop: n.For):
        """``(ParallelInfo, nest)`` for a region, or the reason the loop stays serial."""
        prange = loop.kind == "prange"
        note = ""
        if prange and not self.function.options.get("parallel"):
            prange = False
            note = "prange without parallel=True runs as range (Numba semantics); "
        if not prange and not self.ctx.auto_parallel:
            return note + "auto-parallelization disabled (--no-auto-parallel)"
        if not prange and self.function.options.get("serial"):
            return note + "a target='cpu' ufunc runs serially (as Numba's)"
        if not prange and self.products:
            return note + "a function with a BLAS product parallelizes only its prange loops (BLAS's threads " \
                          "and OpenMP's would contend)"
        if not constant_step(loop):
            reason = f"step {loop.step} is not a constant: the iteration space is unknown"
            if prange:
                self.warn(loop, f"prange with {reason}; it runs serially")
            return note + reason
        trip = constant_trip_count(loop)
        if not prange and trip is not None and trip < SERIAL_THRESHOLD:
            return note + f"constant trip count {trip} is below the serial threshold {SERIAL_THRESHOLD}"
        facts = self.analyze([loop])
        if prange and facts.exits:
            self.warn(loop, f"prange loop has an {facts.exits[0]}; it runs serially")
            return f"{facts.exits[0]} (prange runs serially)"
        if prange and any(self.effects.reseeds(node) for node in n.walk(loop.body)):
            # Numba seeds the calling thread's generator; kpc's generator is one per process.
            self.warn(loop, "prange loop calls np.random.seed(), which reseeds the random state of the "
                            "whole process in kpc (of one thread in Numba); it runs serially")
            return "np.random.seed() in the body (prange runs serially)"
        if not prange and facts.blockers():
            return note + _listing(facts.blockers(), separator="; ")
        races = facts.races() if prange else []
        for race in races:
            self.warn(loop, f"prange loop races: {race}; kept parallel as in Numba")
        nest = self.collapse([loop], facts)
        if len(nest) > 1:
            facts = self.analyze(nest)
        info = n.ParallelInfo(policy="Range" if len(nest) == 1 else "MDRange", depth=len(nest),
                              reason=self.reason(prange, facts, races), captures=facts.captures,
                              privates=facts.privates)
        return info, nest

    def collapse(self, nest: list, facts) -> list:
        """Extend the region over perfectly nested inner loops while iterations stay independent."""
        while len(nest) < MAX_DEPTH and unit_step(nest[0]):
            body = nest[-1].body
            if len(body) != 1 or not isinstance(body[0], n.For):
                break
            inner = body[0]
            if inner.kind == "range" and not self.ctx.auto_parallel or not unit_step(inner):
                break
            trip = constant_trip_count(inner)
            if trip is not None and trip < MIN_COLLAPSED_EXTENT:
                break
            bound_names = expr_names([inner.start, inner.stop])
            if bound_names & {loop.var.id for loop in nest}:
                break
            deeper = self.analyze(nest + [inner])
            if deeper.blockers() or not {id(s) for s in deeper.atomics} <= {id(s) for s in facts.atomics}:
                break
            nest = nest + [inner]
            facts = deeper
        return nest

    def reason(self, prange: bool, facts, races: list) -> str:
        parts = ["prange"] if prange else []
        plain = [w for w in facts.writes if w not in facts.atomic_texts]
        if not prange:
            parts.append(f"independent writes to {_listing(plain)}" if plain else "no writes to shared arrays")
        parts += [f"{c.op} reduction of {c.var}" for c in facts.reductions]
        if facts.scan is not None:
            parts.append(f"prefix sum of {facts.scan.var}")
        if facts.atomic_texts:
            parts.append(f"atomic updates of {_listing(facts.atomic_texts)}")
        parts += [f"race: {race}" for race in races]
        return "; ".join(parts)

    def warn(self, loop: n.For, message: str) -> None:
        self.ctx.warnings.append(Diagnostic(message, loop.loc, construct="prange", severity="warning",
                                            source_line=source_line_at(loop.loc, self.module.source)))


def _listing(items: list, limit: int = 3, separator: str = ", ") -> str:
    shown = separator.join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")
