"""A parallel loop -> one ``@pk.workunit`` plus the host lines that dispatch it.

Four shapes, chosen from the loop's ``ParallelInfo`` (PYKOKKOS_CONTRACT.md §2, §4, §5):

- ``parallel_for``: ``def wu(i: int, <captures>)``;
- one sum reduction: ``def wu(i: int, s: pk.Acc[T], <captures>)`` and
  ``s += pk.parallel_reduce(...)`` (the host keeps the initial value);
- any other reduction (min, max, prod, several variables): upstream joins
  accumulators with ``+`` from 0, so each of at most 256 chunks runs its share of
  the loop serially into its own slot of a partial-result array (a ``parallel_for``)
  and the host combines the slots with the reduction's operator;
- a sum scan: ``def wu(i: int, s: pk.Acc[T], final: bool, <captures>)`` with every
  store under ``if final:``.

Policies are ``pk.RangePolicy([space,] begin, end)`` with Python-int bounds
(``pk.RangePolicy(pk.Cuda, ...)`` in the Cuda space, where partial-result arrays are
CuPy arrays); MDRange regions must have been flattened by ``flatten-mdrange``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kpc.ir import nodes as n
from kpc.ir.queries import expr_names
from kpc.ir.types import ArrayType, ScalarType

from . import spelling
from .device import DeviceCode, NameAllocator, all_names
from .effects import names_bound, names_loaded, names_read
from .model import WorkunitModel
from .unsupported import Unsupported, loc_of

PARTIAL_CHUNKS = 256
LINE_LENGTH = 100

def identity(op: str, ty: ScalarType) -> str:
    """The literal a chunk's partial result starts from.

    The most negative integer is written ``-(2**(b-1) - 1) - 1``: upstream prints ``-N`` as
    ``-(N)`` and ``2**63`` does not fit a signed 64-bit literal.
    """
    if op in ("sum", "prod"):
        one = "1" if op == "prod" else "0"
        return f"{one}.0" if ty.is_float else one
    if ty.is_float:
        return "math.inf" if op == "min" else "-math.inf"
    if ty.is_bool:
        return "True" if op == "min" else "False"
    if ty.is_signed:
        top = 2 ** (ty.bits - 1) - 1
        return str(top) if op == "min" else f"-{top} - 1"
    return str(2**ty.bits - 1) if op == "min" else "0"


_COMBINE = {"sum": "sum", "prod": "prod", "min": "min", "max": "max"}


@dataclass
class Region:
    """One lowered parallel loop: the workunit, and the placeholder its dispatch refers to."""

    workunit: WorkunitModel
    placeholder: str
    functions: set


def _reads_before_write(stmt, name: str):
    """True: ``stmt`` may read ``name`` before writing it; False: it overwrites it first; None: neither."""
    def reads(*exprs):
        return any(name in expr_names(e) for e in exprs if e is not None)

    if isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name) and stmt.target.id == name:
        return reads(stmt.value)
    if isinstance(stmt, (n.For, n.While)):
        if reads(getattr(stmt, "start", None), getattr(stmt, "stop", None), getattr(stmt, "step", None),
                 getattr(stmt, "test", None)):
            return True
        if isinstance(stmt, n.For) and stmt.var.id == name:
            return None  # the loop writes it before its body reads it
        return True if _block_verdict(stmt.body, name) else None  # zero iterations overwrite nothing
    if isinstance(stmt, n.If):
        if reads(stmt.test):
            return True
        verdicts = [_block_verdict(stmt.body, name), _block_verdict(stmt.orelse, name)]
        if True in verdicts:
            return True
        return False if verdicts == [False, False] else None
    return True if name in names_loaded(stmt) else None


def _block_verdict(block: list, name: str):
    for stmt in block:
        verdict = _reads_before_write(stmt, name)
        if verdict is not None:
            return verdict
    return None


def _live_after(body: list, loop: n.For, name: str) -> bool:
    """Is the value ``name`` has after ``loop`` read later (in its block, or in the blocks around it)?"""
    def search(block: list):
        for k, stmt in enumerate(block):
            if stmt is loop:
                return block[k + 1:], True
            for inner in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
                if isinstance(inner, list):
                    rest, found = search(inner)
                    if found:
                        if isinstance(stmt, (n.For, n.While)) and name in names_loaded(stmt):
                            return [stmt], True  # the next iteration may read it
                        return rest + block[k + 1:], True
        return [], False

    following, _ = search(body)
    return bool(_block_verdict(following, name))


def placeholder(base: str) -> str:
    """Stands for a workunit's final (hashed) name until every body is known."""
    return f"@@{base}@@"


class RegionLowering:
    """Lowers the parallel loops of one entry kernel, in order."""

    def __init__(self, ctx, function: n.Function, host):
        self.ctx = ctx
        self.function = function
        self.host = host
        self.count = 0
        self.regions: list = []

    def lower(self, loop: n.For) -> None:
        info = loop.parallel
        if info.policy != "Range" or info.depth != 1:
            raise Unsupported(f"{info.policy} region of depth {info.depth}", loc_of(loop),
                              "upstream MDRangePolicy fails with standalone workunits: flatten-mdrange must run")
        if not (isinstance(loop.step, n.Const) and loop.step.value == 1):
            raise Unsupported("parallel loop with a step", loc_of(loop))
        self.count += 1
        base = f"{self.function.name}_loop{self.count}"
        try:
            if info.pattern == "scan":
                region = self._scan(loop, base)
            elif info.pattern == "reduce" and len(info.reductions) == 1 and info.reductions[0].op == "sum":
                region = self._reduce(loop, base)
            elif info.pattern == "reduce":
                region = self._partials(loop, base)
            elif info.pattern == "for":
                region = self._for(loop, base)
            else:
                raise Unsupported(f"parallel pattern '{info.pattern}'", loc_of(loop))
        except Unsupported as exc:
            if exc.loc.line:
                raise
            raise Unsupported(exc.construct, loc_of(loop), exc.reason) from None
        self.regions.append(region)

    # ------------------------------------------------------------------ common parts
    def _device(self, reserved=()) -> DeviceCode:
        alloc = NameAllocator(all_names(self.function) | self.ctx.module_names | set(reserved))
        code = DeviceCode(self.function, "workunit", self.ctx.device, alloc,
                          self.ctx.bounds(self.function))
        for name in all_names(self.function):
            if name in spelling.CPP_KEYWORDS or name in self.ctx.module_names or name in reserved \
                    or name in ("pk", "math"):
                code.names[name] = alloc.claim(name + "_")
        return code

    def _captures(self, loop: n.For, skip: set) -> list:
        privates = names_bound(loop.body) - skip
        for name in sorted(privates):
            if _live_after(self.function.body, loop, name):
                raise Unsupported(f"'{name}' is assigned in a parallel loop and read after it", loc_of(loop),
                                  "Numba keeps some iteration's value (NumbaParallelSafetyWarning); "
                                  "a workunit's locals do not outlive it")
        bound = privates | {loop.var.id} | skip
        captures = []
        for name in names_read(loop.body):
            if name in bound:
                continue
            ty = self._type_of(name, loop)
            if not isinstance(ty, (ArrayType, ScalarType)):
                raise Unsupported(f"'{name}' of type {ty} used in a parallel loop", loc_of(loop))
            captures.append((name, ty))
        return captures

    def _type_of(self, name: str, node):
        for p in self.function.params:
            if p.name == name:
                return p.type
        if name in self.function.locals:
            return self.function.locals[name]
        raise Unsupported(f"name '{name}' without a type", loc_of(node))

    def _register(self, code: DeviceCode, captures: list) -> list:
        """Workunit parameters and dispatch keywords for the captured names."""
        params, kwargs = [], []
        for name, ty in captures:
            pk_name = code.name(name)
            if isinstance(ty, ArrayType):
                code.add_view_param(name, ty, pk_name)
                params.append(f"{pk_name}: {spelling.view_annotation(ty)}")
                kwargs.append((pk_name, self.host.view_argument(name, ty)))
            else:
                code.scalars[name] = ty
                params.append(f"{pk_name}: {spelling.scalar_annotation(ty)}")
                kwargs.append((pk_name, self.host.name(name)))
        return params, kwargs

    def _run_body(self, code: DeviceCode, loop: n.For, tid: str) -> None:
        code.names.setdefault(loop.var.id, tid)
        code.bounds.enter(loop)
        code.int32.append(loop.var.id)
        code.body(loop.body)
        code.int32.pop()
        code.bounds.leave()

    def _policy(self, begin: str, end: str) -> str:
        space = f"{self.ctx.space}, " if self.ctx.space else ""
        return f"pk.RangePolicy({space}{begin}, {end})"

    def _bounds(self, loop: n.For):
        """Python-int policy bounds; an empty range must not have begin > end."""
        begin = self.host.int_expr(loop.start)
        end = self.host.int_expr(loop.stop)
        bounds = self.ctx.bounds(self.function)
        trip = bounds.interval(n.BinOp("-", loop.stop, loop.start))
        if not trip.nonneg:
            end = f"max({begin}, {end})"
        return begin, end

    def _finish(self, code: DeviceCode, base: str, params: list, loop: n.For, prologue=(), epilogue=(),
                notes=()) -> Region:
        body = [(0, line) for line in code.extent_declarations() + code.hoisted_declarations()]
        body += [(0, line) for line in prologue] + code.lines + [(0, line) for line in epilogue]
        if not code.lines and not epilogue:
            body.append((0, "pass"))
        comment = [self.ctx.source_comment(loop)] + list(notes)
        workunit = WorkunitModel(base, params, body, comment, self.function.name)
        self.ctx.use_helpers(code.helpers)
        return Region(workunit, placeholder(base), set(code.signatures_used))

    def _dispatch(self, call: str, policy: str, base: str, kwargs: list, prefix: str = "") -> None:
        """Emit ``[prefix]pk.<call>(policy, workunit, k=v, ...)``, one argument per line when long."""
        args = [policy, placeholder(base)] + [f"{k}={v}" for k, v in kwargs]
        line = f"{prefix}pk.{call}({', '.join(args)})"
        # The final name is 5 characters longer than the placeholder (a hash replaces the @@ marks).
        if len(line) + 5 + 4 * (self.host.depth + 1) <= LINE_LENGTH:
            self.host.emit(line)
            return
        self.host.emit(f"{prefix}pk.{call}(")
        self.host.depth += 1
        for arg in args:
            self.host.emit(f"{arg},")
        self.host.depth -= 1
        self.host.emit(")")

    # ------------------------------------------------------------------ the four shapes
    def _for(self, loop: n.For, base: str) -> Region:
        code = self._device()
        tid = code.name(loop.var.id)
        params, kwargs = self._register(code, self._captures(loop, set()))
        self._run_body(code, loop, tid)
        begin, end = self._bounds(loop)
        self._dispatch("parallel_for", self._policy(begin, end), base, kwargs)
        return self._finish(code, base, [f"{tid}: int"] + params, loop)

    def _reduce(self, loop: n.For, base: str) -> Region:
        (spec,) = loop.parallel.reductions
        code = self._device()
        tid = code.name(loop.var.id)
        var_type = self._scalar(spec.var, loop)
        code.acc = spec.var
        acc = code.name(spec.var)
        params, kwargs = self._register(code, self._captures(loop, {spec.var}))
        self._run_body(code, loop, tid)
        begin, end = self._bounds(loop)
        self._dispatch("parallel_reduce", self._policy(begin, end), base, kwargs, f"{self.host.name(spec.var)} += ")
        return self._finish(code, base, [f"{tid}: int", f"{acc}: {spelling.acc_annotation(var_type)}"] + params, loop)

    def _scan(self, loop: n.For, base: str) -> Region:
        spec = loop.parallel.scan
        if spec is None or spec.op != "sum":
            raise Unsupported("scan that is not a sum", loc_of(loop))
        code = self._device(reserved=("final",))
        tid = code.name(loop.var.id)
        var_type = self._scalar(spec.var, loop)
        code.acc, code.scan = spec.var, True
        acc = code.name(spec.var)
        params, kwargs = self._register(code, self._captures(loop, {spec.var}))
        if not self.host.starts_at_zero(spec.var, loop):
            start = code.alloc.claim(f"{acc}_start")
            code.acc_offset = start
            params.append(f"{start}: {spelling.scalar_annotation(var_type)}")
            kwargs.append((start, self.host.name(spec.var)))
        self._run_body(code, loop, tid)
        begin, end = self._bounds(loop)
        self._dispatch("parallel_scan", self._policy(begin, end), base, kwargs, f"{self.host.name(spec.var)} += ")
        head = [f"{tid}: int", f"{acc}: {spelling.acc_annotation(var_type)}", "final: bool"]
        return self._finish(code, base, head + params, loop,
                            notes=["prefix sum: the final pass writes, the first pass only accumulates"])

    def _partials(self, loop: n.For, base: str) -> Region:
        specs = loop.parallel.reductions
        code = self._device()
        code.region_loop = True
        chunk = code.alloc.claim("chunk")
        begin_p, trip_p, chunks_p = (code.alloc.claim(x) for x in ("begin", "trip", "chunks"))
        first, last = code.alloc.claim("first"), code.alloc.claim("last")
        reduction_vars = {spec.var for spec in specs}
        params, kwargs = self._register(code, self._captures(loop, reduction_vars))
        prologue = [
            f"{first}: pk.int64 = {begin_p} + {trip_p} * {chunk} // {chunks_p}",
            f"{last}: pk.int64 = {begin_p} + {trip_p} * ({chunk} + 1) // {chunks_p}",
        ]
        epilogue, partial_params, partial_kwargs, host_lines = [], [], [], []
        for spec in specs:
            ty = self._scalar(spec.var, loop)
            if spec.op not in _COMBINE:
                raise Unsupported(f"'{spec.op}' reduction", loc_of(loop))
            var = code.name(spec.var)
            prologue.append(f"{var}: {spelling.scalar_annotation(ty)} = {identity(spec.op, ty)}")
            code.declared.add(var)
            partial = code.alloc.claim(f"{var}_partial")
            storage = ArrayType(ty, 1, "C")
            epilogue.append(f"{partial}[{chunk}] = {var}")
            partial_params.append(f"{partial}: {spelling.view_annotation(storage)}")
            host_partial = self.host.fresh(f"{spec.var}_partial")
            partial_kwargs.append((partial, host_partial))
            host_lines.append((host_partial, ty, spec))
        code.bounds.enter(loop)
        code.int32.append(loop.var.id)
        code.lines.append((0, f"for {code.name(loop.var.id)} in range({first}, {last}):"))
        code.depth = 1
        code.body(loop.body)
        code.depth = 0
        code.int32.pop()
        code.bounds.leave()
        # host side
        begin, end = self._bounds(loop)
        trip, chunks = self.host.fresh("trip"), self.host.fresh("chunks")
        self.host.emit(f"{trip} = {end} - {begin}" if begin != "0" else f"{trip} = {end}")
        self.host.emit(f"{chunks} = min({trip}, {PARTIAL_CHUNKS})")
        for host_partial, ty, spec in host_lines:
            storage_dtype = spelling.view_storage_dtype(ty)
            self.host.emit(f"{host_partial} = {self.host.allocate('empty', [chunks, f'dtype=np.{storage_dtype}'])}")
        kwargs = [(begin_p, begin), (trip_p, trip), (chunks_p, chunks)] + kwargs + partial_kwargs
        self._dispatch("parallel_for", self._policy("0", chunks), base, kwargs)
        for host_partial, ty, spec in host_lines:
            var = self.host.name(spec.var)
            # On the device the (at most 256) partial results are combined on the host: CuPy has no initial=.
            partials = f"{host_partial}.get()" if self.host.on_device else host_partial
            self.host.emit(f"{var} = {partials}.{_COMBINE[spec.op]}(initial={var})")
        head = [f"{chunk}: int", f"{begin_p}: pk.int64", f"{trip_p}: pk.int64", f"{chunks_p}: pk.int64"]
        ops = ", ".join(f"{s.var} ({s.op})" for s in specs)
        notes = [f"reductions {ops}: PyKokkos reduces with + only, so each chunk of the range",
                 "keeps its partial results and the caller combines them"]
        return self._finish(code, base, head + params + partial_params, loop, prologue, epilogue, notes)

    def _scalar(self, name: str, loop) -> ScalarType:
        ty = self._type_of(name, loop)
        if not isinstance(ty, ScalarType):
            raise Unsupported(f"reduction variable '{name}' of type {ty}", loc_of(loop))
        return ty
