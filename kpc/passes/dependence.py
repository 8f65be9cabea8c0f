"""Loop dependence analysis: what flows between iterations of a loop nest (scalars and array elements).

``analyze_nest(function, nest, live_out, effects)`` looks at the iterations of a
nest of perfectly nested loops (``nest[0]`` outermost; one loop for a Range,
two or three for an MDRange) and returns ``LoopFacts``: the scalars carried
between iterations (recognized reductions and scans, or plain loop-carried
values), the array conflicts between iterations, the scatter updates that need
atomics, early exits and side effects. ``parallelize`` asks it whether a loop may
run in parallel; ``recognize-reductions`` asks it what to annotate.

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
from math import gcd

from kpc.ir import nodes as n
from kpc.ir.intrinsics import HOST_ROUTINES
from kpc.ir.queries import (expr_names, nested_bodies, same_expr, statements, stmt_defs, stmt_uses,
                            stmts_exprs, target_names, used_names)
from kpc.ir.types import UNKNOWN, ArrayType

UPDATE_FAMILIES = {"+": "sum", "-": "sum", "*": "prod", "|": "or", "&": "and", "^": "xor"}
REDUCTION_OPS = {"+": "sum", "-": "sum", "*": "prod"}
MIN_MAX = {"min": "min", "max": "max", "np.minimum": "min", "np.maximum": "max"}
MUTATING_METHODS = {".fill", ".sort", ".resize", ".put", ".itemset", ".partition"}
# Calls whose array result is new memory, not a view of an argument.
FRESH_ARRAYS = {"np.empty", "np.zeros", "np.ones", "np.full", "np.empty_like", "np.zeros_like",
                "np.ones_like", "np.full_like", "np.copy", ".copy", "np.arange", "np.linspace"}
ANY_ARRAY = "*"  # the root of a name that may be a view of any array of the function


# --------------------------------------------------------------------------- upward-exposed reads

_UNREACHABLE = None  # "defined" set after a break/continue/return: everything counts as defined


def _meet(a, b):
    if a is _UNREACHABLE:
        return b
    if b is _UNREACHABLE:
        return a
    return a & b


def exposed_reads(body, defined: set) -> tuple:
    """(names read before any assignment in the same iteration, names surely assigned at the end)."""
    exposed: set = set()

    def block(stmts, done):
        for stmt in stmts:
            if done is _UNREACHABLE:
                return done
            exposed.update(stmt_uses(stmt) - done)
            if isinstance(stmt, n.If):
                done = _meet(block(stmt.body, set(done)), block(stmt.orelse, set(done)))
            elif isinstance(stmt, n.For):
                block(stmt.body, done | {stmt.var.id})
            elif isinstance(stmt, n.While):
                block(stmt.body, set(done))
            elif isinstance(stmt, (n.Break, n.Continue, n.Return)):
                return _UNREACHABLE
            else:
                done = done | set(stmt_defs(stmt))
        return done

    after = block(body, set(defined))
    return exposed, (set() if after is _UNREACHABLE else after)


# --------------------------------------------------------------------------- liveness


def live_out_of_loops(function: n.Function) -> dict:
    """``id(loop) -> names read after the loop`` (before being reassigned) for every ``For``."""
    result: dict = {}

    def block(stmts, live, exits):
        for stmt in reversed(stmts):
            live = statement(stmt, live, exits)
        return live

    def statement(stmt, live, exits):
        if isinstance(stmt, n.Return):
            return stmt_uses(stmt)
        if isinstance(stmt, n.Break):
            return set(exits[0]) if exits else set(live)
        if isinstance(stmt, n.Continue):
            return set(exits[1]) if exits else set(live)
        if isinstance(stmt, n.If):
            return stmt_uses(stmt) | block(stmt.body, live, exits) | block(stmt.orelse, live, exits)
        if isinstance(stmt, (n.For, n.While)):
            result[id(stmt)] = set(live)
            header = set(live)
            while True:
                body_in = block(stmt.body, header, (live, header))
                if isinstance(stmt, n.For):
                    body_in = body_in - {stmt.var.id}
                new_header = header | body_in | stmt_uses(stmt)
                if new_header == header:
                    return header
                header = new_header
        return (live - set(stmt_defs(stmt))) | stmt_uses(stmt)

    block(function.body, set(), None)
    return result


# --------------------------------------------------------------------------- arrays, aliases, accesses


class ArrayScope:
    """The arrays of one function: their names, ranks, and the names bound to views of them."""

    def __init__(self, function: n.Function):
        self.function = function
        self.ranks: dict = {}
        for p in function.params:
            if isinstance(p.type, ArrayType):
                self.ranks[p.name] = p.type.ndim
        for name, ty in function.locals.items():
            if isinstance(ty, ArrayType):
                self.ranks[name] = ty.ndim
        for node in n.walk(function):
            if isinstance(node, n.Index) and isinstance(node.base, n.Name):
                self.ranks.setdefault(node.base.id, None)
            elif isinstance(node, n.Name) and isinstance(node.type, ArrayType):
                self.ranks.setdefault(node.id, node.type.ndim)
        self.alias: dict = {}
        self._find_aliases()

    def _find_aliases(self) -> None:
        """Bind names to views of other arrays; a name that may be any array maps to ``ANY_ARRAY``."""
        bindings: dict = {}
        for stmt in statements(self.function.body):
            if not (isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name)):
                continue
            name, value = stmt.target.id, stmt.value
            if isinstance(value, n.Name) and self.is_array(value.id) or self.is_view(value):
                view = self.resolve(value)
            elif isinstance(self.function.locals.get(name), ArrayType) and not (
                    isinstance(value, n.Call) and value.func in FRESH_ARRAYS):
                view = (ANY_ARRAY, None)  # a kernel's result or a conditional: it may be a view of anything
            else:
                continue
            if view[0] is not None and view[0] != name:
                bindings.setdefault(name, []).append(view)
                roots = {root for root, _ in bindings[name]}
                self.alias[name] = view if len(bindings[name]) == 1 else (
                    (view[0], None) if len(roots) == 1 else (ANY_ARRAY, None))

    def roots(self) -> list:
        """The arrays that own memory here: parameters and fresh allocations (not aliases)."""
        return [name for name in self.ranks if name not in self.alias]

    def is_array(self, name: str) -> bool:
        return name in self.ranks or name in self.alias

    def rank(self, name: str):
        return self.ranks.get(name)

    def resolve(self, expr) -> tuple:
        """``(root array, indices into it)`` of a view or element expression; indices None = unknown."""
        if isinstance(expr, n.Name):
            if expr.id in self.alias:
                return self.alias[expr.id]
            return (expr.id, []) if expr.id in self.ranks else (None, None)
        if isinstance(expr, n.Index):
            root, prefix = self.resolve(expr.base)
            if root is None or prefix is None:
                return root, None
            return root, _compose(prefix, list(expr.indices))
        if isinstance(expr, n.Attribute) and expr.attr == "T":
            root, _ = self.resolve(expr.value)
            return root, None
        return None, None

    def is_view(self, expr) -> bool:
        """True for an array-valued expression (a whole array or a subview), not an element."""
        if isinstance(expr, n.Name):
            return self.is_array(expr.id)
        if not isinstance(expr, n.Index):
            return False
        if isinstance(expr.type, ArrayType):
            return True
        if expr.type is not UNKNOWN and expr.type is not None:
            return False
        if any(isinstance(i, n.Slice) for i in expr.indices):
            return True
        root, indices = self.resolve(expr)
        rank = self.rank(root) if root is not None else None
        return rank is not None and indices is not None and len(indices) < rank


def _compose(prefix: list, indices: list) -> list:
    """Indices into the root of ``view[indices]`` where ``view = root[prefix]``."""
    out, rest = [], list(indices)
    for entry in prefix:
        if not isinstance(entry, n.Slice):
            out.append(entry)
        elif not rest:
            out.append(entry)
        else:
            inner = rest.pop(0)
            unit = entry.step is None or (isinstance(entry.step, n.Const) and entry.step.value == 1)
            if isinstance(inner, n.Slice) or not unit:
                out.append(n.Slice())
            elif entry.lower is None:
                out.append(inner)
            else:
                out.append(n.BinOp("+", entry.lower, inner))
    return out + rest


# --------------------------------------------------------------------------- calls


@dataclass(eq=False)
class CallEffects:
    """What calls do besides returning a value: parameters written, other side effects."""

    params: dict = field(default_factory=dict)  # function -> parameter names
    written: dict = field(default_factory=dict)  # function -> names of array params it writes
    impure: dict = field(default_factory=dict)  # function -> description of a side effect
    reseeding: set = field(default_factory=set)  # functions that call np.random.seed, through callees

    def side_effect(self, node) -> str | None:
        """The side effect of a call other than array writes (output, random state), or None."""
        if not isinstance(node, n.Call):
            return None
        if node.kind == "builtin" and node.func == "print":
            return "print() writes output in iteration order"
        if node.kind == "builtin" and node.func in HOST_ROUTINES:
            return f"{HOST_ROUTINES[node.func][0]}() runs serially on the host"
        if self.reseeds(node):
            return f"{node.func}() reseeds the shared random state" if node.kind == "random" \
                else f"call @{node.func} (it calls np.random.seed())"
        if node.func.startswith(("np.random.", "numpy.random.", "random.")):
            return f"{node.func}() draws from a shared random state"
        if node.kind == "kernel" and node.func in self.impure:
            return f"call @{node.func} ({self.impure[node.func]})"
        return None

    def reseeds(self, node) -> bool:
        """Whether a call is ``np.random.seed`` or a kernel that calls it."""
        return isinstance(node, n.Call) and (node.func == "np.random.seed" or
                                             node.kind == "kernel" and node.func in self.reseeding)


def call_effects(module) -> CallEffects:
    """Side effects of every function of the module, through its callees (a fixpoint)."""
    effects = CallEffects()
    effects.params = {name: [p.name for p in f.params] for name, f in module.functions.items()}
    effects.written = {name: set() for name in module.functions}
    scopes = {name: ArrayScope(f) for name, f in module.functions.items()}
    changed = True
    while changed:
        changed = False
        for name, function in module.functions.items():
            params = set(effects.params[name])
            for access in collect_accesses(scopes[name], function.body, effects):
                if access.kind != "read" and access.root in params and access.root not in effects.written[name]:
                    effects.written[name].add(access.root)
                    changed = True
            if name not in effects.reseeding and any(effects.reseeds(node) for node in n.walk(function)):
                effects.reseeding.add(name)
                changed = True
            if name not in effects.impure:
                for node in n.walk(function):
                    effect = effects.side_effect(node)
                    if effect:
                        effects.impure[name] = effect
                        changed = True
                        break
    return effects


# --------------------------------------------------------------------------- array accesses


@dataclass(eq=False)
class Access:
    """One access to array elements inside a loop body."""

    root: str
    indices: list | None  # index expression per dimension (Slice = unknown); None = unknown
    kind: str  # read | write | update (``a[k] += v``: commutative, atomic-able)
    op: str | None  # update family: sum, prod, or, and, xor
    text: str
    stmt: n.Stmt
    via: str | None = None  # "call @f" / "np.fill()" when a call performs the access


def collect_accesses(scope: ArrayScope, body: list, effects: CallEffects) -> list:
    """Every array access of the statements in ``body``, nested statements included."""
    accesses: list = []

    def add(expr, kind, stmt, op=None, via=None):
        root, indices = scope.resolve(expr)
        if root == ANY_ARRAY:
            accesses.extend(Access(r, None, kind, op, str(expr), stmt, via) for r in scope.roots())
        elif root is not None:
            accesses.append(Access(root, indices, kind, op, str(expr), stmt, via))

    def call(node, stmt):
        if node.kind == "kernel":
            names = effects.params.get(node.func, [])
            writes = effects.written.get(node.func, set())
            bound = [(names[k] if k < len(names) else None, a) for k, a in enumerate(node.args)]
            for param, arg in bound + list(node.kwargs.items()):
                if isinstance(arg, n.Name) and scope.is_array(arg.id):
                    add(arg, "read", stmt, via=f"call @{node.func}")
                if param in writes and scope.is_view(arg):
                    add(arg, "write", stmt, via=f"call @{node.func}")
        elif node.kind == "builtin" and node.func in HOST_ROUTINES:
            results = HOST_ROUTINES[node.func][1]
            for k, arg in enumerate(node.args):
                if scope.is_view(arg):
                    add(arg, "write" if k >= len(node.args) - results else "read", stmt, via=f"{node.func}()")
        elif node.kind == "numpy":
            for arg in list(node.args) + [v for k, v in node.kwargs.items() if k != "out"]:
                if isinstance(arg, n.Name) and scope.is_array(arg.id):
                    add(arg, "read", stmt, via=f"{node.func}()")
            target = node.kwargs.get("out")
            if target is None and node.func in MUTATING_METHODS and node.args:
                target = node.args[0]
            if target is not None:
                add(target, "write", stmt, via=f"{node.func}()")

    def values(expr, stmt):
        stack = [expr]
        while stack:
            node = stack.pop()
            if node is None or isinstance(node, n.Attribute):
                continue
            if isinstance(node, list):
                stack.extend(node)
            elif isinstance(node, n.Index):
                if scope.resolve(node)[0] is not None:
                    add(node, "read", stmt)
                else:
                    stack.append(node.base)
                stack.extend(node.indices)
            elif isinstance(node, n.Call):
                call(node, stmt)
                if not (node.kind == "builtin" and node.func == "len"):
                    stack.extend(list(node.args) + list(node.kwargs.values()))
            else:
                stack.extend(n.children(node))

    def store(target, stmt, kind, op=None):
        add(target, kind, stmt, op=op)
        values(list(target.indices), stmt)

    for stmt in statements(body):
        if isinstance(stmt, n.Assign):
            target = stmt.target
            if isinstance(target, n.Index) and scope.resolve(target)[0] is not None:
                update = array_update(stmt)
                if update is not None:
                    store(target, stmt, "update", UPDATE_FAMILIES[update[0]])
                    values(update[1], stmt)
                    continue
                store(target, stmt, "write")
            values(stmt.value, stmt)
        elif isinstance(stmt, n.AugAssign):
            target = stmt.target
            if isinstance(target, n.Index) and scope.resolve(target)[0] is not None:
                if stmt.op in UPDATE_FAMILIES:
                    store(target, stmt, "update", UPDATE_FAMILIES[stmt.op])
                else:
                    store(target, stmt, "read")
                    add(target, "write", stmt)
            values(stmt.value, stmt)
        elif isinstance(stmt, n.For):
            values([stmt.start, stmt.stop, stmt.step], stmt)
        elif isinstance(stmt, (n.If, n.While)):
            values(stmt.test, stmt)
        elif isinstance(stmt, (n.Return, n.ExprStmt)):
            values(stmt.value, stmt)
    return accesses


def array_update(stmt: n.Assign):
    """``a[k] = a[k] op e`` (or ``e op a[k]`` for commutative ops) -> ``(op, e)``, else None."""
    value = stmt.value
    if not isinstance(value, n.BinOp) or value.op not in UPDATE_FAMILIES:
        return None
    own = str(stmt.target)

    def mentions(expr):
        return any(isinstance(node, n.Index) and str(node) == own for node in n.walk(expr))

    if same_expr(value.left, stmt.target) and not mentions(value.right):
        return value.op, value.right
    if value.op != "-" and same_expr(value.right, stmt.target) and not mentions(value.left):
        return value.op, value.left
    return None


# --------------------------------------------------------------------------- affine subscripts


class Subscripts:
    """Reads index expressions as affine forms ``sum(coeff * name) + const`` over the loop nest.

    Names are *region variables* (the loops being parallelized), *varying*
    (assigned inside an iteration: inner loop variables, privates) or invariant
    symbols. A private assigned exactly once and never read before it is
    substituted by its definition (``ip = i + 1; a[ip]`` reads ``a[i + 1]``).
    An invariant sub-expression that is not affine (``a.shape[0]``, ``idx[k]``)
    becomes a symbol named by its text.
    """

    def __init__(self, region_vars: set, body: list, exposed: set, written_roots: set, steps: dict | None = None):
        self.region_vars = set(region_vars)
        self.steps = steps or {}  # region variable -> its constant loop step
        definitions: dict = {}
        for stmt in statements(body):
            for name in stmt_defs(stmt):
                definitions.setdefault(name, []).append(stmt)
        self.substitutions = {
            name: stmts[0].value for name, stmts in definitions.items()
            if len(stmts) == 1 and isinstance(stmts[0], n.Assign) and isinstance(stmts[0].target, n.Name)
            and name not in exposed and name not in self.region_vars}
        self.varying = set(definitions) - set(self.substitutions) - self.region_vars
        self.written_roots = written_roots
        self._active: set = set()

    def form(self, expr):
        """``(terms, const)`` or None when the expression is not affine."""
        if isinstance(expr, n.Const) and isinstance(expr.value, (bool, int)):
            return {}, int(expr.value)
        if isinstance(expr, n.Name):
            if expr.id in self.substitutions and expr.id not in self._active:
                self._active.add(expr.id)
                try:
                    return self.form(self.substitutions[expr.id])
                finally:
                    self._active.discard(expr.id)
            return {expr.id: 1}, 0
        if isinstance(expr, n.UnaryOp) and expr.op in ("-", "+"):
            inner = self.form(expr.operand)
            if inner is None or expr.op == "+":
                return inner
            return {k: -c for k, c in inner[0].items()}, -inner[1]
        if isinstance(expr, n.Cast) and getattr(expr.to, "is_int", False):
            return self.form(expr.value)
        if isinstance(expr, n.BinOp) and expr.op in ("+", "-", "*"):
            left, right = self.form(expr.left), self.form(expr.right)
            if left is not None and right is not None:
                if expr.op == "*":
                    if not left[0]:
                        left, right = right, left
                    if right[0]:
                        return self._symbol(expr)
                    return {k: c * right[1] for k, c in left[0].items()}, left[1] * right[1]
                sign = 1 if expr.op == "+" else -1
                terms = dict(left[0])
                for k, c in right[0].items():
                    terms[k] = terms.get(k, 0) + sign * c
                return {k: c for k, c in terms.items() if c}, left[1] + sign * right[1]
        return self._symbol(expr)

    def _symbol(self, expr):
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, n.Attribute) and node.attr in ("shape", "size", "ndim"):
                continue  # array metadata does not change when elements are written
            if isinstance(node, n.Name) and (node.id in self.region_vars or node.id in self.varying
                                             or node.id in self.written_roots):
                return None
            if isinstance(node, n.Call) and node.kind not in ("math", "builtin"):
                return None
            stack.extend(n.children(node))
        return {f"<{expr}>": 1}, 0

    def relation(self, w, a):
        """How two indices of one dimension constrain a pair of iterations.

        ``("never",)``: never equal; ``("dist", v, d)``: equal only when
        ``v1 - v2 == d``; ``("same",)``: the same element in every iteration;
        ``("any",)``: no usable constraint.
        """
        fw = None if isinstance(w, n.Slice) else self.form(w)
        fa = None if isinstance(a, n.Slice) else self.form(a)
        if fw is None or fa is None:
            return ("any",)
        if any(k in self.varying for k in list(fw[0]) + list(fa[0])):
            return ("any",)
        rw = {k: c for k, c in fw[0].items() if k in self.region_vars}
        ra = {k: c for k, c in fa[0].items() if k in self.region_vars}
        sw = {k: c for k, c in fw[0].items() if k not in self.region_vars}
        sa = {k: c for k, c in fa[0].items() if k not in self.region_vars}
        k = fa[1] - fw[1]
        if sw != sa:
            return ("any",)
        if not rw and not ra:
            if k:
                # a[-1] may be a[0]: negative constants wrap around
                return ("any",) if not sw and min(fw[1], fa[1]) < 0 else ("never",)
            return ("same",)
        coeffs = [c for c in list(rw.values()) + list(ra.values()) if c]
        g = 0
        for c in coeffs:
            g = gcd(g, abs(c))
        if g and k % g:
            return ("never",)
        if rw == ra and len(rw) == 1:
            (var, c), = rw.items()
            return ("never",) if k % c else ("dist", var, k // c)
        return ("any",)

    def pair(self, w: Access, a: Access):
        """``(dependent, distance, proven)`` for two accesses in different iterations."""
        if w.indices is None or a.indices is None:
            return True, None, False
        dims = max(len(w.indices), len(a.indices))
        distances: dict = {}
        kinds = []
        for d in range(dims):
            if d >= len(w.indices) or d >= len(a.indices):
                kinds.append("any")
                continue
            rel = self.relation(w.indices[d], a.indices[d])
            kinds.append(rel[0])
            if rel[0] == "never":
                return False, None, False
            if rel[0] == "dist":
                if rel[2] % self.steps.get(rel[1], 1) or distances.setdefault(rel[1], rel[2]) != rel[2]:
                    return False, None, False  # between values the loop never takes, or contradictory
        if self.region_vars and all(distances.get(v) == 0 for v in self.region_vars):
            return False, None, False
        nonzero = [abs(d) for d in distances.values() if d]
        distance = nonzero[0] if nonzero else None
        proven = distance is not None or (dims > 0 and all(kind == "same" for kind in kinds))
        return True, distance, proven


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
    """Early exits of one loop: ``break`` at its own level, ``return`` at any depth."""
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
