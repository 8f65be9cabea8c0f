"""Random race-free Numba kernels with their ``KPC_CASES`` entry: loops, reductions, helpers, NumPy.

A kernel is drawn from one of a few shapes (``KINDS``): an elementwise map over a 1-D or
2-D ``prange``/``range`` loop, a scalar reduction (``+= *= min max``), a serial recurrence,
or a NumPy expression. Bodies mix locals, ``if``/``else``, inner loops (rectangular,
triangular, constant trip counts) with ``break``/``continue``, ``//`` and ``%``, math
functions and calls to generated ``@njit`` helpers. A ``prange`` body writes only elements
indexed by its own loop variable and updates scalars only through reduction patterns Numba
recognizes, so Numba's result is well defined and kpc must reproduce it.

>>> import random
>>> pool = HelperPool(random.Random(0), FuzzOptions())
>>> kernel = KernelGenerator(random.Random(1), FuzzOptions(), pool).kernel("fz_0")
>>> kernel.source.startswith("@njit")
True
>>> sorted(kernel.case) == ["args", "dtypes", "sizes"] or "writes" in kernel.case
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from kpc.fuzz.constructs import CONSTRUCTS, ConstructGenerator
from kpc.fuzz.expressions import (
    ArrayRef, Expr, ExpressionGenerator, FuzzOptions, Index, Scope, Var, binary_type, literal, squash,
)

KINDS = ("map1d", "map2d", "reduce1d", "reduce2d", "recurrence", "numpy", "numpy_rows")
DTYPES = ("float64", "float64", "float32", "int64", "int32")
ARRAY_BOUND = {"float64": 2.0, "float32": 2.0, "int64": 10.0, "int32": 10.0}
HELPER_PARAM_BOUND = 16.0


@dataclass
class GeneratedKernel:
    """One generated kernel: its name, shape (``kind``), source text, ``KPC_CASES`` entry and
    the helpers it calls."""

    name: str
    kind: str
    source: str
    case: dict
    helpers: list = field(default_factory=list)


def copy_of(e: Expr) -> Expr:
    """``e`` as a computed value, not a bare name: Numba treats ``t = i`` in a ``prange`` body as
    an alias of the loop index and rejects a later ``t = ...`` ("Overwrite of parallel loop index")."""
    return Expr(f"({e.text} + 0)", e.type, e.bound, e.exact) if e.text.isidentifier() else e


class Writer:
    """Indented source lines."""

    def __init__(self, depth: int = 0):
        self.lines: list = []
        self.depth = depth

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def block(self, header: str):
        writer = self

        class _Block:
            def __enter__(self):
                writer.line(header)
                writer.depth += 1

            def __exit__(self, *exc):
                writer.depth -= 1

        return _Block()

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@dataclass
class Helper:
    """A generated ``@njit`` helper; a ``safe`` one divides by non-zero divisors only."""

    name: str
    types: tuple
    exact: tuple
    result: Expr
    source: str
    calls: list
    safe: bool = True


class HelperPool:
    """The ``@njit`` helpers of one generated module, made on demand for the argument types a
    call site has, and reused by later calls with the same types.

    A ``prange`` body of a parallel kernel calls only ``safe`` helpers: a helper that raises
    ZeroDivisionError there makes Numba fail with a SystemError, where Python raises."""

    def __init__(self, rng: random.Random, options: FuzzOptions):
        self.rng = rng
        self.options = options
        self.helpers: list = []
        self.used: list = []

    def call(self, args: list, safe: bool = False) -> Expr:
        args = [squash(a, HELPER_PARAM_BOUND) for a in args]
        types = tuple(a.type for a in args)
        exact = tuple(a.exact for a in args)
        fitting = [h for h in self.helpers if h.types == types and h.exact == exact and (h.safe or not safe)]
        if fitting and self.rng.random() < 0.6:
            helper = self.rng.choice(fitting)
        else:
            helper = self.make(types, exact, safe or self.rng.random() < 0.5)
        self.used.append(helper.name)
        r = helper.result
        return Expr(f"{helper.name}({', '.join(a.text for a in args)})", r.type, r.bound,
                    r.exact and all(exact))

    def make(self, types: tuple, exact: tuple, safe: bool) -> Helper:
        rng = self.rng
        name = f"h{len(self.helpers)}"
        options = replace(self.options, float_division_by_zero=False) if safe else self.options
        gen = ExpressionGenerator(rng, options)
        scope = Scope([Var(p, t, HELPER_PARAM_BOUND, e) for p, t, e in zip(("x", "y"), types, exact)])
        earlier = [h for h in self.helpers if h.safe or not safe]
        calls = []
        if earlier and rng.random() < 0.3:
            callee = rng.choice(earlier)
            call_args = [squash(Expr(v.name, v.type, v.bound, v.exact), HELPER_PARAM_BOUND) for v in scope.vars]
            if tuple(a.type for a in call_args) == callee.types and tuple(a.exact for a in call_args) == callee.exact:
                r = callee.result
                scope.vars.append(Var("c", r.type, r.bound, r.exact))
                calls.append(callee.name)
        want = rng.choice(("float", None))
        w = Writer()
        w.line("@njit")
        with w.block(f"def {name}(x, y):"):
            if calls:
                w.line(f"c = {calls[0]}(x, y)")
            local = gen.expression(scope, 2)
            w.line(f"t = {local.text}")
            scope.vars.append(Var("t", local.type, local.bound, local.exact))
            first = gen.expression(scope, 2, want)
            if rng.random() < 0.4:
                with w.block(f"if {gen.condition(scope, 1)}:"):
                    w.line(f"return {first.text}")
                second = gen.expression(scope, 2, "int64" if first.type == "int64" else "float")
                w.line(f"return {second.text}")
                result = Expr("", binary_type(first.type, second.type), max(first.bound, second.bound),
                              first.exact and second.exact)
            else:
                w.line(f"return {first.text}")
                result = first
        helper = Helper(name, types, exact, result, w.text(), calls, safe)
        self.helpers.append(helper)
        return helper

    def closure(self, names) -> list:
        """The helpers ``names`` call, directly or not, in definition order."""
        by_name = {h.name: h for h in self.helpers}
        needed, todo = set(), list(names)
        while todo:
            name = todo.pop()
            if name not in needed:
                needed.add(name)
                todo += by_name[name].calls
        return [h for h in self.helpers if h.name in needed]


@dataclass
class Context:
    """What a statement may do where it is generated."""

    stores: list = field(default_factory=list)   # (array, subscript, dtype) this body may write
    reductions: list = field(default_factory=list)  # (name, op, type) updatable here
    loop_depth: int = 0
    may_break: bool = False
    may_continue: bool = False
    scale: float = 1.0   # the largest magnitude a reassociated float sum may reach


class KernelGenerator:
    """Draws kernels; every choice comes from the ``random.Random`` given."""

    def __init__(self, rng: random.Random, options: FuzzOptions, helpers: HelperPool):
        self.rng = rng
        self.options = options
        self.helpers = helpers
        self.expr = ExpressionGenerator(rng, options)
        self.constructs = ConstructGenerator(rng)
        self.counter = 0

    def kernel(self, name: str, kind: str | None = None) -> GeneratedKernel:
        rng = self.rng
        kinds = KINDS if self.options.numpy else tuple(k for k in KINDS if not k.startswith("numpy"))
        if kind is None and self.options.constructs != "off":
            if self.options.constructs == "only" or rng.random() < 1 / 3:
                kind = rng.choice(CONSTRUCTS)
        kind = kind or rng.choice(kinds)
        if kind in CONSTRUCTS:
            return self.construct_kernel(name, kind)
        self.counter = 0
        self.helpers.used = []
        self.scale = 1.0
        self.expr.in_prange = False
        dtype = rng.choice(DTYPES)
        source, case = getattr(self, f"_{kind}")(name, dtype)
        single = any(isinstance(a, dict) and a.get("dtype") == "float32" for a in case["args"].values())
        rtol = 2e-4 if single else 1e-9
        case.setdefault("dtypes", [dtype])
        case["rtol"] = {dtype: rtol}
        case["atol"] = {dtype: rtol * max(self.scale, 1.0)}
        return GeneratedKernel(name, kind, source, case, sorted(set(self.helpers.used)))

    def construct_kernel(self, name: str, kind: str) -> GeneratedKernel:
        """A kernel of one of issue 32's constructs; float32 data gets float32's tolerance."""
        source, case = self.constructs.kernel(name, kind)
        single = "float32" in repr(case)
        case.setdefault("rtol", 2e-4 if single else 1e-9)
        case.setdefault("atol", 1e-3 if single else 1e-9)
        return GeneratedKernel(name, kind, source, case, [])

    # ----------------------------------------------------------------- pieces

    def fresh(self, prefix: str = "t") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def arrays(self, dtype: str, names, dims) -> list:
        out = []
        for name in names:
            dt = dtype if self.rng.random() < 0.7 else self.rng.choice(DTYPES)
            out.append(ArrayRef(name, dt, dims, ARRAY_BOUND[dt]))
        return out

    def array_args(self, arrays, extra=None) -> dict:
        args = {}
        for a in arrays:
            spec = {"kind": "array", "shape": a.dims, "dtype": a.dtype}
            if a.dtype.startswith("float"):
                spec.update(low=-2.0, high=2.0)
            args[a.name] = spec
        args.update(extra or {})
        return args

    def scalar_param(self, scope: Scope) -> dict:
        if self.rng.random() < 0.5:
            value = self.rng.choice((0.5, -1.25, 2.0))
            scope.vars.append(Var("alpha", "float64", abs(value)))
        else:
            value = self.rng.choice((3, -2, 7))
            scope.vars.append(Var("alpha", "int64", abs(value)))
        return {"alpha": {"kind": "scalar", "value": value}}

    def sizes_1d(self, minimum: int = 0) -> list:
        rng = self.rng
        sizes = [max(minimum, 0), max(minimum, 1), rng.randint(max(minimum, 2), 20), rng.randint(60, 300)]
        return [{"n": n} for n in dict.fromkeys(sizes)]

    def sizes_2d(self, minimum: int = 0) -> list:
        rng = self.rng
        small = max(minimum, 2)
        sizes = [(max(minimum, 0), 3), (max(minimum, 1), max(minimum, 1)),
                 (rng.randint(small, 9), rng.randint(small, 9)), (rng.randint(20, 50), rng.randint(10, 30))]
        return [{"n": n, "m": m} for n, m in dict.fromkeys(sizes)]

    def decorator(self, w: Writer, parallel: bool) -> None:
        w.line("@njit(parallel=True)" if parallel else "@njit")

    def loop_header(self, var: str, lo: int, hi: int, dim: str, parallel: bool) -> str:
        rng_name = "prange" if parallel else "range"
        start = f"{lo}, " if lo else ""
        stop = f"{dim} - {hi}" if hi else dim
        return f"for {var} in {rng_name}({start}{stop}):"

    # ----------------------------------------------------------------- statements

    def body(self, w: Writer, scope: Scope, ctx: Context, budget: int) -> None:
        """``budget`` statements into ``w``; new locals are added to ``scope``."""
        rng = self.rng
        for _ in range(budget):
            options = ["assign", "assign", "if"]
            if ctx.loop_depth < 3:
                options.append("loop")
            if any(v.name.startswith("t") for v in scope.vars):
                options.append("reassign")
            if ctx.stores:
                options.append("store")
            if ctx.reductions:
                options += ["reduce", "reduce"]
            getattr(self, f"_stmt_{rng.choice(options)}")(w, scope, ctx)

    def _stmt_assign(self, w, scope, ctx):
        e = copy_of(self.expr.expression(scope, 3))
        name = self.fresh()
        w.line(f"{name} = {e.text}")
        scope.vars.append(Var(name, e.type, e.bound, e.exact))

    def _stmt_reassign(self, w, scope, ctx):
        var = self.rng.choice([v for v in scope.vars if v.name.startswith("t")])
        sub = scope.child()
        if var.exact:
            sub.vars = [v for v in scope.vars if v.exact]
        e = self.expr.expression(sub, 2, "int64" if var.type == "int64" else "float")
        if not e.exact and var.exact:  # a new local instead: a branch must not stay empty
            self._stmt_assign(w, scope, ctx)
            return
        e = squash(e, var.bound)
        if e.bound > var.bound:  # squash keeps at least 1
            e = Expr(f"({e.text}) * {var.bound:.3g}", e.type, var.bound, e.exact)
        w.line(f"{var.name} = {copy_of(e).text}")

    def _stmt_if(self, w, scope, ctx):
        rng = self.rng
        with w.block(f"if {self.expr.condition(scope, 2)}:"):
            self.branch(w, scope, ctx)
        if rng.random() < 0.5:
            with w.block("else:"):
                self.branch(w, scope, ctx)

    def branch(self, w, scope, ctx):
        rng = self.rng
        jumps = [j for j, ok in (("break", ctx.may_break), ("continue", ctx.may_continue)) if ok]
        if jumps and rng.random() < 0.35:
            w.line(rng.choice(jumps))
            return
        self.body(w, scope.child(), ctx, rng.randint(1, 2))

    def _stmt_store(self, w, scope, ctx):
        array, subscript, dtype = self.rng.choice(ctx.stores)
        e = self.expr.expression(scope, 3, "int64" if dtype.startswith("int") else None)
        op = self.rng.choice(("=", "=", "+="))
        if op == "+=" and not e.exact:
            op = "="
        w.line(f"{array}[{subscript}] {op} {e.text}")

    def _stmt_reduce(self, w, scope, ctx):
        name, op, type_ = self.rng.choice(ctx.reductions)
        e = self.expr.expression(scope, 3, "int64" if type_ == "int64" else "float")
        self.update(w, name, op, type_, e, ctx)

    def update(self, w, name, op, type_, e: Expr, ctx: Context) -> None:
        if op in "+-":
            self.scale = max(self.scale, e.bound * 300)
            w.line(f"{name} {op}= {e.text}")
        elif op == "*":
            if type_ == "int64":
                w.line(f"{name} *= {squash(e, 3).text} + 2")
            else:
                self.scale = max(self.scale, 1.5)
                w.line(f"{name} *= 1.0 + 0.001 * {squash(e, 1.0).text}")
        else:
            w.line(f"{name} = {op}({name}, {e.text})")

    def _stmt_loop(self, w, scope, ctx):
        """An inner serial loop: over an extent, triangular, or a constant trip count."""
        rng = self.rng
        var = self.fresh("j")
        inner = scope.child()
        outer = [i for i in scope.indices]
        dims = sorted({d for a in scope.arrays for d in a.dims})
        kind = rng.choice(("extent", "triangular", "constant"))
        if kind == "triangular" and outer:
            index = rng.choice(outer)
            header = f"for {var} in range({index.name}):"
            inner.indices.append(Index(var, index.dim, 0, 1))
            trips = 300
        elif kind == "extent" and dims:
            dim = rng.choice(dims)
            lo, hi = rng.choice(((0, 0), (1, 0), (0, 1), (1, 1)))
            header = self.loop_header(var, lo, hi, dim, False)
            inner.indices.append(Index(var, dim, lo, hi))
            trips = 300
        else:
            trips = rng.randint(2, 5)
            header = f"for {var} in range({trips}):"
        inner.vars.append(Var(var, "int64", 300.0))
        acc = None
        if rng.random() < 0.6:
            acc = self.fresh()
            kind_ = rng.choice(("float", "int64"))
            w.line(f"{acc} = {'0.0' if kind_ == 'float' else '0'}")
        sub = Context(ctx.stores, ctx.reductions, ctx.loop_depth + 1, True, True)
        with w.block(header):
            self.body(w, inner, sub, rng.randint(1, 3))
            if acc is not None:
                e = self.expr.expression(inner, 2, "int64" if kind_ == "int64" else "float")
                w.line(f"{acc} += {e.text}")
        if acc is not None:
            bound = e.bound * trips
            exact = kind_ == "int64" and e.exact
            if not exact:
                self.scale = max(self.scale, bound)
            scope.vars.append(Var(acc, "int64" if kind_ == "int64" else binary_type("float64", e.type),
                                  bound, exact))

    # ----------------------------------------------------------------- kernel shapes

    def _map1d(self, name, dtype):
        rng = self.rng
        parallel = self.expr.in_prange = rng.random() < 0.6
        arrays = self.arrays(dtype, ("a", "b"), ("n",))
        out = ArrayRef("out", rng.choice((dtype, "float64")), ("n",), ARRAY_BOUND["float64"])
        scope = Scope(helpers=self.helpers, arrays=list(arrays))
        extra = self.scalar_param(scope) if rng.random() < 0.4 else {}
        lo, hi = rng.choice(((0, 0), (1, 1), (0, 2), (2, 0)))
        w = Writer()
        self.decorator(w, parallel)
        params = ["a", "b", "out"] + list(extra)
        with w.block(f"def {name}({', '.join(params)}):"):
            w.line("n = a.shape[0]")
            with w.block(self.loop_header("i", lo, hi, "n", parallel)):
                scope.indices.append(Index("i", "n", lo, hi))
                scope.vars.append(Var("i", "int64", 300.0))
                ctx = Context([("out", "i", out.dtype)], loop_depth=1, may_break=not parallel, may_continue=True)
                self.body(w, scope, ctx, rng.randint(1, 4))
                e = self.expr.expression(scope, 3, "int64" if out.dtype.startswith("int") else None)
                w.line(f"out[i] = {e.text}")
        args = self.array_args(arrays + [out], extra)
        return w.text(), {"args": args, "sizes": self.sizes_1d(), "writes": ["out"], "layouts": self.layouts()}

    def layouts(self) -> list:
        if self.options.strided_layouts and self.rng.random() < 0.2:
            return ["C", "strided"]
        return ["C"]

    def _map2d(self, name, dtype):
        rng = self.rng
        parallel = self.expr.in_prange = rng.random() < 0.6
        arrays = self.arrays(dtype, ("a", "b"), ("n", "m"))
        arrays += self.arrays(dtype, ("v",), ("m",))
        out = ArrayRef("out", rng.choice((dtype, "float64")), ("n", "m"), 2.0)
        scope = Scope(helpers=self.helpers, arrays=list(arrays))
        w = Writer()
        self.decorator(w, parallel)
        with w.block(f"def {name}(a, b, v, out):"):
            w.line("n = a.shape[0]")
            w.line("m = a.shape[1]")
            with w.block(self.loop_header("i", 0, 0, "n", parallel)):
                scope.indices.append(Index("i", "n", 0, 0))
                scope.vars.append(Var("i", "int64", 50.0))
                ctx = Context(loop_depth=1, may_continue=True, may_break=not parallel)
                self.body(w, scope, ctx, rng.randint(0, 2))
                with w.block("for j in range(m):"):
                    scope.indices.append(Index("j", "m", 0, 0))
                    scope.vars.append(Var("j", "int64", 30.0))
                    ctx = Context([("out", "i, j", out.dtype)], loop_depth=2, may_break=True, may_continue=True)
                    self.body(w, scope, ctx, rng.randint(1, 3))
                    e = self.expr.expression(scope, 3, "int64" if out.dtype.startswith("int") else None)
                    w.line(f"out[i, j] = {e.text}")
        args = self.array_args(arrays + [out])
        return w.text(), {"args": args, "sizes": self.sizes_2d(), "writes": ["out"]}

    def reductions(self, w: Writer, count: int) -> list:
        rng = self.rng
        out = []
        for k in range(count):
            op = rng.choice(("+", "+", "-", "*", "min", "max"))
            type_ = rng.choice(("float64", "int64"))
            name = f"s{k}"
            init = {"+": 0, "-": 0, "*": 1, "min": 10 ** 6, "max": -10 ** 6}[op]
            w.line(f"{name} = {float(init) if type_ == 'float64' else init}")
            out.append((name, op, type_))
        return out

    def _reduce1d(self, name, dtype):
        rng = self.rng
        parallel = self.expr.in_prange = rng.random() < 0.6
        arrays = self.arrays(dtype, ("a", "b"), ("n",))
        scope = Scope(helpers=self.helpers, arrays=list(arrays))
        extra = self.scalar_param(scope) if rng.random() < 0.3 else {}
        w = Writer()
        self.decorator(w, parallel)
        with w.block(f"def {name}({', '.join(['a', 'b'] + list(extra))}):"):
            w.line("n = a.shape[0]")
            reductions = self.reductions(w, rng.randint(1, 2))
            lo, hi = rng.choice(((0, 0), (1, 0), (0, 1)))
            with w.block(self.loop_header("i", lo, hi, "n", parallel)):
                scope.indices.append(Index("i", "n", lo, hi))
                scope.vars.append(Var("i", "int64", 300.0))
                ctx = self.reduction_context(reductions, 1, parallel)
                self.body(w, scope, ctx, rng.randint(1, 3))
                for r in reductions:
                    self.update(w, *r, self.reduction_value(scope, r, parallel), ctx)
            self.returns(w, reductions)
        args = self.array_args(arrays, extra)
        return w.text(), {"args": args, "sizes": self.sizes_1d(), "layouts": self.layouts()}

    def reduction_context(self, reductions, depth: int, parallel: bool) -> Context:
        """Numba accepts one update per reduction variable and iteration of a ``prange`` body (the
        one after the body); a serial loop may update them anywhere, and break out."""
        if parallel:
            return Context(loop_depth=depth, may_break=depth > 1, may_continue=True)
        return Context(reductions=reductions, loop_depth=depth, may_break=True, may_continue=True)

    def reduction_value(self, scope: Scope, reduction, parallel: bool) -> Expr:
        """The value a loop's iteration gives a reduction. A parallel min/max gets an exact one:
        a NaN (``0.0 / 0`` in a prange body) makes its result depend on how threads split the loop."""
        name, op, type_ = reduction
        e = self.expr.expression(scope, 3, "int64" if type_ == "int64" else "float")
        if parallel and op in ("min", "max") and not e.exact:
            exact = scope.child()
            exact.vars = [v for v in scope.vars if v.exact]
            e = self.expr.expression(exact, 2, "float")
            if not e.exact:
                e = literal(self.rng.choice((0.5, -1.5, 2.0)), "float64")
        return e

    def returns(self, w: Writer, reductions) -> None:
        names = [r[0] for r in reductions]
        w.line(f"return {', '.join(names)}")

    def _reduce2d(self, name, dtype):
        rng = self.rng
        parallel = self.expr.in_prange = rng.random() < 0.6
        arrays = self.arrays(dtype, ("a", "b"), ("n", "m"))
        scope = Scope(helpers=self.helpers, arrays=list(arrays))
        w = Writer()
        self.decorator(w, parallel)
        with w.block(f"def {name}(a, b):"):
            w.line("n = a.shape[0]")
            w.line("m = a.shape[1]")
            reductions = self.reductions(w, rng.randint(1, 2))
            with w.block(self.loop_header("i", 0, 0, "n", parallel)):
                scope.indices.append(Index("i", "n", 0, 0))
                scope.vars.append(Var("i", "int64", 50.0))
                with w.block("for j in range(m):"):
                    scope.indices.append(Index("j", "m", 0, 0))
                    scope.vars.append(Var("j", "int64", 30.0))
                    ctx = self.reduction_context(reductions, 2, parallel)
                    self.body(w, scope, ctx, rng.randint(0, 2))
                    for r in reductions:
                        self.update(w, *r, self.reduction_value(scope, r, parallel), ctx)
            self.returns(w, reductions)
        return w.text(), {"args": self.array_args(arrays), "sizes": self.sizes_2d()}

    def _recurrence(self, name, dtype):
        """A serial loop carrying a dependence through ``out[i - 1]``: kpc must keep it serial
        (or turn it into a scan)."""
        rng = self.rng
        arrays = self.arrays(dtype, ("a", "b"), ("n",))
        out_dtype = rng.choice((dtype, "float64"))
        scope = Scope(helpers=self.helpers, arrays=list(arrays))
        w = Writer()
        w.line("@njit")
        with w.block(f"def {name}(a, b, out):"):
            w.line("n = a.shape[0]")
            with w.block("for i in range(1, n):"):
                scope.indices.append(Index("i", "n", 1, 0))
                scope.vars.append(Var("i", "int64", 300.0))
                ctx = Context(loop_depth=1, may_break=True, may_continue=True)
                self.body(w, scope, ctx, rng.randint(0, 2))
                if out_dtype.startswith("int"):
                    e = self.expr.expression(scope, 3, "int64")
                    w.line(f"out[i] = (out[i - 1] * {rng.choice((3, -5, 2))} + {e.text}) % 10007")
                else:
                    e = self.expr.expression(scope, 3, "float")
                    c = rng.choice((0.5, -0.25, 1.0))
                    self.scale = max(self.scale, e.bound * 300)
                    w.line(f"out[i] = out[i - 1] * {c} + {e.text}")
        args = self.array_args(arrays + [ArrayRef("out", out_dtype, ("n",), 2.0)])
        return w.text(), {"args": args, "sizes": self.sizes_1d(), "writes": ["out"]}

    # ----------------------------------------------------------------- NumPy

    def _numpy(self, name, dtype):
        rng = self.rng
        if self.options.broadcast_size_one and rng.random() < 0.5:
            return self._numpy_broadcast(name, dtype)
        twod = rng.random() < 0.3
        dims = ("n", "m") if twod else ("n",)
        arrays = self.arrays(dtype, ("a", "b", "c"), dims)
        lo, hi = (0, 0) if twod else rng.choice(((0, 0), (1, 1), (2, 0), (0, 1)))
        if lo or hi:
            windows = [f"[{lo + k}:n - {hi - k}]" if hi - k else f"[{lo + k}:]" for k in range(-lo, hi + 1)]
        else:
            windows = [""]
        window = rng.choice(windows)
        w = Writer()
        w.line("@njit")
        form = rng.choice(("return", "sum", "extreme", "store", "mixed"))
        params = ["a", "b", "c"] + (["out"] if form == "store" else [])
        with w.block(f"def {name}({', '.join(params)}):"):
            w.line("n = a.shape[0]")
            e = self.expr.array_expression(arrays, window, 3)
            if form == "return":
                w.line(f"return {e.text}")
            elif form == "sum":
                self.scale = max(self.scale, e.bound * 300)
                w.line(f"return np.sum({e.text})")
            elif form == "extreme":
                w.line(f"t = {e.text}")
                w.line(f"return t.{rng.choice(('max', 'min'))}()")
            elif form == "store":
                w.line(f"out{window or '[:]'} = {e.text}")
            else:
                self.scale = max(self.scale, e.bound * 300)
                w.line(f"t = {e.text}")
                w.line(f"s = np.sum(t) / {rng.choice((300.0, 1000.0))}")
                w.line("return t * s + 1.0")
        out = [ArrayRef("out", rng.choice((dtype, "float64")), dims, 2.0)] if form == "store" else []
        minimum = lo + hi + 1 if form == "extreme" else lo + hi  # max/min of an empty array raise
        sizes = self.sizes_2d(minimum) if twod else self.sizes_1d(minimum)
        case = {"args": self.array_args(arrays + out), "sizes": sizes}
        if out:
            case["writes"] = ["out"]
        return w.text(), case

    def _numpy_broadcast(self, name, dtype):
        """A NumPy expression over operands of ranks 1..3 that broadcast: each takes the trailing
        axes of the result, some with extent 1 always, some with an extent that is 1 in some
        size assignments and the full one in others (the same compiled code sees both)."""
        rng = self.rng
        rank = rng.choice((1, 2, 2, 3))
        axes = ("n", "m", "k")[-rank:]
        stretched = []   # size names that are 1 or their axis' extent, per size assignment
        full = set()     # axes some operand has at their full extent
        arrays = []
        for position, array in enumerate(self.arrays(dtype, ("a", "b", "c"), ())):
            own = rank if position == 0 else rng.randint(1, rank)
            dims = []
            for axis in axes[rank - own:]:
                kind = rng.choice(("full", "full", "one", "stretched"))
                if kind == "one":
                    dims.append(1)
                elif kind == "stretched":
                    stretched.append((f"{axis}_{array.name}", axis))
                    dims.append(stretched[-1][0])
                else:
                    full.add(axis)
                    dims.append(axis)
            arrays.append(ArrayRef(array.name, array.dtype, tuple(dims), array.bound))
        form = rng.choice(("return", "sum", "extreme", "store", "mixed"))
        if form == "store":
            full.update(axes)
        e = self.expr.array_expression(arrays, "", 3)
        w = Writer()
        w.line("@njit")
        with w.block(f"def {name}({', '.join(['a', 'b', 'c'] + (['out'] if form == 'store' else []))}):"):
            if form == "return":
                w.line(f"return {e.text}")
            elif form == "sum":
                self.scale = max(self.scale, e.bound * 3000)
                w.line(f"return np.sum({e.text})")
            elif form == "extreme":
                w.line(f"t = {e.text}")
                w.line(f"return t.{rng.choice(('max', 'min'))}()")
            elif form == "store":
                w.line(f"out[:] = {e.text}")
            else:
                self.scale = max(self.scale, e.bound * 3000)
                w.line(f"t = {e.text}")
                w.line(f"s = np.sum(t) / {rng.choice((300.0, 1000.0))}")
                w.line("return t * s + 1.0")
        out = [ArrayRef("out", rng.choice((dtype, "float64")), axes, 2.0)] if form == "store" else []
        case = {"args": self.array_args(arrays + out), "sizes": self.broadcast_sizes(axes, stretched, full, form)}
        if out:
            case["writes"] = ["out"]
        return w.text(), case

    def broadcast_sizes(self, axes: tuple, stretched: list, full: set, form: str) -> list:
        """Size assignments of a broadcasting kernel: a stretched extent alternates between 1 and its
        axis' extent; now and then one is neither against an operand of ``full`` extent there, and
        NumPy's ValueError is the expected result."""
        rng = self.rng
        minimum = 1 if form == "extreme" else 0  # max/min of an empty array raise
        extents = [[max(minimum, 0)] + [3] * (len(axes) - 1), [1] * len(axes),
                   [rng.randint(2, 5) for _ in axes], [rng.randint(6, 40 // len(axes)) for _ in axes]]
        offset = rng.randint(0, 1)
        sizes = []
        for row, values in enumerate(extents):
            assignment = dict(zip(axes, values))
            for k, (name, axis) in enumerate(stretched):
                assignment[name] = 1 if (row + k + offset) % 2 else assignment[axis]
            sizes.append(assignment)
        clashing = [(name, axis) for name, axis in stretched if axis in full]
        if clashing and rng.random() < 0.15:
            name, axis = rng.choice(clashing)
            incompatible = dict(sizes[-1])
            incompatible[name] = incompatible[axis] + 1
            sizes.append(incompatible)
        return sizes

    def _numpy_rows(self, name, dtype):
        """A loop over rows whose body reduces a row slice with NumPy."""
        rng = self.rng
        parallel = self.expr.in_prange = rng.random() < 0.6
        arrays = self.arrays(dtype, ("a", "b"), ("n", "m"))
        w = Writer()
        self.decorator(w, parallel)
        f = rng.choice(("np.sum", "np.max", "np.min", "np.mean"))
        with w.block(f"def {name}(a, b, out):"):
            with w.block(self.loop_header("i", 0, 0, "a.shape[0]", parallel)):
                rows = [ArrayRef(x.name, x.dtype, (), x.bound) for x in arrays]
                row = self.expr.array_expression(rows, "[i, :]", 2)
                w.line(f"out[i] = {f}({row.text})")
                self.scale = max(self.scale, row.bound * 30)
        out = ArrayRef("out", "float64", ("n",), 2.0)
        case = {"args": self.array_args(arrays + [out]), "sizes": self.sizes_2d(), "writes": ["out"]}
        for size in case["sizes"]:
            size["m"] = max(size["m"], 1)
        return w.text(), case
