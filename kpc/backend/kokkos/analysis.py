"""Facts the Kokkos emitter needs about a function: which arrays it writes, which integer
expressions are provably non-negative, and where each local variable is declared.

Python locals live for the whole function; C++ variables live in a block. A local is
declared where it is first assigned when that assignment starts every use of it
(``acc = 0.0`` at the top of a loop body, then used only in that body), and at the
top of its scope otherwise, so a value that crosses loop iterations or branches is
kept exactly as Python keeps it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from kpc.ir import nodes as n
from kpc.ir.queries import assigned_names, expr_names, nested_bodies, stmt_defs, stmt_uses, target_names, used_names
from kpc.ir.types import ArrayType, ScalarType
from kpc.passes.aliasing import view_roots


# --------------------------------------------------------------------------- regions


def region_loops(loop: n.For) -> list:
    """The loops a parallel region collapses: the ``For`` itself, plus the nested ones of an MDRange."""
    loops = [loop]
    depth = loop.parallel.depth if loop.parallel and loop.parallel.policy == "MDRange" else 1
    while len(loops) < depth:
        body = loops[-1].body
        if len(body) != 1 or not isinstance(body[0], n.For):
            raise ValueError(f"MDRange of depth {depth} over loops that are not perfectly nested")
        loops.append(body[0])
    return loops


@dataclass
class RegionVars:
    """Variables of a parallel region: the lambda's index variables, the reduction (or
    scan) variables, the locals private to each iteration, and the captured names."""

    indices: list
    combined: list
    privates: list
    captures: list


def region_vars(loop: n.For) -> RegionVars:
    loops = region_loops(loop)
    body = loops[-1].body
    indices = [l.var.id for l in loops]
    info = loop.parallel
    combined = [r.var for r in info.reductions]
    if info.scan is not None:
        combined.append(info.scan.var)
    privates = sorted(assigned_names(body) - set(indices) - set(combined))
    reads = used_names(body) | expr_names([x for l in loops[1:] for x in (l.start, l.stop, l.step)])
    captures = sorted(reads - set(indices) - set(combined) - set(privates))
    return RegionVars(indices, combined, privates, captures)


def scatter_arrays(loop: n.For, types: dict) -> list:
    """Arrays that a parallel region only updates with atomic ``+=`` / ``-=`` of one element
    (``hist[idx[i]] += 1``), besides reading their shape: no iteration reads an element, so
    the updates may go to per-thread copies that are summed into the array after the region.

    >>> from kpc.ir.types import ArrayType, INT64
    >>> i, hist, idx = n.Name("i"), n.Name("hist"), n.Name("idx")
    >>> update = n.AugAssign(n.Index(hist, [n.Index(idx, [i])]), "+", n.Const(1), atomic=True)
    >>> loop = n.For(i, n.Const(0), n.Attribute(idx, "size"), n.Const(1), [update])
    >>> types = {"hist": ArrayType(INT64, 1, "C"), "idx": ArrayType(INT64, 1, "C")}
    >>> scatter_arrays(loop, types)
    ['hist']
    >>> loop.body.append(n.Assign(n.Index(idx, [i]), n.Index(hist, [i])))
    >>> scatter_arrays(loop, types)
    []
    """
    updates, other_uses = set(), set()

    def visit(node) -> None:
        if isinstance(node, n.Name):
            other_uses.add(node.id)
            return
        if isinstance(node, n.Attribute) and node.attr in ("shape", "size", "ndim") and isinstance(node.value, n.Name):
            return
        if isinstance(node, n.AugAssign) and _is_scatter_sum(node, types):
            updates.add(node.target.base.id)
            for child in node.target.indices + [node.value]:
                visit(child)
            return
        for child in n.children(node):
            visit(child)

    visit(loop)
    stored = assigned_names(loop.body)
    return sorted(updates - other_uses - stored)


def _is_scatter_sum(stmt: n.AugAssign, types: dict) -> bool:
    target = stmt.target
    if not (stmt.atomic and stmt.op in ("+", "-") and isinstance(target, n.Index) and isinstance(target.base, n.Name)):
        return False
    t = types.get(target.base.id)
    return (isinstance(t, ArrayType) and not t.dtype.is_bool and len(target.indices) == t.ndim
            and not any(isinstance(index, n.Slice) for index in target.indices))


# --------------------------------------------------------------------------- written arrays


def written_params(module) -> dict:
    """For every function, the parameters whose elements it writes (directly, through a
    subview held in a local, or through a callee), computed to a fixpoint over calls."""
    written = {name: set() for name in module.functions}
    changed = True
    while changed:
        changed = False
        for name, function in module.functions.items():
            roots = view_roots(function)  # src, dst = a, b; src, dst = dst, src: both view a, b
            found = set(written[name])
            for node in n.walk(function):
                target = None
                if isinstance(node, (n.Assign, n.AugAssign)) and isinstance(node.target, n.Index):
                    target = node.target.base
                if target is not None and isinstance(target, n.Name):
                    found |= roots.get(target.id, set())
                if isinstance(node, n.Call) and node.kind == "kernel" and node.func in module.functions:
                    callee = module.functions[node.func]
                    bound = list(zip(callee.params, node.args)) + [
                        (callee.param(k), v) for k, v in node.kwargs.items()
                    ]
                    for param, arg in bound:
                        if param.name in written[node.func]:
                            base = _base_name(arg)
                            if base is not None:
                                found |= roots.get(base, set())
            params = {p.name for p in function.params}
            found &= params
            if found != written[name]:
                written[name] = found
                changed = True
    return written


def _base_name(expr):
    while isinstance(expr, n.Index):
        expr = expr.base
    return expr.id if isinstance(expr, n.Name) else None


# --------------------------------------------------------------------------- intervals


@dataclass(frozen=True)
class Interval:
    lo: int | None = None
    hi: int | None = None

    @property
    def nonnegative(self) -> bool:
        return self.lo is not None and self.lo >= 0

    @property
    def positive(self) -> bool:
        return self.lo is not None and self.lo > 0


UNBOUNDED = Interval()


def _add(a, b):
    return None if a is None or b is None else a + b


class Intervals:
    """Integer ranges of expressions, from constants, array extents and range() loops.

    Flow-insensitive: a local contributes only when the function assigns it exactly
    once (loop variables are assigned by their ``for``), or only in ``for`` loops (the
    hull of their ranges), which is what indices of stencils and loop nests look like.

    >>> from kpc.ir.nodes import *
    >>> i = Name("i")
    >>> loop = For(i, Const(2), Name("n"), Const(1), [])
    >>> f = Function("f", [], [Assign(Name("n"), Const(10)), loop])
    >>> iv = Intervals(f)
    >>> iv.of(BinOp("-", Name("i"), Const(2))), iv.of(BinOp("-", Name("i"), Const(3))).nonnegative
    (Interval(lo=0, hi=7), False)
    >>> g = Function("g", [], [Assign(Name("n"), Const(10)), loop, For(i, Const(1), Const(4), Const(1), [])])
    >>> Intervals(g).of(Name("i"))
    Interval(lo=1, hi=9)
    """

    def __init__(self, function, params: dict | None = None):
        self.definitions: dict = {}
        counts: dict = {}
        loops: dict = {}
        for node in n.walk(function):
            if isinstance(node, n.For):
                counts[node.var.id] = counts.get(node.var.id, 0) + 1
                self.definitions[node.var.id] = node
                loops.setdefault(node.var.id, []).append(node)
            elif isinstance(node, (n.Assign, n.AugAssign)):
                for name in target_names(node.target):
                    counts[name] = counts.get(name, 0) + (1 if isinstance(node, n.Assign) else 2)
                    self.definitions[name] = node
        for p in function.params:
            counts[p.name] = counts.get(p.name, 0) + 2
        self.single = {name for name, count in counts.items() if count == 1}
        # names that only loops assign (``for i in range(1, n - 1)`` twice): within the hull of their ranges
        self.loops = {name: nodes for name, nodes in loops.items() if len(nodes) > 1 and counts[name] == len(nodes)}
        # parameters the body never assigns, with the ranges every call site gives them
        self.params = {name: interval for name, interval in (params or {}).items() if counts.get(name) == 2}
        self._cache: dict = {}
        self._active: set = set()

    def name(self, name: str) -> Interval:
        if name in self.params:
            return self.params[name]
        if (name not in self.single and name not in self.loops) or name in self._active:
            return UNBOUNDED
        if name in self._cache:
            return self._cache[name]
        self._active.add(name)
        try:
            if name in self.single:
                result = self._definition(name, self.definitions[name])
            else:
                result = functools.reduce(_hull, [self._definition(name, loop) for loop in self.loops[name]])
        finally:
            self._active.discard(name)
        self._cache[name] = result
        return result

    def _definition(self, name, node) -> Interval:
        if isinstance(node, n.For):
            step = node.step.value if isinstance(node.step, n.Const) else None
            if not isinstance(step, int) or step == 0:
                return UNBOUNDED
            start, stop = self.of(node.start), self.of(node.stop)
            if step > 0:
                return Interval(start.lo, None if stop.hi is None else stop.hi - 1)
            return Interval(None if stop.lo is None else stop.lo + 1, start.hi)
        if isinstance(node, n.Assign):
            if isinstance(node.target, n.Name):
                return self.of(node.value)
            if isinstance(node.target, n.TupleExpr):
                position = [getattr(e, "id", None) for e in node.target.elements].index(name)
                if isinstance(node.value, n.Attribute) and node.value.attr == "shape":
                    return Interval(0, None)
                if isinstance(node.value, n.TupleExpr) and len(node.value.elements) == len(node.target.elements):
                    return self.of(node.value.elements[position])
        return UNBOUNDED

    def of(self, expr) -> Interval:
        if isinstance(expr, n.Const) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
            return Interval(expr.value, expr.value)
        if isinstance(expr, n.GlobalConst) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
            return Interval(expr.value, expr.value)
        if isinstance(expr, n.Name):
            return self.name(expr.id)
        if isinstance(expr, n.Index) and isinstance(expr.base, n.Attribute) and expr.base.attr == "shape":
            return Interval(0, None)
        if isinstance(expr, n.Attribute) and expr.attr in ("size", "ndim"):
            return Interval(0, None)
        if isinstance(expr, n.Call) and expr.kind == "builtin" and expr.func == "len":
            return Interval(0, None)
        if isinstance(expr, n.Call) and expr.kind == "builtin" and expr.func in ("min", "max") and expr.args:
            parts = [self.of(a) for a in expr.args]
            if expr.func == "min":
                lo = None if any(p.lo is None for p in parts) else min(p.lo for p in parts)
                his = [p.hi for p in parts if p.hi is not None]
                return Interval(lo, min(his) if his else None)
            los = [p.lo for p in parts if p.lo is not None]
            hi = None if any(p.hi is None for p in parts) else max(p.hi for p in parts)
            return Interval(max(los) if los else None, hi)
        if isinstance(expr, n.IfExp):
            a, b = self.of(expr.body), self.of(expr.orelse)
            return Interval(None if a.lo is None or b.lo is None else min(a.lo, b.lo),
                            None if a.hi is None or b.hi is None else max(a.hi, b.hi))
        if isinstance(expr, n.UnaryOp) and expr.op == "-":
            inner = self.of(expr.operand)
            return Interval(None if inner.hi is None else -inner.hi, None if inner.lo is None else -inner.lo)
        if isinstance(expr, n.BinOp):
            a, b = self.of(expr.left), self.of(expr.right)
            if expr.op == "+":
                return Interval(_add(a.lo, b.lo), _add(a.hi, b.hi))
            if expr.op == "-":
                return Interval(_add(a.lo, None if b.hi is None else -b.hi), _add(a.hi, None if b.lo is None else -b.lo))
            if expr.op == "*" and a.nonnegative and b.nonnegative:
                hi = None if a.hi is None or b.hi is None else a.hi * b.hi
                return Interval(a.lo * b.lo, hi)
            if expr.op == "//" and a.nonnegative and b.positive:
                return Interval(a.lo // (b.hi or a.lo + 1) if b.hi else 0, None if a.hi is None else a.hi // b.lo)
            if expr.op == "%" and b.positive:
                return Interval(0, None if b.hi is None else b.hi - 1)
        return UNBOUNDED


def _hull(a: Interval, b: Interval) -> Interval:
    return Interval(None if a.lo is None or b.lo is None else min(a.lo, b.lo),
                    None if a.hi is None or b.hi is None else max(a.hi, b.hi))


def parameter_intervals(module) -> dict:
    """``{function: {parameter: Interval}}``: for a function only kernels call (role ``device``),
    the hull of what its call sites pass each integer parameter (their own ``Intervals``, seeded the
    same way). A stencil's kernel is called with the interior's indices only, so its relative
    reads ``a[i - 1, j]`` need no negative-index wrap. Entry functions, which Python calls with
    anything, get nothing.

    >>> from kpc.ir.nodes import *
    >>> from kpc.ir.types import INT64
    >>> at = Function("at", [Param("i", INT64)], [Return(BinOp("-", Name("i"), Const(1)))], role="device")
    >>> i = Name("i")
    >>> loop = For(i, Const(1), Name("n"), Const(1), [ExprStmt(Call("at", [i]))])
    >>> class M: functions = {"at": at, "f": Function("f", [Param("n", INT64)], [loop])}
    >>> parameter_intervals(M)["at"]
    {'i': Interval(lo=1, hi=None)}
    """
    functions = module.functions
    sites: dict = {name: [] for name in functions}
    for caller in functions.values():
        for node in n.walk(caller):
            if isinstance(node, n.Call) and node.kind == "kernel" and node.func in functions:
                sites[node.func].append((caller, node))
    known: dict = {}

    def of(name: str, active: frozenset) -> dict:
        if name in known:
            return known[name]
        function = functions[name]
        if function.role != "device" or not sites[name] or name in active:
            return {}
        result = None
        seen: dict = {}
        for caller, call in sites[name]:
            if call.kwargs or len(call.args) != len(function.params):
                result = {}
                break
            if caller.name not in seen:
                seen[caller.name] = Intervals(caller, of(caller.name, active | {name}))
            intervals = seen[caller.name]
            here = {p.name: intervals.of(arg) for p, arg in zip(function.params, call.args)
                    if isinstance(p.type, ScalarType) and p.type.is_int}
            result = here if result is None else {p: _hull(result[p], here[p]) for p in result if p in here}
        known[name] = {p: interval for p, interval in (result or {}).items() if interval != UNBOUNDED}
        return known[name]

    return {name: of(name, frozenset()) for name in functions}


# --------------------------------------------------------------------------- declarations


@dataclass
class DeclarationPlan:
    """Where each local is declared: ``top[id(block)]`` lists names declared at the top of
    a scope; ``inline`` holds ``(id(assign), name)`` pairs declared by that assignment;
    ``for_init`` holds ids of loops that declare their variable in the for-init."""

    top: dict = field(default_factory=dict)
    inline: set = field(default_factory=set)
    for_init: set = field(default_factory=set)


def plan_declarations(body: list, skip: set, is_region) -> DeclarationPlan:
    """Plan declarations for the scope ``body`` and every parallel-region scope inside it.

    ``skip``: names not to declare here (parameters, or captured names of a region);
    ``is_region(loop)``: whether a ``For`` becomes a parallel region (a new C++ scope).
    """
    plan = DeclarationPlan()
    _plan_scope(body, skip, is_region, plan)
    return plan


def _plan_scope(body, skip, is_region, plan, region_names=()):
    refs: dict = {}
    stores: set = set()
    blocks = {id(body): body}

    def visit(block, path):
        for index, stmt in enumerate(block):
            here = path + [(id(block), index)]
            if isinstance(stmt, n.For) and is_region(stmt):
                vars_ = region_vars(stmt)
                for name in stmt_uses(stmt) | set(vars_.captures) | set(vars_.combined):
                    refs.setdefault(name, []).append(here)
                inner_body = region_loops(stmt)[-1].body
                _plan_scope(inner_body, set(), is_region, plan, region_names=vars_.indices + vars_.combined)
                continue
            for name in stmt_uses(stmt) | set(stmt_defs(stmt)):
                refs.setdefault(name, []).append(here)
            stores.update(stmt_defs(stmt))
            for nested in nested_bodies(stmt):
                blocks[id(nested)] = nested
                visit(nested, here)

    visit(body, [])
    top = plan.top.setdefault(id(body), [])
    for name in sorted(stores - set(skip) - set(region_names)):
        paths = refs[name]
        common = paths[0]
        for path in paths[1:]:
            length = 0
            while length < min(len(common), len(path)) and common[length][0] == path[length][0]:
                length += 1
            common = common[:length]
        depth = len(common)
        # Every reference lies in the block common[-1]; find the first statement there.
        block = blocks[common[-1][0]]
        first = min(path[depth - 1][1] for path in paths)
        stmt = block[first]
        if isinstance(stmt, n.Assign) and name in target_names(stmt.target) and name not in expr_names(stmt.value):
            plan.inline.add((id(stmt), name))
        elif (
            isinstance(stmt, n.For)
            and stmt.var.id == name
            and all(path[depth - 1][1] == first for path in paths)
            and name not in assigned_names(stmt.body)
        ):
            plan.for_init.add(id(stmt))
        else:
            top.append(name)
    return plan
