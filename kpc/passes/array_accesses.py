"""The arrays of a function, the names bound to views of them, and every element access of a loop body.

``ArrayScope`` knows a function's arrays and resolves a view or an element to its root
array and the indices into it; ``call_effects`` finds what each function writes through
its parameters and its other side effects; ``collect_accesses`` lists the reads, writes
and updates of array elements in a loop body, calls included.

>>> from kpc.ir.nodes import Assign, BinOp, Const, Function, Index, Name, Param
>>> from kpc.ir.types import FLOAT64, ArrayType
>>> mat = ArrayType(FLOAT64, 2)
>>> row = Assign(Name("row"), Index(Name("a", mat), [Name("k")]))
>>> scope = ArrayScope(Function("f", [Param("a", mat), Param("k")], [row]))
>>> root, indices = scope.resolve(Index(Name("row"), [Name("j")]))
>>> root, [str(i) for i in indices], scope.roots()
('a', ['k', 'j'], ['a'])
>>> i = Name("i")
>>> body = [Assign(Index(Name("b"), [i]), BinOp("+", Index(Name("b"), [BinOp("-", i, Const(1))]), Const(1)))]
>>> [(a.kind, a.text) for a in collect_accesses(ArrayScope(Function("g", [Param("b")], body)), body, CallEffects())]
[('write', 'b[i]'), ('read', 'b[i - 1]')]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kpc.ir import nodes as n
from kpc.ir.intrinsics import FLAT_ELEMENT, HOST_ROUTINES, ORDER_ROUTINES
from kpc.ir.queries import same_expr, statements
from kpc.ir.types import UNKNOWN, ArrayType

UPDATE_FAMILIES = {"+": "sum", "-": "sum", "*": "prod", "|": "or", "&": "and", "^": "xor"}
MUTATING_METHODS = {".fill", ".sort", ".resize", ".put", ".itemset", ".partition", "np.random.shuffle"}
# Calls whose array result is new memory, not a view of an argument.
FRESH_ARRAYS = {"np.empty", "np.zeros", "np.ones", "np.full", "np.empty_like", "np.zeros_like",
                "np.ones_like", "np.full_like", "np.copy", ".copy", "np.arange", "np.linspace", "np.sinc",
                "np.hamming", "np.hanning", "np.bartlett", "np.blackman"}
ANY_ARRAY = "*"  # the root of a name that may be a view of any array of the function


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
        elif node.kind == "builtin" and (node.func in HOST_ROUTINES or node.func in ORDER_ROUTINES):
            results = HOST_ROUTINES[node.func][1] if node.func in HOST_ROUTINES else ORDER_ROUTINES[node.func]
            # An order routine's flag (argsort's ``stable``) follows its arrays.
            listed = [a for a in node.args if isinstance(getattr(a, "type", None), ArrayType)] \
                if node.func in ORDER_ROUTINES else node.args
            for k, arg in enumerate(listed):
                if scope.is_view(arg):
                    add(arg, "write" if k >= len(listed) - results else "read", stmt, via=f"{node.func}()")
        elif node.kind == "builtin" and node.func == FLAT_ELEMENT:
            add(node.args[0], "read", stmt, via=f"{node.func}()")
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
