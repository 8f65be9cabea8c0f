"""Which arrays a name may share memory with: the view roots of every array name.

``b = a[1:-1]``, ``b = a.T`` or ``b = a`` make ``b`` a view of ``a``; a name bound
to a fresh array (an allocation, a parameter) is its own root. A name assigned
several times collects the roots of every value. Two names may overlap when
their root sets intersect. Distinct parameters are assumed not to overlap (as
Numba's own loop fusion assumes).

>>> from kpc.ir.nodes import Assign, Function, Index, Name, Param, Slice
>>> from kpc.ir.types import ArrayType, FLOAT64
>>> vec = ArrayType(FLOAT64, 1)
>>> f = Function("f", [Param("a", vec)], [Assign(Name("b"), Index(Name("a", vec), [Slice()], vec))])
>>> sorted(view_roots(f)["b"])
['a']
"""

from __future__ import annotations

from ..ir import nodes as n
from ..ir.types import ArrayType


def is_view_expr(expr) -> bool:
    """True when ``expr`` denotes (part of) an existing array without copying it."""
    if isinstance(expr, n.Name):
        return isinstance(expr.type, ArrayType)
    if isinstance(expr, n.Index):
        if not all(_is_view_entry(e) for e in expr.indices):
            return False
        return is_view_expr(expr.base)
    if isinstance(expr, n.Attribute) and expr.attr in VIEW_ATTRIBUTES:
        return is_view_expr(expr.value)
    if isinstance(expr, n.Call) and expr.kind == "numpy" and expr.func in FLIPS and expr.args:
        return is_view_expr(expr.args[0])
    return False


# Array attributes that are views of the array: its transpose, the parts of its complex
# numbers (``a.real`` of real numbers is ``a`` and ``a.imag`` zeros: lower-numpy rewrites the
# one, the other is read only).
VIEW_ATTRIBUTES = {"T", "real", "imag"}
# NumPy calls that return a reversed view of their first argument.
FLIPS = {"np.flip", "np.fliplr", "np.flipud"}


def _is_view_entry(entry) -> bool:
    return not isinstance(getattr(entry, "type", None), ArrayType)


def is_subview_expr(expr) -> bool:
    """A view Kokkos expresses as a subview: a name indexed by integers and unit-step
    slices (no step, no ``None`` axis, no transpose)."""
    if isinstance(expr, n.Name):
        return isinstance(expr.type, ArrayType)
    if isinstance(expr, n.Index):
        for entry in expr.indices:
            if isinstance(entry, n.Slice):
                if entry.step is not None and not (isinstance(entry.step, n.Const) and entry.step.value == 1):
                    return False
            elif isinstance(entry, n.Const) and entry.value is None:
                return False
            elif not _is_view_entry(entry):
                return False
        return is_subview_expr(expr.base)
    return False


def view_base_name(expr) -> str | None:
    """The name a view expression reads from (``a`` for ``a[1:, 0].T``), else None."""
    while True:
        if isinstance(expr, n.Name):
            return expr.id
        if isinstance(expr, n.Index):
            expr = expr.base
        elif isinstance(expr, n.Attribute) and expr.attr in VIEW_ATTRIBUTES:
            expr = expr.value
        else:
            return None


def view_roots(function: n.Function) -> dict:
    """Map every array name of ``function`` to the set of root arrays it may view."""
    roots: dict = {}
    for p in function.params:
        if isinstance(p.type, ArrayType):
            roots[p.name] = {p.name}
    edges = []
    for target, value in name_bindings(function):
        if isinstance(value, n.Call) and value.func.endswith("transpose") and value.args:
            value = value.args[0]
        source = view_base_name(value) if is_view_expr(value) else None
        if source is None:
            roots.setdefault(target.id, set()).add(target.id)
        else:
            roots.setdefault(target.id, set())
            edges.append((target.id, source))
    changed = True
    while changed:
        changed = False
        for target, source in edges:
            new = roots.get(source, {source})
            if not new <= roots[target]:
                roots[target] |= new
                changed = True
    return roots


def name_bindings(function: n.Function) -> list:
    """``(target, value)`` of every assignment to a name, a tuple assignment (``u, v = v, u``)
    giving one pair per element."""
    pairs = []
    for node in n.walk(function):
        if not isinstance(node, n.Assign):
            continue
        if isinstance(node.target, n.TupleExpr) and isinstance(node.value, n.TupleExpr):
            pairs.extend(zip(node.target.elements, node.value.elements))
        else:
            pairs.append((node.target, node.value))
    return [(target, value) for target, value in pairs if isinstance(target, n.Name)]


def may_overlap(roots: dict, a: str, b: str) -> bool:
    """True when names ``a`` and ``b`` may share memory."""
    return bool(roots.get(a, {a}) & roots.get(b, {b}))
