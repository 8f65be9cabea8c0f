"""C++ of the statements of a function or a region body: assignments, updates, branches, serial loops, returns."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.queries import assigned_names, expr_names, target_names
from kpc.ir.types import BOOL, FLOAT64, INT64, ArrayType, NoneType, ScalarType, TupleType, promote
from kpc.passes.aliasing import is_view_expr, view_base_name
from kpc.passes.one_thread_regions import ONE_THREAD

from .allocations import is_allocation
from .cxx import BackendError, c_string, identifier, scalar_type, value_type

ATOMICS = {"+": "Kokkos::atomic_add", "-": "Kokkos::atomic_sub"}


def _result_type(op: str, a: ScalarType, b) -> ScalarType:
    if not isinstance(b, ScalarType):
        raise BackendError(f"cannot combine {a} with {b}")
    if op == "/":
        common = promote(a, b)
        return common if common.is_float else FLOAT64
    if op in ("<<", ">>", "&", "|", "^") and a.is_bool and b.is_bool:
        return BOOL
    return promote(a, b)


class StatementEmitter:
    """The statements of a ``FunctionEmitter``, one method per IR statement (``_Assign``, ``_For``, ...)."""

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
        if is_allocation(value):
            self.allocate(s, name, value, t)
            return
        if name in self.rebound:
            self.emit_line(f"{lhs} = {self.expr.emit(value)};")
            base = view_base_name(value) if is_view_expr(value) else None
            if base in self.owners:  # keeps the viewed array alive as long as the name views it
                self.emit_line(f"{self.owners[name]} = {self.owners[base]};")
            return
        if isinstance(t, ArrayType):
            if self.rebinds_scratch(s, name, value):
                self.emit_line(f"{lhs} = {self.expr.emit(value)};")
                return
            if self.takes_heap_scratch(s, name, value):
                self.emit_line(f"{lhs} = {self.expr.emit(value)};")
                self.emit_line(f"kpc_heap_{identifier(name)}.take(kpc_heap_{identifier(value.id)});")
                return
            if not self.declares(s, name):
                raise BackendError(f"array variable {name!r} must be assigned once, before its uses", s.loc)
            self.emit_line(f"auto {lhs} = {self.expr.emit(value)};")
            base = view_base_name(value) if is_view_expr(value) else None
            if base in self.rebound and base in self.owners and not self.in_region:
                # ``x = h`` (an inlined callee's parameter) and then ``h = ...``: the new binding
                # releases h's array while x still views it; x keeps it alive.
                self.owners[name] = f"kpc_own_{name}"
                self.alias_owners.add(name)
                self.emit_line(f"kpc::object {self.owners[name]} = {self.owners[base]};")
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
        if (s.atomic and (self.in_region or self.variant == "device") and self.unit.space != "serial"
                and not self.plain_updates):
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

    def _Raise(self, s) -> None:
        # Host code throws, and the entry turns it into the Python exception Numba raises; the
        # statement's loop runs serially (dependence). Inside a region or a device function
        # there is nothing to unwind to, so those stay Numba.
        if self.in_region or self.variant == "device":
            raise BackendError(f"raise {s.exception} inside a parallel loop, or in a function called from "
                               "one, is not supported", s.loc)
        message = f", {c_string(s.message)}" if s.has_message else ""
        self.emit_line(f'throw kpc::exception("builtins", "{s.exception}"{message});')

    # ------------------------------------------------------------ loops
    def _For(self, s) -> None:
        if s.parallel is not None and s.parallel.host_form == ONE_THREAD and not (
                self.unit.space == "cuda" and self.is_region(s) and not self.in_region):
            self.block(s.body)  # a one-thread region runs in place but on CUDA (one-thread-regions)
            return
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
