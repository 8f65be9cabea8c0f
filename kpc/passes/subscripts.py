"""Affine subscripts: index expressions as ``sum(coeff * name) + const``; whether two accesses meet across iterations.

>>> from kpc.ir.nodes import BinOp, Const, Name
>>> i = Name("i")
>>> subscripts = Subscripts({"i"}, [], set(), set())
>>> subscripts.form(BinOp("+", BinOp("*", Const(2), i), Const(1)))
({'i': 2}, 1)
>>> subscripts.relation(BinOp("*", Const(2), i), BinOp("+", BinOp("*", Const(2), i), Const(1)))
('never',)
>>> subscripts.relation(i, BinOp("-", i, Const(1)))
('dist', 'i', -1)
"""

from __future__ import annotations

from math import gcd

from kpc.ir import nodes as n
from kpc.ir.queries import statements, stmt_defs

from .array_accesses import Access


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
