"""IR statements -> PyKokkos device statements: assignments, stores, loops, branches and returns.

``DeviceStatements.body(stmts)`` emits the lines of a block. A local is declared once with
its annotation (inline in the outermost block, hoisted otherwise); ``a, b = b, a`` goes
through temporaries; subviews are standalone assignments to fresh names; a reduction
variable only accumulates, and in a scan only the final pass stores; ``x = min(x, e)``
becomes a comparison that keeps ``x`` on ties, as Python's ``min`` does.

>>> from kpc.ir import nodes as n
>>> from kpc.ir.types import INT64, ArrayType, ScalarType
>>> from kpc.backend.pykokkos.device import DeviceCode, NameAllocator
>>> f64 = ScalarType("float64")
>>> x, i, m = n.Name("x", ArrayType(f64, 1, "C")), n.Name("i", INT64), n.Name("m", f64)
>>> smallest = n.Call("min", [m, n.Index(x, [i], type=f64)], kind="builtin", type=f64)
>>> body = [n.Assign(m, n.Index(x, [n.Const(0)], type=f64)),
...         n.For(i, n.Const(1), n.Call("len", [x], kind="builtin", type=INT64), n.Const(1),
...               [n.Assign(m, smallest)]),
...         n.Return(m)]
>>> f = n.Function("smallest", [n.Param("x", x.type)], body, f64, locals={"m": f64, "i": INT64})
>>> code = DeviceCode(f, "function", {}, NameAllocator({"x", "i", "m"}))
>>> code.add_view_param("x", x.type)
>>> code.body(f.body)
>>> for depth, line in code.lines:
...     print("    " * depth + line)
m: pk.double = x[0]
for i in range(1, x_shape0):
    if x[i] < m:
        m = x[i]
return m
"""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.intrinsics import EMPTY_REDUCTION_ERRORS, VALUE_ERRORS
from kpc.ir.queries import expr_names
from kpc.ir.types import INT64, UNKNOWN, ArrayType, TupleType

from . import spelling
from .device_expressions import ViewInfo, is_simple, scalar_type
from .effects import names_bound
from .unsupported import Unsupported, loc_of

_ATOMIC_OPS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "&": "and", "|": "or", "^": "xor"}


class DeviceStatements:
    """Lowers statements, as the other half of ``DeviceCode`` (device.py): uses its state
    (``views``, ``names``, ``acc``, ``scan``, ``loops``, ``bounds``) and its output helpers (``emit``,
    ``block``, ``declare``, ``temp``) and expressions (``expr``)."""

    def body(self, stmts: list) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, s) -> None:
        method = getattr(self, f"_s_{type(s).__name__}", None)
        if method is None:
            raise Unsupported(f"{type(s).__name__} statement in device code", loc_of(s))
        method(s)

    def _s_Assign(self, s):
        target, value = s.target, s.value
        if isinstance(target, n.TupleExpr):
            return self._tuple_assign(s)
        if isinstance(target, n.Index):
            return self._store(target, value, s)
        if not isinstance(target, n.Name):
            raise Unsupported(f"assignment to '{target}'", loc_of(s))
        if isinstance(getattr(value, "type", None), ArrayType) or (
            isinstance(value, n.Index) and isinstance(value.base, n.Name) and value.base.id in self.views
            and (len(value.indices) < self.views[value.base.id].type.ndim
                 or any(isinstance(i, n.Slice) for i in value.indices))
        ):
            return self._subview(target, value, s)
        if target.id == self.acc:
            return self._acc_update(s)
        if target.id in self.scalars:
            raise Unsupported(f"assignment to parameter '{target.id}'", loc_of(s))
        if target.id in self.loop_vars:
            raise Unsupported(f"assignment to loop variable '{target.id}'", loc_of(s),
                              "C++ would change the iteration, Python does not")
        ty = self.local_type(target.id, target)
        pk_name = self.name(target.id)
        if self._min_max_update(target, value, pk_name):
            return
        if isinstance(value, n.IfExp):
            self.declare(pk_name, ty, None)
            self.referenced.add(pk_name)
            self._select(value, lambda text: f"{pk_name} = {text}")
            return
        if isinstance(value, n.Cast) and value.to == ty and ty.is_int:
            # The annotated local converts on assignment (truncation toward zero, like int()).
            value = value.value
        text = self.expr(value)
        self.declare(pk_name, ty, text)
        self.referenced.add(pk_name)

    def _select(self, value, write) -> None:
        """``target = a if c else b`` as an if/else that writes the target in each branch."""
        self.emit(f"if {self.expr(value.test)}:")
        for branch in (value.body, value.orelse):
            with self.block():
                if isinstance(branch, n.IfExp):
                    self._select(branch, write)
                else:
                    self.emit(write(self.expr(branch)))
            if branch is value.body:
                self.emit("else:")

    def _min_max_update(self, target, value, pk_name) -> bool:
        """``x = min(x, e)`` -> ``if e < x: x = e`` (Python's min keeps x on ties)."""
        if not (isinstance(value, n.Call) and value.kind == "builtin" and value.func in ("min", "max")
                and len(value.args) == 2 and isinstance(value.args[0], n.Name)
                and value.args[0].id == target.id and pk_name in self.declared):
            return False
        other = value.args[1]
        text = self.expr(other) if is_simple(other) else self.temp("candidate", scalar_type(other), self.expr(other))
        self.emit(f"if {text} {'<' if value.func == 'min' else '>'} {pk_name}:")
        with self.block():
            self.emit(f"{pk_name} = {text}")
        return True

    def _acc_update(self, s):
        value = s.value
        if isinstance(value, n.BinOp) and value.op in ("+", "-") and isinstance(value.left, n.Name) \
                and value.left.id == self.acc:
            self.emit(f"{self.name(self.acc)} {value.op}= {self.expr(value.right)}")
            return
        if isinstance(value, n.BinOp) and value.op == "+" and isinstance(value.right, n.Name) \
                and value.right.id == self.acc:
            self.emit(f"{self.name(self.acc)} += {self.expr(value.left)}")
            return
        raise Unsupported(f"update of reduction variable '{self.acc}' that is not a sum", loc_of(s),
                          "PyKokkos joins accumulators with + from 0")

    def _tuple_assign(self, s):
        targets, value = s.target.elements, s.value
        if isinstance(value, n.Attribute) and value.attr == "shape" and isinstance(value.value, n.Name):
            values = [n.Index(value, [n.Const(d)], type=INT64) for d in range(len(targets))]
        elif isinstance(value, n.TupleExpr) and len(value.elements) == len(targets):
            values = value.elements
        elif isinstance(value, n.Call) and value.kind == "kernel":
            return self._unpack_call(targets, value, s)
        else:
            raise Unsupported("tuple unpacking of a call result", loc_of(s), "PyKokkos has no tuples")
        pairs = [(t, v) for t, v in zip(targets, values)
                 if not (isinstance(t, n.Name) and t.id not in self.loaded)]
        written = {t.id for t, _ in pairs if isinstance(t, n.Name)}
        # an element store writes its array: `v[i], v[j] = v[j], v[i]` reads v after it
        written |= {t.base.id for t, _ in pairs if isinstance(t, n.Index) and isinstance(t.base, n.Name)}
        read = expr_names([v for _, v in pairs])
        if not written & read:
            for t, v in pairs:
                self._s_Assign(n.Assign(t, v, s.loc))
            return
        # `a, b = b, a`: evaluate every value before assigning any target.
        staged = [(t, self.temp("swap", scalar_type(v), self.expr(v))) for t, v in pairs]
        for t, text in staged:
            if isinstance(t, n.Name):
                self.declare(self.name(t.id), self.local_type(t.id, t), text)
            else:
                self._guarded(f"{self.expr(t)} = {text}")

    def _unpack_call(self, targets, call, s):
        """``a, b = f(x)`` -> ``a = f_0(x)``, ``b = f_1(x)``: one scalar @pk.function per element."""
        returns = getattr(call, "type", UNKNOWN)
        if not isinstance(returns, TupleType) or len(returns.elements) != len(targets):
            raise Unsupported(f"unpacking the result of '{call.func}'", loc_of(s), "arity or type unknown")
        pairs = [(t, k) for k, t in enumerate(targets) if not (isinstance(t, n.Name) and t.id not in self.loaded)]
        written = {t.id for t, _ in pairs if isinstance(t, n.Name)}
        read = expr_names(call.args)
        texts = []
        for t, k in pairs:
            text = self._call_kernel(call, element=k)
            if written & read:
                # `a, b = f(a, b)`: every call sees the old values.
                text = self.temp("part", returns.elements[k], text)
            texts.append((t, text))
        for t, text in texts:
            if isinstance(t, n.Name):
                self.declare(self.name(t.id), self.local_type(t.id, t), text)
            else:
                self._guarded(f"{self.expr(t)} = {text}")

    def _store(self, target, value, s):
        info = self._view(target.base)
        if len(target.indices) != info.type.ndim or any(isinstance(i, n.Slice) for i in target.indices):
            raise Unsupported(f"slice assignment '{target} = ...'", loc_of(s), "array-level code needs lower-numpy")
        if isinstance(value, n.IfExp) and not self.scan:
            lhs = self.expr(target)
            self._select(value, lambda text: f"{lhs} = {text}")
            return
        text = self.expr(value)
        lhs = self.expr(target)
        self._guarded(f"{lhs} = {text}")

    def _guarded(self, line: str) -> None:
        """A store: in a scan, only the final pass writes."""
        if self.scan:
            self.emit("if final:")
            with self.block():
                self.emit(line)
        else:
            self.emit(line)

    def _s_AugAssign(self, s):
        target, op = s.target, s.op
        if isinstance(target, n.Name):
            if target.id == self.acc:
                if op not in ("+", "-"):
                    raise Unsupported(f"'{op}=' on reduction variable '{target.id}'", loc_of(s),
                                      "PyKokkos reductions are sums")
                self.emit(f"{self.name(self.acc)} {op}= {self.expr(s.value)}")
                return
            if target.id in self.scalars:
                raise Unsupported(f"assignment to parameter '{target.id}'", loc_of(s))
            if target.id in self.loop_vars:
                raise Unsupported(f"assignment to loop variable '{target.id}'", loc_of(s))
            if op in ("//", "%", "**", "@"):
                ty = self.local_type(target.id, target)
                return self._s_Assign(n.Assign(target, n.BinOp(op, target, s.value, type=ty, loc=s.loc), s.loc))
            if target.id not in self.names and self.name(target.id) not in self.declared:
                raise Unsupported(f"'{op}=' on '{target.id}' before it is assigned", loc_of(s))
            self.emit(f"{self.name(target.id)} {op}= {self.expr(s.value)}")
            return
        if not isinstance(target, n.Index):
            raise Unsupported(f"augmented assignment to '{target}'", loc_of(s))
        info = self._view(target.base)
        if len(target.indices) != info.type.ndim or any(isinstance(i, n.Slice) for i in target.indices):
            raise Unsupported(f"slice update '{target} {op}= ...'", loc_of(s), "array-level code needs lower-numpy")
        if s.atomic:
            return self._atomic(target, op, s)
        if op in ("//", "%", "**"):
            element_type = info.type.dtype
            value = n.BinOp(op, target, s.value, type=scalar_type(target, element_type), loc=s.loc)
            return self._store(target, value, s)
        value = self.expr(s.value)
        self._guarded(f"{self.expr(target)} {op}= {value}")

    def _atomic(self, target, op, s):
        if op not in _ATOMIC_OPS:
            raise Unsupported(f"atomic '{op}='", loc_of(s))
        value = self.expr(s.value)
        indices = [self._index(target.base.id, d, i) for d, i in enumerate(target.indices)]
        view = self.name(target.base.id)
        self.referenced.add(view)
        if op == "+" and self.kind == "workunit":
            call = f"pk.atomic_add({view}, [{', '.join(indices)}], {value})"
        else:
            # atomic_add is not accepted inside @pk.function (contract §6).
            call = f"pk.atomic_fetch_{_ATOMIC_OPS[op]}({view}, [{', '.join(indices)}], {value})"
        self._guarded(call)

    def _subview(self, target, value, s):
        if isinstance(value, n.Name) and value.id in self.views:
            if self.counts.get(target.id, 0) != 1:
                raise Unsupported(f"array name '{target.id}' rebound", loc_of(s))
            self.views[target.id] = self.views[value.id]
            self.names[target.id] = self.name(value.id)
            return
        if not isinstance(value, n.Index) or not isinstance(value.base, n.Name) or value.base.id not in self.views:
            raise Unsupported(f"array-valued expression '{value}' in device code", loc_of(s),
                              "array-level NumPy needs the lower-numpy pass")
        if self.counts.get(target.id, 0) != 1:
            raise Unsupported(f"subview name '{target.id}' assigned more than once", loc_of(s),
                              "PyKokkos: 'Redeclaration of existing subview'")
        parent = self.views[value.base.id]
        if parent.type.ndim < 2:
            raise Unsupported(f"slice of the 1-d array '{value.base.id}'", loc_of(s), "PyKokkos rejects 1-D slices")
        indices = list(value.indices) + [n.Slice()] * (parent.type.ndim - len(value.indices))
        parts, dims, seen_slice, contiguous = [], [], False, parent.contiguous
        for d, idx in enumerate(indices):
            if isinstance(idx, n.Slice):
                if idx.step is not None:
                    raise Unsupported("subview with a step", loc_of(s))
                if idx.lower is None and idx.upper is None:
                    parts.append(":")
                    dims.append(("parent", value.base.id, d))
                else:
                    lo = self._slice_bound(value.base.id, d, idx.lower, "0")
                    hi = self._slice_bound(value.base.id, d, idx.upper, None)
                    parts.append(f"{lo}:{hi}")
                    dims.append(("text", f"({hi} - {lo})"))
                    contiguous = contiguous and not seen_slice
                seen_slice = True
            else:
                if seen_slice:
                    contiguous = False
                position = self._index(value.base.id, d, idx)
                if not _is_bare_name(position):
                    position = self.temp("row", INT64, position)
                parts.append(position)
        pk_name = self.name(target.id)
        info = ViewInfo(ArrayType(parent.type.dtype, len(dims), "C" if contiguous else "A"), "subview",
                        contiguous, dims)
        self.views[target.id] = info
        self.referenced.add(self.name(value.base.id))
        self.emit(f"{pk_name} = {self.name(value.base.id)}[{', '.join(parts)}]")

    def _slice_bound(self, view: str, dim: int, bound, default: str | None) -> str:
        if bound is None:
            return default if default is not None else self.extent(view, dim)
        if isinstance(bound, n.Const) and isinstance(bound.value, int):
            return str(bound.value) if bound.value >= 0 else f"{self.extent(view, dim)} - {-bound.value}"
        if isinstance(bound, n.Name) and self.counts.get(bound.id, 0) <= 1 and self.bounds.interval(bound).nonneg:
            return self.expr(bound)
        raise Unsupported(f"slice bound '{bound}'", loc_of(bound), "kpc needs a constant or a fixed non-negative name")

    def _s_For(self, s):
        if s.parallel is not None:
            raise Unsupported("parallel loop nested in a parallel region", loc_of(s),
                              "PyKokkos standalone workunits have no nested parallelism")
        step = s.step
        if isinstance(step, n.Const) and isinstance(step.value, int) and step.value != 0:
            step_text = spelling.literal(step.value)
        elif self.bounds.interval(step).positive:
            step_text = self.expr(step)
        else:
            raise Unsupported(f"range step '{step}' of unknown sign", loc_of(s),
                              "PyKokkos runs a variable negative step zero times")
        body_bound = names_bound(s.body)
        start = self.expr(s.start)
        stop = self.expr(s.stop)
        if any(isinstance(x, n.Name) and x.id in body_bound for x in n.walk(s.stop)):
            # Python evaluates the bound once, C++ on every iteration.
            stop = self.temp("stop", scalar_type(s.stop, INT64), stop)
        if isinstance(step, n.Const) and step.value == 1:
            args = stop if start == "0" else f"{start}, {stop}"
        else:
            args = f"{start}, {stop}, {step_text}"
        var = s.var.id
        self.emit(f"for {self.name(var)} in range({args}):")
        self.bounds.enter(s)
        self.int32.append(var)
        self.loops.append(s)
        with self.block():
            self.body(s.body)
            if not s.body:
                self.emit("pass")
        self.loops.pop()
        self.int32.pop()
        self.bounds.leave()

    def _s_While(self, s):
        with self.captured() as buffer:
            test = self.expr(s.test)
        self.loops.append(s)
        if not buffer:
            self.emit(f"while {test}:")
            with self.block():
                self.body(s.body)
        else:
            # The test needs statements: evaluate them on every iteration.
            self.emit("while True:")
            with self.block():
                self.insert(buffer)
                self.emit(f"if not ({test}):" if " " in test else f"if not {test}:")
                with self.block():
                    self.emit("break")
                self.body(s.body)
        self.loops.pop()

    def _s_If(self, s, keyword: str = "if", test: str | None = None):
        if test is None:
            test = self.expr(s.test)
        self.emit(f"{keyword} {test}:")
        with self.block():
            self.body(s.body)
            if not s.body:
                self.emit("pass")
        orelse = s.orelse
        if not orelse:
            return
        if len(orelse) == 1 and isinstance(orelse[0], n.If):
            with self.captured() as buffer:
                inner_test = self.expr(orelse[0].test)
            if not buffer:
                return self._s_If(orelse[0], "elif", inner_test)
            # The elif test needs statements: they go first in the else branch.
            self.emit("else:")
            with self.block():
                self.insert(buffer)
                self._s_If(orelse[0], "if", inner_test)
            return
        self.emit("else:")
        with self.block():
            self.body(orelse)

    def _s_Return(self, s):
        if self.kind == "function":
            if self.return_element is not None:
                if not isinstance(s.value, n.TupleExpr):
                    raise Unsupported("a tuple-returning function that returns a tuple variable", loc_of(s),
                                      "kpc splits `return a, b` into one @pk.function per element")
                self.emit(f"return {self.expr(s.value.elements[self.return_element])}")
                return
            if isinstance(s.value, n.IfExp):
                self._select(s.value, lambda text: f"return {text}")
                return
            self.emit("return" if s.value is None else f"return {self.expr(s.value)}")
            return
        if s.value is not None:
            raise Unsupported("return with a value inside a parallel loop", loc_of(s))
        self._end_iteration(s, "return")

    def _s_Continue(self, s):
        if self.kind == "workunit" and not self.loops:
            return self._end_iteration(s, "continue")
        self.emit("continue")

    def _end_iteration(self, s, what: str):
        """End this iteration of the parallel loop: ``return`` in a workunit, ``continue`` in a chunk loop."""
        if self.region_loop:
            if self.loops:
                raise Unsupported(f"{what} from inside an inner loop of a parallel reduction", loc_of(s))
            self.emit("continue")
        else:
            self.emit("return")

    def _s_Break(self, s):
        if self.kind == "workunit" and not self.loops:
            raise Unsupported("break out of a parallel loop", loc_of(s))
        self.emit("break")

    def _s_ExprStmt(self, s):
        value = s.value
        if isinstance(value, n.Const):
            return
        if isinstance(value, n.Call) and value.kind == "kernel":
            self._guarded(self._call_kernel(value))
            return
        if isinstance(value, n.Call) and value.kind == "builtin" and value.func == "value_check" \
                and VALUE_ERRORS[value.args[1].value] in EMPTY_REDUCTION_ERRORS.values():
            # A workunit cannot raise: the min/max of an empty array is its start value there (README).
            return
        raise Unsupported(f"expression statement '{value}' in device code", loc_of(s))


def _is_bare_name(text: str) -> bool:
    return text.isidentifier()
