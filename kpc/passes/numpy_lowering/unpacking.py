"""Arrays unpacked into names (``x, y = a[i]``) become a length check and one indexed read per name.

Numba unpacks an array along its first axis, elements of a 1-D array and rows of a
2-D one, and raises ValueError when its length is not the number of names. Before
lower-numpy's analyses run, each such assignment becomes ``value_check(ok, k)``
(``VALUE_ERRORS[k]``) and plain assignments, read through a view where the value is
one (no copy of the row), from a fresh local where it is computed. Inside a kernel the
check only flags the error, so each element read is guarded by ``ok`` and never reads
past a shorter array; when a name read by the value is also assigned (``i, j = p[i]``),
every element is read before any name is assigned, as Python does.

>>> from kpc.frontend import parse_module
>>> from kpc.ir.printer import format_function
>>> from kpc.passes.manager import PassContext, run_pipeline
>>> m = parse_module('''
... from numba import njit
... @njit("f8(f8[:, :], i8)")
... def seg(line, i):
...     ax, ay = line[i]
...     return ax - ay
... ''', "m.py")
>>> _ = run_pipeline(m, PassContext(), ["infer-types"])
>>> unpack_arrays(m.functions["seg"])
>>> print(format_function(m.functions["seg"]))
func @seg(line: f64[:, :], i: i64) -> f64   role=entry signatures=['f8(f8[:, :], i8)']
  unpacks0: bool = line.shape[1] == 2
  value_check(unpacks0, 3)
  ax: f64 = line[i, 0] if unpacks0 else 0.0
  ay: f64 = line[i, 1] if unpacks0 else 0.0
  return ax - ay
"""

from __future__ import annotations

from ...ir import nodes as n
from ...ir.intrinsics import VALUE_ERRORS
from ...ir.queries import expr_names
from ...ir.types import BOOL, NONE, ArrayType
from ..aliasing import is_subview_expr
from .values import Builder, Namer, clone

UNPACK_ERROR = "cannot unpack an array whose length is not the number of names"


def unpack_arrays(function: n.Function) -> None:
    """Rewrite, in place, every ``a, b = <array>`` of ``function``."""
    namer = Namer(function)

    def block(stmts: list) -> list:
        out = []
        for s in stmts:
            for child in ("body", "orelse"):
                if isinstance(getattr(s, child, None), list):
                    setattr(s, child, block(getattr(s, child)))
            if isinstance(s, n.Assign) and isinstance(s.target, n.TupleExpr) \
                    and isinstance(s.value.type, ArrayType):
                out += unpacked(s, namer)
            else:
                out.append(s)
        return out

    function.body = block(function.body)


def first_axis(value):
    """``(root, axis, indices)`` when ``value`` walks the first free axis ``axis`` of a named
    array ``root`` (``a``, ``a[i, :]``), else None; ``indices`` index it with a placeholder there."""
    if isinstance(value, n.Name):
        return value, 0, [None] + [n.Slice(loc=value.loc) for _ in range(value.type.ndim - 1)]
    if isinstance(value, n.Index) and isinstance(value.base, n.Name) and is_subview_expr(value):
        # a[i] of a 2-D a is a[i, :]
        indices = value.indices + [n.Slice(loc=value.loc) for _ in range(value.base.type.ndim - len(value.indices))]
        full = [isinstance(e, n.Slice) and e.lower is None and e.upper is None and e.step is None for e in indices]
        if True in full and all(full[full.index(True):]):
            axis = full.index(True)
            return value.base, axis, indices[:axis] + [None] + indices[axis + 1:]
    return None


def unpacked(s: n.Assign, namer: Namer) -> list:
    b = Builder(s.loc)
    targets, value = s.target.elements, s.value
    out = []
    walk = first_axis(value)
    if walk is None:
        held = b.name(namer.fresh("unpacked", value.type), value.type)
        out.append(n.Assign(held, value, s.loc))
        walk = first_axis(clone(held))
    root, axis, indices = walk
    item = value.type.dtype if value.type.ndim == 1 else ArrayType(value.type.dtype, value.type.ndim - 1, "A")
    ok = b.name(namer.fresh("unpacks", BOOL), BOOL)
    length = n.Compare("==", b.shape_of(root, axis), b.int(len(targets)), BOOL, s.loc)
    code = b.int(VALUE_ERRORS.index(UNPACK_ERROR))
    out += [n.Assign(ok, length, s.loc), n.ExprStmt(b.builtin("value_check", [clone(ok), code], NONE), s.loc)]
    reads = []
    for j in range(len(targets)):
        element = n.Index(clone(root), [b.int(j) if e is None else clone(e) for e in indices], item, s.loc)
        if not isinstance(item, ArrayType):
            element = n.IfExp(clone(ok), element, b.const(0, item), item, s.loc)
        reads.append(element)
    assigned = {t.id for t in targets if isinstance(t, n.Name)}
    if any(not isinstance(t, n.Name) for t in targets) or assigned & expr_names(value):
        held = [b.name(namer.fresh("unpacked", item), item) for _ in targets]
        out += [n.Assign(h, r, s.loc) for h, r in zip(held, reads)]
        reads = [clone(h) for h in held]
    out += [n.Assign(t, r, s.loc) for t, r in zip(targets, reads)]
    return out
