"""C++ of one function of the IR: its statements, and its parallel regions as Kokkos lambdas.

A function is emitted in up to two variants: the *host* variant runs its parallel
loops as Kokkos ``parallel_for`` / ``parallel_reduce`` / ``parallel_scan`` regions;
the *device* variant (``KOKKOS_INLINE_FUNCTION``) runs them as plain loops, because
it is called from inside another region (Numba too runs a nested ``prange``
serially). A function without parallel loops has one variant that serves both.

Statements carry ``#line`` directives that point at the user's Python file, so a
compiler error in generated code names the user's line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kpc.ir import nodes as n
from kpc.ir.queries import assigned_names, expr_names, nested_bodies, target_names
from kpc.ir.types import BOOL, FLOAT64, INT64, ArrayType, NoneType, ScalarType, TupleType, Type, promote
from kpc.passes.aliasing import is_view_expr, name_bindings, view_base_name, view_roots

from . import analysis, teams
from .cxx import BackendError, c_string, identifier, literal, scalar_type, value_type
from .expressions import ExprEmitter

# Elements of an array allocated inside a parallel loop: it lives on the thread's stack.
SCRATCH_ELEMENTS = 256

ALLOCATORS = {"np.empty", "np.zeros", "np.ones", "np.full", "np.empty_like", "np.zeros_like", "np.ones_like",
              "np.full_like", "numpy.empty", "numpy.zeros", "numpy.ones", "numpy.full"}

ATOMICS = {"+": "Kokkos::atomic_add", "-": "Kokkos::atomic_sub"}

# Spaces whose threads share memory and where ScatterView duplicates arrays per thread
# (on CUDA it would fall back to atomics; Serial needs neither copies nor atomics).
SCATTER_SPACES = ("openmp", "threads")


@dataclass
class FunctionModel:
    """What the template prints for one C++ function."""

    name: str
    python_name: str
    template_params: list
    return_type: str
    params: list
    device: bool
    body: list
    where: str


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
    acc_type: str = ""
    scan_type: str = ""
    combine: list = field(default_factory=list)
    scatter: "ScatterModel | None" = None
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
class AccumulatorModel:
    """A struct holding the reduction variables of one region (see ``kpc::Reduce``)."""

    name: str
    fields: list  # (cxx type, name, identity, join statement)


IDENTITY = {
    "sum": lambda t: literal(0, t),
    "prod": lambda t: literal(1, t),
    "min": lambda t: f"kpc::min_identity<{scalar_type(t)}>()",
    "max": lambda t: f"kpc::max_identity<{scalar_type(t)}>()",
}


def _allocation(value) -> bool:
    """Whether ``value`` allocates a new array (``np.zeros(n)``, ``np.empty_like(x)``, ...)."""
    return isinstance(value, n.Call) and value.kind == "numpy" and value.func in ALLOCATORS


def _join(op: str, t, field_: str) -> str:
    if op == "sum":
        return f"{field_} += other.{field_};"
    if op == "prod":
        return f"{field_} *= other.{field_};"
    return f"{field_} = kpc::{op}<{scalar_type(t)}>({field_}, other.{field_});"


class FunctionEmitter:
    """Emit one variant (``host`` or ``device``) of one IR function."""

    def __init__(self, unit, function: n.Function, variant: str, render_region):
        self.unit = unit
        self.function = function
        self.variant = variant
        self.render_region = render_region
        self.types = {p.name: p.type for p in function.params}
        self.types.update(function.locals)
        self.intervals = analysis.Intervals(function)
        self.expr = ExprEmitter(self)
        self.lines: list = []
        self.depth = 1
        self.last_line = None
        self.overrides: dict = {}
        self.in_region = False
        # name -> setup lines of the per-thread pools of the region being emitted (allocate_scratch)
        self.region_pools: dict = {}
        self.region_stores: set = set()
        self.region_index = 0
        self.region_loop_depth = 0
        self.owners: dict = {}
        self.regions = 0
        self.accumulators: list = []
        self.scatter_access: dict = {}
        self.uses_scatter = False
        skip = {p.name for p in function.params}
        self.plan = analysis.plan_declarations(function.body, skip, self.is_region)
        self.rebound = self.rebound_arrays()

    def rebound_arrays(self) -> dict:
        """Local array names bound by several assignments outside parallel regions (``if c:
        y = np.zeros(n) else: y = x``; ``v = v[1:]`` in a loop): name -> the C++ view type
        declared once at the top of the function, which every binding converts to (a view
        is a handle: rebinding copies no data). LayoutRight when every binding allocates,
        LayoutStride otherwise. Their inline declarations are dropped from the plan."""
        if self.variant != "host":
            return {}
        bindings: dict = {}

        def visit(block) -> None:
            for stmt in block:
                if isinstance(stmt, n.For) and self.is_region(stmt):
                    for name in assigned_names([stmt]):
                        bindings.setdefault(name, []).append(None)  # bound in a region: not here
                    continue
                if isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name):
                    bindings.setdefault(stmt.target.id, []).append(stmt)
                for nested in nested_bodies(stmt):
                    visit(nested)

        visit(self.function.body)
        params = {p.name for p in self.function.params}
        rebound = {}
        for name, stmts in bindings.items():
            t = self.types.get(name)
            if not isinstance(t, ArrayType) or len(stmts) < (1 if name in params else 2) or None in stmts:
                continue
            allocates = name not in params and all(_allocation(s.value) for s in stmts)
            layout = "Kokkos::LayoutRight" if allocates else "Kokkos::LayoutStride"
            rebound[name] = f"kpc::view<{scalar_type(t.dtype)}, {t.ndim}, {layout}>"
            self.plan.inline -= {(id(s), name) for s in stmts}
            for names in self.plan.top.values():
                if name in names:
                    names.remove(name)
            self.plan.top.setdefault(id(self.function.body), []).append(name)
        return rebound

    # ------------------------------------------------------------ scope protocol
    def type_of(self, name: str) -> Type:
        if name not in self.types:
            raise BackendError(f"variable {name!r} of @{self.function.name} has no type", self.function.loc)
        return self.types[name]

    def name_text(self, name: str) -> str:
        return self.overrides.get(name, identifier(name))

    def call_text(self, call, expr_emitter) -> str:
        module = self.unit.module
        if call.func not in module.functions:
            raise BackendError(f"call of unknown kernel {call.func}", call.loc)
        callee = module.functions[call.func]
        if _has_array(callee.return_type):
            raise BackendError(f"@{callee.name} returns an array: kpc inlines such a call (pass inline-array-calls) "
                               f"only when @{callee.name}'s one return is its last statement and the call is not "
                               f"in a condition, a loop header or a branch of and/or/if-else", call.loc)
        args = list(call.args)
        for param in callee.params[len(args):]:
            if param.name in call.kwargs:
                args.append(call.kwargs[param.name])
            elif param.default is not None:
                args.append(param.default)
            else:
                raise BackendError(f"missing argument {param.name!r} in call of @{callee.name}", call.loc)
        texts = []
        for param, arg in zip(callee.params, args):
            if isinstance(param.type, ArrayType):
                texts.append(expr_emitter.emit(arg))
            else:
                texts.append(expr_emitter.emit(arg, param.type))
        device = self.in_region or self.variant == "device"
        name = self.unit.callee_name(callee.name, device)
        return f"{self.unit.namespace}::{name}({', '.join(texts)})"

    def is_region(self, loop) -> bool:
        return self.variant == "host" and loop.parallel is not None

    # ------------------------------------------------------------ output
    def emit_line(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def source_line(self, node) -> None:
        loc = getattr(node, "loc", None)
        if loc is None or not loc.line:
            return
        key = (loc.file, loc.line)
        if key != self.last_line:
            self.lines.append(f"#line {loc.line} {c_string(loc.file)}")
            self.last_line = key

    # ------------------------------------------------------------ function
    def model(self) -> FunctionModel:
        f = self.function
        template_params, params = [], []
        for p in f.params:
            if isinstance(p.type, ArrayType):
                template_params.append(f"class V_{p.name}")
                # a rebound parameter is a local view initialized from the argument
                text = f"kpc_arg_{p.name}" if p.name in self.rebound else identifier(p.name)
                params.append(f"const V_{p.name}& {text}")
            else:
                params.append(f"{value_type(p.type)} {identifier(p.name)}")
        if self.returns_python_objects():
            for p in f.params:
                if isinstance(p.type, ArrayType):
                    params.append(f"kpc::object kpc_owner_{p.name}")
                    self.owners[p.name] = f"kpc_owner_{p.name}"
        self.declare_top(f.body)
        self.block(f.body)
        device = self.variant == "device"
        return FunctionModel(
            name=self.unit.variant_name(f.name, device),
            python_name=f.name,
            template_params=template_params,
            return_type=self.return_type(),
            params=params,
            device=device,
            body=self.lines,
            where=f"{f.loc.file}:{f.loc.line}" if f.loc.line else f.name,
        )

    def returns_python_objects(self) -> bool:
        return self.variant == "host" and _has_array(self.function.return_type)

    def return_type(self) -> str:
        t = self.function.return_type
        if self.returns_python_objects():
            return "kpc::object"
        if _has_array(t):
            raise BackendError(f"@{self.function.name} returns an array; kpc can return arrays only to Python, "
                               "not to another kernel", self.function.loc)
        return value_type(t)

    # ------------------------------------------------------------ declarations
    def declare_top(self, block) -> None:
        for name in self.plan.top.get(id(block), []):
            t = self.type_of(name)
            if name in self.rebound:
                param = any(p.name == name for p in self.function.params)
                initial = f" = kpc_arg_{name}" if param else ""
                self.emit_line(f"{self.rebound[name]} {identifier(name)}{initial};")
                owner = self.owners.get(name, "kpc::none()") if param else "kpc::none()"
                self.owners[name] = f"kpc_own_{name}"  # the NumPy array it views, when kpc allocated it
                self.emit_line(f"kpc::object {self.owners[name]} = {owner};")
                continue
            if isinstance(t, ArrayType):
                raise BackendError(
                    f"array variable {name!r} of @{self.function.name} is assigned in several places; "
                    "kpc needs one assignment that comes before every use", self.function.loc)
            self.emit_line(f"{value_type(t)} {identifier(name)};")

    def declares(self, stmt, name) -> bool:
        return (id(stmt), name) in self.plan.inline

    # ------------------------------------------------------------ statements
    def block(self, stmts) -> None:
        for stmt in stmts:
            self.statement(stmt)

    def statement(self, s) -> None:
        self.source_line(s)
        method = getattr(self, "_" + type(s).__name__, None)
        if method is None:
            raise BackendError(f"statement {type(s).__name__} is not supported by the Kokkos backend",
                               getattr(s, "loc", None))
        method(s)

    def _ExprStmt(self, s) -> None:
        self.emit_line(self.expr.emit(s.value) + ";")

    def _Assign(self, s) -> None:
        target = s.target
        if isinstance(target, n.Name):
            self.assign_name(s, target.id, s.value)
        elif isinstance(target, n.TupleExpr):
            self.assign_tuple(s)
        elif isinstance(target, n.Index):
            lhs_t = self.expr.type_of(target)
            if not isinstance(lhs_t, ScalarType):
                raise BackendError("assignment to a slice must be lowered to loops before the Kokkos backend "
                                   "(lower-numpy)", s.loc)
            self.emit_line(f"{self.expr.emit(target)} = {self.expr.emit(s.value, lhs_t)};")
        else:
            raise BackendError(f"cannot assign to {target}", s.loc)

    def assign_name(self, s, name: str, value) -> None:
        t = self.type_of(name)
        lhs = self.name_text(name)
        if _allocation(value):
            self.allocate(s, name, value, t)
            return
        if name in self.rebound:
            self.emit_line(f"{lhs} = {self.expr.emit(value)};")
            base = view_base_name(value) if is_view_expr(value) else None
            if base in self.owners:  # keeps the viewed array alive as long as the name views it
                self.emit_line(f"{self.owners[name]} = {self.owners[base]};")
            return
        if isinstance(t, ArrayType):
            if not self.declares(s, name):
                raise BackendError(f"array variable {name!r} must be assigned once, before its uses", s.loc)
            self.emit_line(f"auto {lhs} = {self.expr.emit(value)};")
            return
        rhs = self.expr.emit(value, t)
        if self.declares(s, name):
            self.emit_line(f"{value_type(t)} {lhs} = {rhs};")
        else:
            self.emit_line(f"{lhs} = {rhs};")

    def assign_tuple(self, s) -> None:
        names = target_names(s.target)
        if (len(names) != len(s.target.elements) and isinstance(s.value, n.TupleExpr)
                and len(s.value.elements) == len(s.target.elements)
                and all(isinstance(e, (n.Name, n.Index)) for e in s.target.elements)):
            self.assign_elements(s)
            return
        if len(names) != len(s.target.elements):
            raise BackendError("nested tuple targets are not supported", s.loc)
        value = s.value
        if isinstance(value, n.Attribute) and value.attr == "shape":
            array = self.expr.operand(value.value)
            parts = [f"kpc::extent({array}, {k})" for k in range(len(names))]
            for name, part in zip(names, parts):
                self.store_scalar(s, name, part, INT64)
            return
        if isinstance(value, n.TupleExpr) and len(value.elements) == len(names):
            texts = [self.expr.emit(v, self.type_of(name)) for v, name in zip(value.elements, names)]
            if expr_names(value) & set(names):
                temps = []
                for name, text in zip(names, texts):
                    temp = f"kpc_tmp_{name}"
                    self.emit_line(f"const {value_type(self.type_of(name))} {temp} = {text};")
                    temps.append(temp)
                texts = temps
            for name, text in zip(names, texts):
                self.store_scalar(s, name, text, self.type_of(name))
            return
        self.regions += 1
        temp = f"kpc_tuple{self.regions}"
        self.emit_line(f"const auto {temp} = {self.expr.emit(value)};")
        for k, name in enumerate(names):
            self.store_scalar(s, name, f"std::get<{k}>({temp})", None)

    def assign_elements(self, s) -> None:
        """``t[b], t[b + 1] = t[b + 1], t[b]``: every value first (Python evaluates the right
        side whole), then each target from left to right."""
        self.regions += 1
        temps = []
        for k, (target, value) in enumerate(zip(s.target.elements, s.value.elements)):
            t = self.type_of(target.id) if isinstance(target, n.Name) else self.expr.type_of(target)
            if not isinstance(t, ScalarType):
                raise BackendError("a tuple assignment may mix array elements only with scalars", s.loc)
            temp = f"kpc_tuple{self.regions}_{k}"
            self.emit_line(f"const {value_type(t)} {temp} = {self.expr.emit(value, t)};")
            temps.append((target, temp, t))
        for target, temp, t in temps:
            if isinstance(target, n.Name):
                self.store_scalar(s, target.id, temp, t)
            else:
                self.emit_line(f"{self.expr.emit(target)} = {temp};")

    def store_scalar(self, s, name, text, have) -> None:
        t = self.type_of(name)
        if have is not None and have != t:
            text = f"static_cast<{value_type(t)}>({text})"
        if self.declares(s, name):
            self.emit_line(f"{value_type(t)} {self.name_text(name)} = {text};")
        else:
            self.emit_line(f"{self.name_text(name)} = {text};")

    def allocate(self, s, name, call, t) -> None:
        if self.variant != "host" or self.in_region:
            self.allocate_scratch(s, name, call, t)
            return
        rebound = name in self.rebound
        if not (self.declares(s, name) or rebound) or not isinstance(t, ArrayType):
            raise BackendError(f"array {name!r} must be allocated once, before its uses", s.loc)
        func = call.func.replace("numpy.", "np.")
        args = list(call.args)
        if func.endswith("_like"):
            source = self.expr.operand(args[0])
            shape = [f"kpc::extent({source}, {k})" for k in range(t.ndim)]
        else:
            shape_expr = args[0] if args else call.kwargs.get("shape")
            if isinstance(shape_expr, n.TupleExpr):
                shape = [self.expr.emit(e, INT64) for e in shape_expr.elements]
            elif isinstance(shape_expr, n.Attribute) and shape_expr.attr == "shape":
                source = self.expr.operand(shape_expr.value)
                shape = [f"kpc::extent({source}, {k})" for k in range(t.ndim)]
            else:
                shape = [self.expr.emit(shape_expr, INT64)]
        ct = scalar_type(t.dtype)
        owner = f"kpc_own_{name}"
        lhs = self.name_text(name)
        declare = "" if rebound else "auto "  # a rebound name: declared at the top (rebound_arrays)
        self.emit_line(f"{declare}{owner} = kpc::empty<{ct}, {t.ndim}>({{{', '.join(shape)}}});")
        self.emit_line(f"{declare}{lhs} = kpc::view_of_array<{ct}, {t.ndim}, Kokkos::LayoutRight>({owner});")
        fill = None
        if func in ("np.zeros", "np.zeros_like"):
            fill = literal(0, t.dtype)
        elif func in ("np.ones", "np.ones_like"):
            fill = literal(1, t.dtype)
        elif func in ("np.full", "np.full_like"):
            fill = self.expr.emit(args[1] if len(args) > 1 else call.kwargs["fill_value"], t.dtype)
        if fill is not None:
            self.emit_line(f"Kokkos::deep_copy({lhs}, {fill});")
        self.owners[name] = owner

    def allocate_scratch(self, s, name, call, t) -> None:
        """An array allocated inside a parallel loop (or in a device function) with a constant
        shape of at most ``SCRATCH_ELEMENTS`` elements: a C array on the thread's stack, one per
        iteration, seen through an unmanaged view (so it works on the GPU too)."""
        func = call.func.replace("numpy.", "np.")
        shape_expr = call.args[0] if call.args else call.kwargs.get("shape")
        elements = shape_expr.elements if isinstance(shape_expr, n.TupleExpr) else [shape_expr]
        extents = [_constant_int(e) for e in elements]
        where = "inside a parallel loop" if self.in_region else "in a function called from a kernel"
        if (None in extents and not func.endswith("_like") and isinstance(t, ArrayType) and len(extents) == t.ndim
                and self.in_region and self.variant == "host" and self.unit.space != "cuda"
                and not expr_names(elements) & self.region_stores):
            self.allocate_pooled(s, name, call, t, elements)
            return
        if func.endswith("_like") or None in extents or not isinstance(t, ArrayType) or len(extents) != t.ndim:
            raise BackendError(f"an array allocated {where} needs a constant shape (np.zeros(3), "
                               f"np.empty((2, 4))), or, on a host space, a shape the loop does not change",
                               s.loc)
        size = 1
        for extent in extents:
            size *= extent
        if not 0 < size <= SCRATCH_ELEMENTS:
            raise BackendError(f"an array allocated {where} may have 1 to {SCRATCH_ELEMENTS} elements (it lives "
                               f"on the thread's stack), not {size}: allocate it before the loop", s.loc)
        if not self.declares(s, name):
            raise BackendError(f"array {name!r} must be allocated once, before its uses", s.loc)
        ct = scalar_type(t.dtype)
        lhs = self.name_text(name)
        buffer = f"kpc_scratch_{identifier(name)}"
        self.emit_line(f"{ct} {buffer}[{size}];")
        dims = "*" * t.ndim
        self.emit_line(f"Kokkos::View<{ct}{dims}, Kokkos::LayoutRight, Kokkos::MemoryTraits<Kokkos::Unmanaged>> "
                       f"{lhs}({buffer}, {', '.join(map(str, extents))});")
        fill = self.fill_value(func, call, t)
        if fill is not None:
            self.emit_line(f"for (int kpc_k = 0; kpc_k < {size}; ++kpc_k) {buffer}[kpc_k] = {fill};")

    def allocate_pooled(self, s, name, call, t, elements) -> None:
        """An array allocated inside a parallel loop with a shape the loop does not change: one
        block per thread, allocated before the region (``kpc_pool<k>_<name>``: threads x size),
        and each iteration takes the block of the token it holds (``kpc::token_slot``)."""
        if not self.declares(s, name):
            raise BackendError(f"array {name!r} must be allocated once, before its uses", s.loc)
        func = call.func.replace("numpy.", "np.")
        ct = scalar_type(t.dtype)
        tag = f"{self.region_index}_{identifier(name)}"  # the same when the body is emitted twice
        extents = [f"kpc_extent{tag}_{d}" for d in range(t.ndim)]
        size = " * ".join(extents)
        setup = [f"const int64_t {e} = kpc::max<int64_t>(0, {self.expr.emit(x, INT64)});"
                 for e, x in zip(extents, elements)]
        setup += [f"const Kokkos::Experimental::UniqueToken<kpc_exec_space> kpc_token{tag};",
                  f"const Kokkos::View<{ct}*, kpc_exec_space::memory_space> kpc_pool{tag}("
                  f"Kokkos::view_alloc(Kokkos::WithoutInitializing, \"kpc_pool\"), "
                  f"static_cast<size_t>(kpc_token{tag}.size()) * static_cast<size_t>({size}));"]
        self.region_pools[name] = setup
        lhs = self.name_text(name)
        dims = "*" * t.ndim
        self.emit_line(f"const kpc::token_slot<Kokkos::Experimental::UniqueToken<kpc_exec_space>> "
                       f"kpc_slot{tag}(kpc_token{tag});")
        self.emit_line(f"Kokkos::View<{ct}{dims}, Kokkos::LayoutRight, Kokkos::MemoryTraits<Kokkos::Unmanaged>> "
                       f"{lhs}(kpc_pool{tag}.data() + static_cast<size_t>(kpc_slot{tag}.id) * ({size}), "
                       f"{', '.join(extents)});")
        fill = self.fill_value(func, call, t)
        if fill is not None:
            self.emit_line(f"for (int64_t kpc_k = 0; kpc_k < {size}; ++kpc_k) {lhs}.data()[kpc_k] = {fill};")

    def fill_value(self, func: str, call, t):
        """The C++ value an allocation inside a parallel loop starts with (np.zeros, np.ones,
        np.full), or None for np.empty."""
        if func == "np.full":
            return self.expr.emit(call.args[1] if len(call.args) > 1 else call.kwargs["fill_value"], t.dtype)
        return {"np.zeros": literal(0, t.dtype), "np.ones": literal(1, t.dtype)}.get(func)

    def _AugAssign(self, s) -> None:
        target = s.target
        lhs_t = self.expr.type_of(target) if not isinstance(target, n.Name) else self.type_of(target.id)
        value_t = self.expr.type_of(s.value)
        if not isinstance(lhs_t, ScalarType):
            raise BackendError("augmented assignment to an array must be lowered to loops before the Kokkos "
                               "backend (lower-numpy)", s.loc)
        lhs = self.expr.emit(target)
        if s.atomic and isinstance(target, n.Index) and getattr(target.base, "id", None) in self.scatter_access:
            self.scatter_update(s, lhs, lhs_t)
            return
        if s.atomic and (self.in_region or self.variant == "device") and self.unit.space != "serial":
            # Kokkos' atomics deduce one type from both arguments: the value must have the element's.
            value = self.expr.emit(s.value, lhs_t)
            if isinstance(s.value, (n.Const, n.GlobalConst)):
                value = f"static_cast<{scalar_type(lhs_t)}>({value})"
            if s.op in ATOMICS:
                self.emit_line(f"{ATOMICS[s.op]}(&{lhs}, {value});")
                return
            if s.op == "*":
                self.emit_line(f"Kokkos::atomic_fetch_mul(&{lhs}, {value});")
                return
            raise BackendError(f"atomic {s.op}= is not supported", s.loc)
        result_t = _result_type(s.op, lhs_t, value_t)
        if result_t == lhs_t and s.op in ("+", "-", "*", "&", "|", "^", "<<", ">>") and not lhs_t.is_bool:
            self.emit_line(f"{lhs} {s.op}= {self.expr.emit(s.value, lhs_t)};")
            return
        combined = n.BinOp(s.op, target, s.value, type=result_t, loc=s.loc, checked=s.checked)
        self.emit_line(f"{lhs} = {self.expr.emit(combined, lhs_t)};")

    def scatter_update(self, s, lhs: str, lhs_t) -> None:
        """``a[k] += v`` on this thread's copy of ``a``: ``lhs`` is ``a(k)``, the access is ``kpc_access..(k)``."""
        base = self.name_text(s.target.base.id)
        if not lhs.startswith(base + "("):
            raise BackendError(f"scatter update of {lhs} is not an element of {base}", s.loc)
        access = self.scatter_access[s.target.base.id] + lhs[len(base):]
        self.emit_line(f"{access} {s.op}= {self.expr.emit(s.value, lhs_t)};")

    def _If(self, s) -> None:
        self.emit_line(f"if ({self.expr.emit(s.test, BOOL)}) {{")
        self.nested(s.body)
        orelse = s.orelse
        while len(orelse) == 1 and isinstance(orelse[0], n.If):
            self.emit_line(f"}} else if ({self.expr.emit(orelse[0].test, BOOL)}) {{")
            self.nested(orelse[0].body)
            orelse = orelse[0].orelse
        if orelse:
            self.emit_line("} else {")
            self.nested(orelse)
        self.emit_line("}")

    def nested(self, body) -> None:
        self.depth += 1
        self.last_line = None
        self.block(body)
        self.depth -= 1

    def _While(self, s) -> None:
        self.emit_line(f"while ({self.expr.emit(s.test, BOOL)}) {{")
        self.region_loop_depth += 1
        self.nested(s.body)
        self.region_loop_depth -= 1
        self.emit_line("}")

    def _Break(self, s) -> None:
        if self.in_region and self.region_loop_depth == 0:
            raise BackendError("break out of a parallel loop is not supported", s.loc)
        self.emit_line("break;")

    def _Continue(self, s) -> None:
        if self.in_region and self.region_loop_depth == 0:
            self.emit_line("return;  // continue: next iteration of the parallel loop")
            return
        self.emit_line("continue;")

    def _Return(self, s) -> None:
        if self.in_region:
            raise BackendError("return from inside a parallel loop is not supported", s.loc)
        t = self.function.return_type
        if s.value is None or isinstance(t, NoneType):
            if self.returns_python_objects():
                self.emit_line("return kpc::none();")
            else:
                self.emit_line("return;")
            return
        if self.returns_python_objects():
            self.emit_line(f"return {self.python_value(s.value, t)};")
            return
        if isinstance(t, TupleType):
            elements = s.value.elements if isinstance(s.value, n.TupleExpr) else None
            if elements is not None and len(elements) == len(t.elements):
                inner = ", ".join(self.expr.emit(e, et) for e, et in zip(elements, t.elements))
                self.emit_line(f"return {value_type(t)}({inner});")
                return
            self.emit_line(f"return {self.expr.emit(s.value)};")
            return
        self.emit_line(f"return {self.expr.emit(s.value, t)};")

    def owned_arrays(self, name: str) -> list | None:
        """The arrays (parameters, allocations) whose memory ``name`` may hold when bound only
        to whole arrays (``u, v = v, u``); None when it may hold part of one (``u = a[1:]``)."""
        roots = view_roots(self.function).get(name, {name})
        bindings = name_bindings(self.function)
        reach, changed = {name}, True  # the names whose value ``name`` may take (u = v, swaps)
        while changed:
            changed = False
            for target, value in bindings:
                if target.id in reach and isinstance(value, n.Name) and value.id not in reach:
                    reach.add(value.id)
                    changed = True
        for target, value in bindings:  # another name viewing part of it (row = out[r]) is no matter
            if target.id in reach and isinstance(target.type, ArrayType) and is_view_expr(value) \
                    and not isinstance(value, n.Name):
                return None
        return sorted(roots)

    def python_value(self, expr, t) -> str:
        """A returned value as a Python object: arrays are the NumPy arrays that own them."""
        if isinstance(t, ArrayType):
            owned = self.owned_arrays(expr.id) if isinstance(expr, n.Name) else None
            if owned and expr.id in self.rebound and all(name in self.owners for name in owned):
                return self.owners[expr.id]  # the array its last binding viewed (rebound_arrays)
            if owned and len(owned) == 1 and owned[0] in self.owners:
                return self.owners[owned[0]]  # the array itself, or a name bound only to it (``e = edges``)
            if owned and len(owned) > 1 and all(name in self.owners for name in owned):
                # Names that swap views (``u, v = v, u``): the array whose memory it holds now.
                owners = ", ".join(self.owners[name] for name in owned)
                return f"kpc::owner_of({self.name_text(expr.id)}, {{{owners}}})"
            raise BackendError("kpc can return an array only when it is a parameter or an array the kernel "
                               "allocated", getattr(expr, "loc", None))
        if isinstance(t, TupleType):
            if not isinstance(expr, n.TupleExpr):
                raise BackendError("a returned tuple holding arrays must be written as a tuple display",
                                   getattr(expr, "loc", None))
            inner = ", ".join(self.python_value(e, et) for e, et in zip(expr.elements, t.elements))
            return f"kpc::make_tuple({inner})"
        return f"kpc::box({self.expr.emit(expr, t)})"

    # ------------------------------------------------------------ loops
    def _For(self, s) -> None:
        if self.is_region(s) and not self.in_region:
            self.region(s)
            return
        self.serial_for(s)

    def serial_for(self, s) -> None:
        var = s.var.id
        t = self.type_of(var) if var in self.types else INT64
        ct = value_type(t) if isinstance(t, ScalarType) else "int64_t"
        start = self.expr.emit(s.start, t)
        stop_text = self.expr.emit(s.stop, t)
        stores = assigned_names(s.body)
        if expr_names(s.stop) & stores:
            self.regions += 1
            stop = f"kpc_stop{self.regions}"
            self.emit_line(f"const {ct} {stop} = {stop_text};")
        else:
            stop = stop_text
        step_value = s.step.value if isinstance(s.step, n.Const) else None
        declared_here = id(s) in self.plan.for_init
        counter = self.name_text(var) if declared_here else f"kpc_{var}"
        init = f"{ct} {counter} = {start}"
        if isinstance(step_value, int) and step_value != 0:
            cond = f"{counter} {'<' if step_value > 0 else '>'} {stop}"
            inc = f"++{counter}" if step_value == 1 else (f"--{counter}" if step_value == -1
                                                          else f"{counter} += {step_value}")
        else:
            self.regions += 1
            step = f"kpc_step{self.regions}"
            self.emit_line(f"const {ct} {step} = {self.expr.emit(s.step, t)};")
            cond = f"({step} > 0 ? {counter} < {stop} : {counter} > {stop})"
            inc = f"{counter} += {step}"
        self.emit_line(f"for ({init}; {cond}; {inc}) {{")
        if not declared_here:
            self.emit_line(f"  {self.name_text(var)} = {counter};")
        self.region_loop_depth += 1
        self.nested(s.body)
        self.region_loop_depth -= 1
        self.emit_line("}")

    # ------------------------------------------------------------ parallel regions
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
        setup, lambda_params, prologue, counts, serial_loops = [], [], [], [], []
        begins, ends = [], []
        for d, l in enumerate(loops):
            var = identifier(l.var.id)
            t = self.type_of(l.var.id) if l.var.id in self.types else INT64
            step_value = l.step.value if isinstance(l.step, n.Const) else None
            start = self.expr.emit(l.start, INT64)
            stop = self.expr.emit(l.stop, INT64)
            suffix = f"{k}" if len(loops) == 1 else f"{k}_{d}"
            if step_value == 1:
                index = var
                setup.append(f"const int64_t kpc_begin{suffix} = {start};")
                setup.append(f"const int64_t kpc_end{suffix} = kpc::max<int64_t>(kpc_begin{suffix}, {stop});")
            else:
                index = f"kpc_k{suffix}"
                setup.append(f"const int64_t kpc_first{suffix} = {start};")
                setup.append(f"const int64_t kpc_step{suffix} = {self.expr.emit(l.step, INT64)};")
                setup.append(f"const int64_t kpc_begin{suffix} = 0;")
                setup.append(f"const int64_t kpc_end{suffix} = kpc::trip_count(kpc_first{suffix}, {stop}, "
                             f"kpc_step{suffix});")
                prologue.append(f"const int64_t {var} = kpc_first{suffix} + {index} * kpc_step{suffix};")
            if isinstance(t, ScalarType) and t != INT64 and index == var:
                raise BackendError(f"parallel loop variable of type {t} is not supported", l.loc)
            lambda_params.append(f"const int64_t {index}")
            begins.append(f"kpc_begin{suffix}")
            ends.append(f"kpc_end{suffix}")
            counts.append(f"(kpc_end{suffix} - kpc_begin{suffix})")
            serial_loops.append(f"for (int64_t {index} = kpc_begin{suffix}; {index} < kpc_end{suffix}; ++{index})")

        acc_type, scan_type, scan_var, combine = "", "", "", []
        saved_overrides = dict(self.overrides)
        if info.pattern == "reduce" and info.reductions:
            acc_type = f"{self.function.name}_acc{k}"
            for _, ct, field_, line in self.accumulator(acc_type, info.reductions, f"kpc_result{k}", loop.loc):
                prologue.append(f"{ct}& {field_} = kpc_acc.{field_};")
                combine.append(line)
            lambda_params.append(f"{acc_type}& kpc_acc")
            call_args = ", ".join(l.split()[-1] for l in lambda_params[:-1]) + f", kpc_result{k}"
            pattern = "reduce"
        elif info.pattern == "scan" and info.scan is not None:
            t = self.type_of(info.scan.var)
            scan_type = scalar_type(t)
            scan_var = identifier(info.scan.var)
            setup.append(f"const {scan_type} kpc_scan_init{k} = {scan_var};")
            lambda_params.append(f"{scan_type}& {scan_var}")
            lambda_params.append("const bool kpc_final")
            call_args = ", ".join(l.split()[-1] for l in lambda_params[:-2]) + f", kpc_total{k}, true"
            combine.append(f"{scan_var} = kpc_scan_init{k} + kpc_total{k};")
            pattern = "scan"
        else:
            call_args = ", ".join(l.split()[-1] for l in lambda_params)
            pattern = "for"

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
            scatter = self.scatter_region(loop, loops[-1].body, info, vars_, k, prologue, " * ".join(counts))
        self.overrides = saved_overrides
        for lines in self.region_pools.values():
            setup.extend(lines)
        self.region_pools = {}

        space = "kpc_exec_space"
        if len(loops) == 1:
            traits = [space]
            if info.schedule == "dynamic":
                traits.append("Kokkos::Schedule<Kokkos::Dynamic>")
            traits.append("Kokkos::IndexType<int64_t>")
            policy = f"Kokkos::RangePolicy<{', '.join(traits)}>({begins[0]}, {ends[0]})"
        else:
            policy = (f"Kokkos::MDRangePolicy<{space}, Kokkos::Rank<{len(loops)}>, Kokkos::IndexType<int64_t>>"
                      f"({{{', '.join(begins)}}}, {{{', '.join(ends)}}})")
        chunked = None
        # Not for regions whose iterations run loops of run-time trip count (Team regions among
        # them, and fold-triangular's pairs): chunks of at least 1024 such iterations would leave
        # a few hundred rows to one thread.
        long_iterations = info.policy == "Team" or bool(info.serial_work) or info.serial_below is None
        if (pattern == "reduce" and len(loops) == 1 and info.schedule != "dynamic" and self.unit.space != "cuda"
                and not long_iterations):
            chunked = {"begin": begins[0], "end": ends[0]}
        paired = None
        # Host spaces pair the iterations of a triangular region (ParallelInfo.paired) under a
        # static schedule: Schedule<Dynamic>'s work stealing cost ~15 us per launch on 16 threads,
        # more than the whole region at small sizes. CUDA ignores the schedule.
        if info.paired and len(loops) == 1 and pattern in ("for", "reduce") and self.unit.space != "cuda":
            paired = {"begin": begins[0], "end": ends[0]}
        copy = None
        if (len(loops) == 1 and pattern == "for" and not paired and info.policy == "Range"
                and self.unit.space != "cuda"):
            copy = self.element_copy(loops[0], begins[0], ends[0])
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
        def trip(bounds) -> str:
            return f"kpc::trip_count({', '.join(self.expr.emit(e, INT64) for e in bounds)})"

        paths = list(dict.fromkeys(" * ".join(trip(bounds) for bounds in path) for path in info.serial_work))
        trips = list(dict.fromkeys(trip(bounds) for path in info.serial_work for bounds in path))
        model = RegionModel(
            index=k, label=c_string(label), pattern=pattern, comment=comment, setup=setup, lambda_params=", ".join(lambda_params),
            prologue=prologue, body=body_lines, serial_loops=serial_loops, call_args=call_args,
            policy=policy, trip_count=" * ".join(counts), serial_below=info.serial_below or 0,
            work=f"kpc::max_of({{{', '.join(paths)}}})" if len(paths) > 1 else "".join(paths),
            inner=f"kpc::max_of({{{', '.join(trips)}}})" if len(trips) > 1 else "".join(trips),
            acc_type=acc_type, scan_type=scan_type, combine=combine, scatter=scatter, chunked=chunked, team=team,
            paired=paired, copy=copy,
        )
        text = self.render_region(model)
        for line in text.splitlines():
            if line.startswith("#line"):
                self.lines.append(line)
            else:
                self.emit_line(line)
        self.last_line = None

    def element_copy(self, loop, begin: str, end: str):
        """``{"dst", "src", "type", "begin", "end"}`` when the region's body is only ``dst[i] = src[i]``
        (``i`` the loop's variable, unit step) between two C-contiguous 1-D arrays of one dtype, else
        None. Such a loop runs as ``memmove`` per thread's block, as Numba's compiles to ``memcpy``
        (glibc moves large blocks with non-temporal stores: 16 threads copied 10^7 doubles at 185 GB/s
        through the cache where Numba reached 213)."""
        if len(loop.body) != 1 or not (isinstance(loop.step, n.Const) and loop.step.value == 1):
            return None
        stmt = loop.body[0]
        if not (isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Index) and isinstance(stmt.value, n.Index)):
            return None
        names = []
        for access in (stmt.target, stmt.value):
            if not (isinstance(access.base, n.Name) and len(access.indices) == 1 and isinstance(access.indices[0], n.Name)
                    and access.indices[0].id == loop.var.id):
                return None
            names.append(access.base.id)
        dst, src = names
        types = [self.types.get(name) for name in names]
        if dst == src or not all(isinstance(t, ArrayType) and t.ndim == 1 and t.layout == "C" for t in types):
            return None
        if types[0].dtype != types[1].dtype or types[0].readonly:
            return None
        return {"dst": self.name_text(dst), "src": self.name_text(src), "type": value_type(types[0].dtype),
                "begin": begin, "end": end}

    def accumulator(self, acc_type: str, reductions: list, result: str, loc) -> list:
        """Declare the struct ``acc_type`` holding ``reductions``; ``(var, C++ type, field, line that
        combines the reduced value held in ``result`` into the variable)`` per reduction."""
        fields, parts = [], []
        for r in reductions:
            t = self.type_of(r.var)
            if r.op not in IDENTITY:
                raise BackendError(f"reduction operator {r.op!r} is not supported", loc)
            field_ = identifier(r.var)
            fields.append((scalar_type(t), field_, IDENTITY[r.op](t), _join(r.op, t, field_)))
            reduced = f"{result}.{field_}"
            if r.op == "sum":
                line = f"{field_} += {reduced};"
            elif r.op == "prod":
                line = f"{field_} *= {reduced};"
            else:
                line = f"{field_} = kpc::{r.op}<{scalar_type(t)}>({field_}, {reduced});"
            parts.append((r.var, scalar_type(t), field_, line))
        self.accumulators.append(AccumulatorModel(acc_type, fields))
        return parts

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

    def scan_body(self, body, var, k) -> None:
        """Statements of a scan: updates of the scan variable run in both passes; everything that
        writes memory runs only in the final pass, where the variable holds the prefix."""
        for stmt in body:
            is_update = isinstance(stmt, n.AugAssign) and isinstance(stmt.target, n.Name) and stmt.target.id == var
            if is_update or not _writes_memory(stmt):
                self.statement(stmt)
                continue
            self.overrides[var] = f"(kpc_scan_init{k} + {identifier(var)})"
            self.emit_line("if (kpc_final) {")
            self.depth += 1
            self.last_line = None
            self.statement(stmt)
            self.depth -= 1
            self.emit_line("}")
            del self.overrides[var]


def _writes_memory(stmt) -> bool:
    for node in n.walk(stmt):
        if isinstance(node, (n.Assign, n.AugAssign)) and isinstance(node.target, n.Index):
            return True
        if isinstance(node, n.Call) and node.kind == "kernel":
            return True
    return False


def _has_array(t) -> bool:
    if isinstance(t, ArrayType):
        return True
    if isinstance(t, TupleType):
        return any(_has_array(e) for e in t.elements)
    return False


def _result_type(op: str, a: ScalarType, b) -> ScalarType:
    if not isinstance(b, ScalarType):
        raise BackendError(f"cannot combine {a} with {b}")
    if op == "/":
        common = promote(a, b)
        return common if common.is_float else FLOAT64
    if op in ("<<", ">>", "&", "|", "^") and a.is_bool and b.is_bool:
        return BOOL
    return promote(a, b)


def _constant_int(expr):
    """The value of an integer literal or module constant, else None."""
    value = getattr(expr, "value", None) if isinstance(expr, (n.Const, n.GlobalConst)) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
