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

from dataclasses import dataclass

from kpc.ir import nodes as n
from kpc.ir.queries import assigned_names, nested_bodies
from kpc.ir.types import ArrayType, DTypeType, TupleType, Type
from kpc.passes.aliasing import is_view_expr, name_bindings, view_roots

from . import analysis
from .allocations import AllocationEmitter, is_allocation
from .cxx import BackendError, c_string, identifier, scalar_type, value_type
from .expressions import ExprEmitter
from .reductions import CombinationEmitter
from .regions import RegionEmitter
from .statements import StatementEmitter


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


def _has_array(t) -> bool:
    if isinstance(t, ArrayType):
        return True
    if isinstance(t, TupleType):
        return any(_has_array(e) for e in t.elements)
    return False


class FunctionEmitter(StatementEmitter, AllocationEmitter, RegionEmitter, CombinationEmitter):
    """Emit one variant (``host`` or ``device``) of one IR function."""

    def __init__(self, unit, function: n.Function, variant: str, render_region):
        self.unit = unit
        self.function = function
        self.variant = variant
        self.render_region = render_region
        self.types = {p.name: p.type for p in function.params}
        self.types.update(function.locals)
        self.intervals = analysis.Intervals(function, unit.parameter_intervals.get(function.name))
        self.expr = ExprEmitter(self)
        self.lines: list = []
        self.depth = 1
        self.last_line = None
        self.overrides: dict = {}
        self.in_region = False
        # name -> setup lines of the per-thread pools of the region being emitted (allocate_scratch)
        self.region_pools: dict = {}
        self.region_stores: set = set()
        # arrays allocated inside regions and device functions: unmanaged views (allocate_scratch)
        self.scratch_views: set = set()
        # of those, the ones on the heap (allocate_heap), which a rebinding may hand over
        self.heap_views: set = set()
        self.region_index = 0
        self.region_loop_depth = 0
        self.owners: dict = {}
        self.alias_owners: set = set()  # names viewing a rebound array, holding its owner (assign_name)
        self.regions = 0
        self.accumulators: list = []
        self.scatter_access: dict = {}
        self.plain_updates = False  # emitting a region's serial arm: atomic updates print as plain ones
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
        self.swapped = set()  # parameters bound by tuple assignments: their owner is found by memory
        if self.variant != "host":
            return {}
        bindings: dict = {}
        params = {p.name for p in self.function.params}

        def visit(block) -> None:
            for stmt in block:
                if isinstance(stmt, n.For) and self.is_region(stmt):
                    for name in assigned_names([stmt]):
                        bindings.setdefault(name, []).append(None)  # bound in a region: not here
                    continue
                if isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name):
                    bindings.setdefault(stmt.target.id, []).append(stmt)
                elif isinstance(stmt, n.Assign) and isinstance(stmt.target, n.TupleExpr):
                    for target in stmt.target.elements:  # u, v = v, u of parameters binds both
                        if isinstance(target, n.Name) and target.id in params:
                            bindings.setdefault(target.id, []).append(stmt)
                            self.swapped.add(target.id)
                for nested in nested_bodies(stmt):
                    visit(nested)

        visit(self.function.body)
        rebound = {}
        for name, stmts in bindings.items():
            t = self.types.get(name)
            if not isinstance(t, ArrayType) or len(stmts) < (1 if name in params else 2) or None in stmts:
                continue
            values = [_bound_value(s, name) for s in stmts]
            allocates = name not in params and all(is_allocation(v) for v in values)
            # parameters and allocations swapped among C-contiguous arrays (a double buffer)
            # stay LayoutRight: their regions index without strides
            contiguous = name in self.swapped and t.layout == "C" and all(
                is_allocation(v) or isinstance(v, n.Name) and getattr(self.types.get(v.id), "layout", None) == "C"
                for v in values)
            layout = "Kokkos::LayoutRight" if allocates or contiguous else "Kokkos::LayoutStride"
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
            if isinstance(param.type, DTypeType):
                continue
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
            if isinstance(p.type, DTypeType):
                continue  # a dtype argument: propagate-constants put the dtype itself where it is read
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
            if owned and expr.id in self.alias_owners \
                    and sum(target.id == expr.id for target, _ in name_bindings(self.function)) == 1:
                return self.owners[expr.id]  # ``y = h`` once, h rebound later: the array y kept alive
            if owned and expr.id in self.rebound and expr.id not in self.swapped \
                    and all(name in self.owners for name in owned):
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


def _bound_value(stmt, name: str):
    """The value ``stmt`` binds to ``name``: its value, or for ``u, v = v, u`` the element of the
    tuple at the name's place (None when the value is not a tuple written out)."""
    if not isinstance(stmt.target, n.TupleExpr):
        return stmt.value
    if isinstance(stmt.value, n.TupleExpr) and len(stmt.value.elements) == len(stmt.target.elements):
        for target, value in zip(stmt.target.elements, stmt.value.elements):
            if isinstance(target, n.Name) and target.id == name:
                return value
    return None
