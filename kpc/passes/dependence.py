"""Loop dependence analysis: what flows between iterations of a loop nest (scalars and array elements).

``analyze_nest(function, nest, live_out, effects)`` looks at the iterations of a
nest of perfectly nested loops (``nest[0]`` outermost; one loop for a Range,
two or three for an MDRange) and returns ``LoopFacts``: the scalars carried
between iterations (recognized reductions and scans, or plain loop-carried
values), the array conflicts between iterations, the scatter updates that need
atomics, early exits and side effects. ``parallelize`` asks it whether a loop may
run in parallel; ``recognize-reductions`` asks it what to annotate. It stands on
``liveness`` (scalar data flow), ``array_accesses`` (arrays, their views, element
accesses, what calls write) and ``subscripts`` (index expressions as affine forms).

Assumptions, as in Numba's ``prange``: two arrays with different names never
alias (only names bound to each other inside the function, ``b = a`` or
``row = a[i]``, are followed); index arithmetic does not wrap except for
negative constant indices, which are treated as unknown.

>>> from kpc.ir.nodes import Assign, BinOp, Const, For, Index, Name
>>> from kpc.ir.nodes import Function, Param
>>> i = Name("i")
>>> body = [Assign(Index(Name("a"), [i]), BinOp("+", Index(Name("a"), [BinOp("-", i, Const(1))]), Const(1)))]
>>> loop = For(i, Const(1), Name("n"), Const(1), body)
>>> facts = analyze_nest(Function("f", [Param("a"), Param("n")], [loop]), [loop], {})
>>> facts.blockers()
['a[i] written, a[i - 1] read (distance 1)']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kpc.ir import nodes as n
from kpc.ir.queries import (expr_names, nested_bodies, same_expr, statements, stmt_defs, stmt_uses,
                            stmts_exprs, target_names, used_names)
from kpc.ir.types import ArrayType

from .array_accesses import Access, ArrayScope, CallEffects, collect_accesses
from .liveness import exposed_reads
from .subscripts import Subscripts

REDUCTION_OPS = {"+": "sum", "-": "sum", "*": "prod"}
MIN_MAX = {"min": "min", "max": "max", "np.minimum": "min", "np.maximum": "max"}


# --------------------------------------------------------------------------- scalar updates


def scalar_update(stmt, var: str):
    """``(op, operand, own Name nodes)`` when ``stmt`` combines ``var`` with a value, else None.

    Recognized: ``v += e``, ``v -= e``, ``v *= e``, ``v = v + e``, ``v = e + v``,
    ``v = v - e``, ``v = v * e``, ``v = min(v, e)``/``max`` (either order) and
    ``if e < v: v = e`` (min) / ``if e > v: v = e`` (max), with ``e`` not reading ``v``.
    """
    if isinstance(stmt, n.AugAssign) and isinstance(stmt.target, n.Name) and stmt.target.id == var:
        if stmt.op in REDUCTION_OPS and var not in expr_names(stmt.value):
            return REDUCTION_OPS[stmt.op], stmt.value, [stmt.target]
        return None
    if isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name) and stmt.target.id == var:
        value = stmt.value
        if isinstance(value, n.BinOp) and value.op in REDUCTION_OPS:
            for own, other in ((value.left, value.right), (value.right, value.left)):
                if own is value.right and value.op == "-":
                    continue
                if isinstance(own, n.Name) and own.id == var and var not in expr_names(other):
                    return REDUCTION_OPS[value.op], other, [stmt.target, own]
        if isinstance(value, n.Call) and value.func in MIN_MAX and len(value.args) == 2 and not value.kwargs:
            for own, other in ((value.args[0], value.args[1]), (value.args[1], value.args[0])):
                if isinstance(own, n.Name) and own.id == var and var not in expr_names(other):
                    return MIN_MAX[value.func], other, [stmt.target, own]
        return None
    if (isinstance(stmt, n.If) and not stmt.orelse and len(stmt.body) == 1
            and isinstance(stmt.body[0], n.Assign) and isinstance(stmt.body[0].target, n.Name)
            and stmt.body[0].target.id == var and isinstance(stmt.test, n.Compare)):
        value, test = stmt.body[0].value, stmt.test
        if var in expr_names(value):
            return None
        for own, other, flip in ((test.right, test.left, False), (test.left, test.right, True)):
            if isinstance(own, n.Name) and own.id == var and same_expr(other, value):
                op = {"<": "min", "<=": "min", ">": "max", ">=": "max"}.get(test.op)
                if op is None:
                    return None
                if flip:
                    op = "max" if op == "min" else "min"
                return op, value, [own, stmt.body[0].target]
    return None


@dataclass(eq=False)
class Carried:
    """A scalar combined across iterations: a reduction (or scan) ``var op= operand`` at ``stmts``."""

    var: str
    op: str
    stmts: list
    type: object = None


@dataclass(eq=False)
class Conflict:
    """Two iterations touch the same array element and one of them writes it."""

    text: str
    proven: bool  # certain (constant or known distance), not just possible


@dataclass(eq=False)
class LoopFacts:
    """What happens between the iterations of a loop nest (see the module docstring)."""

    region_vars: list
    reductions: list = field(default_factory=list)  # Carried
    scan: Carried | None = None
    carried: list = field(default_factory=list)  # reasons, one per carried scalar
    conflicts: list = field(default_factory=list)  # Conflict
    atomics: list = field(default_factory=list)  # update statements that need atomics
    atomic_texts: list = field(default_factory=list)
    exits: list = field(default_factory=list)
    side_effects: list = field(default_factory=list)
    loop_var_assigned: list = field(default_factory=list)
    writes: list = field(default_factory=list)  # texts of array writes
    captures: list = field(default_factory=list)
    privates: list = field(default_factory=list)

    def blockers(self) -> list:
        """Every reason why the iterations cannot run in parallel with the same result."""
        reasons = list(self.exits)
        reasons += [f"loop variable {v} assigned in the body" for v in self.loop_var_assigned]
        reasons += self.side_effects + self.carried + [c.text for c in self.conflicts]
        return reasons

    def races(self) -> list:
        """The blockers that are certain races when the loop is a ``prange`` anyway."""
        return self.carried + [c.text for c in self.conflicts if c.proven]


def analyze_nest(function: n.Function, nest: list, live_out: dict, effects: CallEffects | None = None,
                 scope: ArrayScope | None = None) -> LoopFacts:
    """Facts about running the iterations of ``nest`` (perfectly nested loops) in any order.

    ``live_out``: ``id(loop) -> names read after it`` (``live_out_of_loops``);
    ``effects``: side effects of the callees (``call_effects``).
    """
    effects = effects or CallEffects()
    scope = scope or ArrayScope(function)
    outer, inner_body = nest[0], nest[-1].body
    region_vars = [loop.var.id for loop in nest]
    facts = LoopFacts(region_vars)
    body = outer.body
    nest_ids = {id(loop) for loop in nest}

    for loop in nest:
        facts.exits += _exits(loop.body)
    for stmt in statements(body):
        if id(stmt) in nest_ids:
            continue
        for name in stmt_defs(stmt):
            if name in region_vars and name not in facts.loop_var_assigned:
                facts.loop_var_assigned.append(name)
        for node in n.walk([e for e in n.children(stmt) if isinstance(e, n.Expr)]):
            effect = effects.side_effect(node)
            if effect and effect not in facts.side_effects:
                facts.side_effects.append(effect)

    exposed, _ = exposed_reads(body, set(region_vars))
    after = live_out.get(id(outer), set())
    facts.carried += [f"loop variable {v} read after the loop" for v in region_vars if v in after]
    loop_vars = {s.var.id for s in statements(body) if isinstance(s, n.For)}
    assigned = [name for name in _ordered_defs(body) if name not in region_vars]
    private, carried_names = [], []
    for name in assigned:
        if name in exposed:
            carried_names.append(name)
        elif name in after:
            facts.carried.append(f"{name} assigned in the loop and read after it")
        else:
            private.append(name)
    _classify_carried(facts, function, body, carried_names, len(nest))

    combined = {c.var for c in facts.reductions} | ({facts.scan.var} if facts.scan else set())
    accesses = collect_accesses(scope, body, effects)
    fresh = {name for name in private if name not in scope.alias}
    written_roots = {a.root for a in accesses if a.kind != "read"}
    steps = {loop.var.id: loop.step.value for loop in nest
             if isinstance(loop.step, n.Const) and isinstance(loop.step.value, int) and loop.step.value}
    _array_conflicts(facts, accesses, fresh, Subscripts(set(region_vars), body, exposed, written_roots, steps),
                     _iteration_dependent(body, region_vars))

    reads = used_names(inner_body)
    local = set(region_vars) | loop_vars | combined | {name for name in assigned if name not in exposed}
    facts.captures = sorted(reads - local)
    facts.privates = sorted(set(assigned) - combined - loop_vars)
    return facts


def _ordered_defs(body) -> list:
    seen: list = []
    for stmt in statements(body):
        for name in stmt_defs(stmt):
            if name not in seen:
                seen.append(name)
    return seen


def _exits(body) -> list:
    """Early exits of one loop: ``break`` at its own level, ``return`` and ``raise`` at any depth
    (Numba runs a ``prange`` that may raise serially, so the first failing iteration raises)."""
    found = []

    def breaks(stmts):
        for stmt in stmts:
            if isinstance(stmt, n.Break):
                found.append(_at("early exit: break", stmt))
            elif isinstance(stmt, n.If):
                breaks(stmt.body)
                breaks(stmt.orelse)

    breaks(body)
    found += [_at("early exit: return", s) for s in statements(body) if isinstance(s, n.Return)]
    found += [_at("early exit: raise", s) for s in statements(body) if isinstance(s, n.Raise)]
    return found


def _at(text: str, stmt) -> str:
    return f"{text} at line {stmt.loc.line}" if stmt.loc.line else text


def _classify_carried(facts: LoopFacts, function, body, names: list, depth: int) -> None:
    stmts = list(statements(body))
    covered = set()
    for stmt in stmts:
        if isinstance(stmt, n.If) and stmt.body and isinstance(stmt.body[0], n.Assign):
            for name in target_names(stmt.body[0].target):
                if scalar_update(stmt, name) is not None:
                    covered.add(id(stmt.body[0]))
    scans = []
    for var in names:
        ty = function.locals.get(var)
        if isinstance(ty, ArrayType):
            facts.carried.append(f"array name {var} rebound across iterations")
            continue
        defining = [s for s in stmts if id(s) not in covered and (
            var in stmt_defs(s) or (isinstance(s, n.If) and scalar_update(s, var) is not None))]
        updates = [scalar_update(s, var) for s in defining]
        ops = {u[0] for u in updates if u is not None}
        if not defining or any(u is None for u in updates) or len(ops) != 1:
            bitwise = {s.op for s in defining if isinstance(s, n.AugAssign) and s.op in ("^", "|", "&")}
            if len(bitwise) == 1 and all(isinstance(s, n.AugAssign) for s in defining):
                facts.carried.append(f"{var} is combined with {bitwise.pop()}= (only sum, prod, min and max "
                                     f"reductions run in parallel)")
            else:
                facts.carried.append(f"{var} is carried from one iteration to the next")
            continue
        op = ops.pop()
        own = {id(node) for u in updates for node in u[2]}
        occurrences = [node for node in n.walk(stmts_exprs(body)) if isinstance(node, n.Name) and node.id == var]
        spec = Carried(var, op, defining, ty)
        if all(id(node) in own for node in occurrences):
            facts.reductions.append(spec)
        elif op != "sum":
            facts.carried.append(f"running {op} {var} is read inside the loop (only sum scans run in parallel)")
        elif not _scan_shaped(body, var, defining, [u[1] for u in updates]):
            facts.carried.append(f"{var} is carried from one iteration to the next")
        elif not _updates_apart_from_writes(body, defining):
            facts.carried.append(f"prefix sum of {var} is updated inside a loop or next to array writes")
        elif facts.side_effects:
            facts.carried.append(f"prefix sum of {var} in a loop whose {facts.side_effects[0]} "
                                 "(a scan runs its iterations twice)")
        elif depth > 1:
            facts.carried.append(f"prefix sum of {var} cannot be collapsed into an MDRange")
        else:
            scans.append(spec)
    if scans and (len(scans) > 1 or facts.reductions):
        others = [c.var for c in scans[1:] + facts.reductions]
        facts.carried.append(f"prefix sum of {scans[0].var} cannot be combined with other "
                             f"carried values ({', '.join(others)})")
    elif scans:
        facts.scan = scans[0]


def _scan_shaped(body, var: str, updates: list, operands: list) -> bool:
    """True when no value derived from ``var`` flows back into its updates (a prefix sum)."""
    tainted = {var}
    update_ids = {id(s) for s in updates}
    changed = True
    while changed:
        changed = False

        def visit(stmts, control):
            nonlocal changed
            for stmt in stmts:
                if id(stmt) in update_ids:
                    if control:
                        return False
                    continue
                flows = control or bool(stmt_uses(stmt) & tainted)
                if isinstance(stmt, (n.If, n.While, n.For)):
                    if isinstance(stmt, n.For) and flows and stmt.var.id not in tainted:
                        tainted.add(stmt.var.id)
                        changed = True
                    for inner in nested_bodies(stmt):
                        if visit(inner, flows) is False:
                            return False
                elif flows:
                    for name in stmt_defs(stmt):
                        if name not in tainted:
                            tainted.add(name)
                            changed = True
            return True

        if visit(body, False) is False:
            return False
    return not any(expr_names(e) & tainted for e in operands)


def _iteration_dependent(body, region_vars) -> set:
    """Names whose value depends on the iteration: region variables and what is computed from them."""
    names = set(region_vars)
    changed = True
    while changed:
        changed = False
        for stmt in statements(body):
            if stmt_uses(stmt) & names:
                for name in stmt_defs(stmt):
                    if name not in names:
                        names.add(name)
                        changed = True
    return names


def _updates_apart_from_writes(body, updates: list) -> bool:
    """True when every update is a statement of ``body`` or sits in ``if``s that write no memory.

    A scan runs its iterations twice (Kokkos' two passes); emitters run the
    statements that write memory only in the final pass, so an update must not
    share such a statement, nor sit in an inner loop.
    """
    update_ids = {id(u) for u in updates}
    for stmt in body:
        inner = [s for s in statements([stmt]) if id(s) in update_ids and s is not stmt]
        if not inner:
            continue
        if not isinstance(stmt, n.If) or _writes_memory(stmt):
            return False
        if any(isinstance(s, (n.For, n.While)) for s in statements([stmt])):
            return False
    return True


def _writes_memory(stmt) -> bool:
    for inner in statements([stmt]):
        if isinstance(inner, (n.Assign, n.AugAssign)) and isinstance(inner.target, n.Index):
            return True
    return any(isinstance(c, n.Call) and c.kind in ("kernel", "numpy") for c in n.walk(stmt))


def _array_conflicts(facts: LoopFacts, accesses: list, fresh: set, subscripts: Subscripts,
                     per_iteration: set) -> None:
    """Record conflicts between iterations; updates at iteration-dependent indices become atomics.

    An update whose index does not depend on the iteration (``s[0] += x[i]``, or
    ``u[j] *= 0.5`` over an inner ``j``) hits the same elements in every
    iteration: that is a conflict, not a scatter worth atomics.
    """
    by_root: dict = {}
    for access in accesses:
        if access.root not in fresh:
            by_root.setdefault(access.root, []).append(access)
    for root, group in by_root.items():
        writers = [a for a in group if a.kind != "read"]
        if not writers:
            continue
        update_only = all(a.kind == "update" for a in group) and len({a.op for a in group}) == 1
        for a in writers:
            text = a.text if a.via is None else f"{a.text} ({a.via})"
            if text not in facts.writes:
                facts.writes.append(text)
        for k, w in enumerate(group):
            if w.kind == "read":
                continue
            for j, other in enumerate(group):
                if other.kind != "read" and j < k:
                    continue
                dependent, distance, proven = subscripts.pair(w, other)
                if not dependent:
                    continue
                if update_only and all(_indexed_by(a, per_iteration) for a in (w, other)):
                    for access in (w, other):
                        if access.stmt not in facts.atomics:
                            facts.atomics.append(access.stmt)
                            facts.atomic_texts.append(access.text)
                    continue
                text = _describe(w, other, distance, subscripts)
                if text not in [c.text for c in facts.conflicts]:
                    facts.conflicts.append(Conflict(text, proven))


def _indexed_by(access: Access, names: set) -> bool:
    return access.indices is not None and any(
        expr_names(i) & names for i in access.indices if not isinstance(i, n.Slice))


def _describe(w: Access, other: Access, distance, subscripts: Subscripts) -> str:
    if w.via is not None:
        return f"{w.via} writes {w.text} (side effect on shared data)"
    if other.via is not None:
        return f"{w.text} written, {other.text} read by {other.via}"
    if distance is not None:
        verb = "read" if other.kind == "read" else "written"
        if other is w:
            return f"{w.text} written by iterations {distance} apart"
        return f"{w.text} written, {other.text} {verb} (distance {distance})"
    data_dependent = w.indices is None or any(
        subscripts.form(i) is None for i in w.indices if not isinstance(i, n.Slice))
    if other is w:
        if data_dependent:
            kind = "an update" if w.kind == "update" else "a plain store, not an update that could be atomic"
            return f"{w.text} written at a data-dependent index ({kind})"
        if not any(k in subscripts.region_vars for i in w.indices if not isinstance(i, n.Slice)
                   for k in (subscripts.form(i) or ({}, 0))[0]):
            return f"{w.text} written by every iteration"
        return f"{w.text} written at an index that may repeat across iterations"
    verb = "read" if other.kind == "read" else "written"
    return f"{w.text} written, {other.text} {verb} (may overlap across iterations)"
