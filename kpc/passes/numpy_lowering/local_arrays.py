"""Array locals lower-numpy never allocates: views read through, arrays inlined where used, values stored in place.

Before a function is lowered, a local bound once to a view and only read
(``r = a[i]``, ``t = a.T``) is read through at its uses; a local bound to an
element-wise expression and read by the next statements is inlined there; inside
loops, a costly value stored right away into an array slot is computed into that slot.
``.real`` of a real array is the array itself, and writes through the parts of a complex
array are refused.

>>> from kpc.frontend import parse_module
>>> from kpc.passes.manager import PassContext, run_pipeline
>>> source = '''
... from numba import njit
... @njit("f8(f8[:, :], i8)")
... def f(a, i):
...     row = a[i]
...     t = a.T
...     e = row * 2.0
...     return e.sum() + t[0, 0]
... '''
>>> m = parse_module(source, "m.py")
>>> _ = run_pipeline(m, PassContext(), ["infer-types"])
>>> f = m.functions["f"]
>>> sorted(read_through_views(f)), sorted(inlined_arrays(f, {}))
(['row', 't'], ['e'])
"""

from __future__ import annotations

from ...ir import nodes as n
from ...ir.intrinsics import NUMPY_UFUNCS
from ...ir.queries import expr_names
from ...ir.rewrite import replace_names
from ...ir.types import BOOL, ArrayType
from ..aliasing import is_view_expr, view_base_name
from ..lowering_errors import NumpyLoweringError
from ..split_rebindings import split_rebinding
from .numpy_names import short_name
from .values import clone


# Calls that regroup or reorder the elements of their first argument.
REGROUPING = frozenset({"reshape", "transpose", "ravel", "ascontiguousarray"})


def rename_regrouped_rebindings(function: n.Function) -> None:
    """``y = y.transpose(...)`` (a reshape, transpose, ravel or contiguous copy of the name it
    rebinds) binds a fresh name from there on, where ``split_rebinding`` can: each binding is
    then made once and read through or inlined where it is used, not copied into ``y``.
    (Before: ``y = x.reshape(c, h, w); y = y.transpose((1, 0, 2))``;
    after: ``y = x.reshape(c, h, w); y_1 = y.transpose((1, 0, 2))``.)"""
    for s in list(n.walk(function)):
        if isinstance(s, n.Assign) and isinstance(s.target, n.Name) and isinstance(s.value, n.Call) \
                and s.value.kind == "numpy" and short_name(s.value.func) in REGROUPING and s.value.args \
                and isinstance(s.value.args[0], n.Name) and s.value.args[0].id == s.target.id:
            new = split_rebinding(function, s, s.target.id)
            if new is not None:
                function.locals[new] = s.target.type


def is_mask(entry) -> bool:
    ty = getattr(entry, "type", None)
    return isinstance(ty, ArrayType) and ty.dtype == BOOL


def is_array_target(target) -> bool:
    """A store target that denotes several elements: ``a``, ``a[1:]``, ``a[i]`` of a 2-D ``a``, ``a[mask]``."""
    if isinstance(target, n.Name):
        return isinstance(target.type, ArrayType)
    if isinstance(target, n.Index):
        return isinstance(target.type, ArrayType) or any(is_mask(e) for e in target.indices)
    return False


def is_view_like(expr) -> bool:
    """A view of existing memory, including ``np.transpose(a)``."""
    if isinstance(expr, n.Call) and short_name(expr.func) == "transpose" and expr.args:
        return is_view_like(expr.args[0])
    if isinstance(expr, n.Index):
        return all(not isinstance(getattr(e, "type", None), ArrayType) for e in expr.indices) \
            and is_view_like(expr.base)
    if isinstance(expr, n.Attribute) and expr.attr == "T":
        return is_view_like(expr.value)
    return is_view_expr(expr)


def written_or_passed(function: n.Function) -> set:
    """Array names stored into or passed to kernels (their views must be real views)."""
    names = set()
    for node in n.walk(function):
        if isinstance(node, (n.Assign, n.AugAssign)) and not isinstance(node.target, n.Name):
            targets = node.target.elements if isinstance(node.target, n.TupleExpr) else [node.target]
            names |= {view_base_name(t) for t in targets if not isinstance(t, n.Name)}
        elif isinstance(node, n.AugAssign) and isinstance(node.target.type, ArrayType):
            names.add(node.target.id)
        elif isinstance(node, n.Call) and node.kind == "kernel":
            names |= {view_base_name(a) for a in node.args if is_view_expr(a)}
    names.discard(None)
    return names


def read_through_views(function: n.Function) -> dict:
    """Locals bound once to a view (``b = a[1:]``, ``b = a.T``, ``b = a[::2]``, ``b = a[:, None]``,
    and a reshape or ravel of a C-contiguous array, a view in Numba) and only read: their uses
    read ``a`` with mapped indices instead, so no subview is made (Kokkos has none for steps,
    new axes, transposes and reshapes), and a later write to ``a`` shows through them as in
    Numba. Every name the view's definition reads is bound at most once, so it means the same
    at every use."""
    assigned = assignment_counts(function)
    defs = {}
    for s in n.walk(function):
        if not (isinstance(s, n.Assign) and isinstance(s.target, n.Name) and assigned.get(s.target.id) == 1):
            continue
        value = s.value
        if not isinstance(value.type, ArrayType) or not (is_view_like(value) or is_contiguous_reshape(value)):
            continue
        if all(assigned.get(x.id, 0) <= 1 for x in n.walk(value) if isinstance(x, n.Name)) \
                and uses_follow(function, s):
            defs[s.target.id] = value
    for node in n.walk(function):
        escapes = []
        if isinstance(node, n.Call) and node.kind == "kernel":
            escapes = node.args
        elif isinstance(node, n.Return) and node.value is not None:
            escapes = node.value.elements if isinstance(node.value, n.TupleExpr) else [node.value]
        elif isinstance(node, (n.Assign, n.AugAssign)) and not isinstance(node.target, n.Name):
            escapes = [node.target]
        elif isinstance(node, n.AugAssign) and isinstance(node.target.type, ArrayType):
            escapes = [node.target]
        elif isinstance(node, n.Assign):
            escapes = node.value.elements if isinstance(node.value, n.TupleExpr) else [node.value]
            escapes = [e for e in escapes if isinstance(e, n.Name)]
        for e in escapes:
            name = view_base_name(e) if is_view_expr(e) else None
            defs.pop(name, None)
    return defs


def is_contiguous_reshape(expr) -> bool:
    """``a.reshape(...)``/``a.ravel()`` of an array name not known to be Fortran-ordered (Numba
    reshapes C-contiguous arrays only, into a view of them)."""
    return isinstance(expr, n.Call) and expr.kind == "numpy" and short_name(expr.func) in ("reshape", "ravel") \
        and bool(expr.args) and isinstance(expr.args[0], n.Name) and isinstance(expr.args[0].type, ArrayType) \
        and expr.args[0].type.layout != "F"


def uses_follow(function: n.Function, definition: n.Assign) -> bool:
    """True when every use of the name ``definition`` binds comes after it in its block (not
    earlier in a loop body, where it would see the previous iteration's binding)."""
    name = definition.target.id
    total = sum(1 for x in n.walk(function) if isinstance(x, n.Name) and x.id == name) - 1

    def find(block):
        for k, s in enumerate(block):
            if s is definition:
                return sum(1 for t in block[k + 1:] for x in n.walk(t) if isinstance(x, n.Name) and x.id == name)
            for child, _ in nested_blocks(s):
                found = find(child)
                if found is not None:
                    return found
        return None

    return find(function.body) == total


def assignment_counts(function: n.Function) -> dict:
    """How many times each name is bound (assignments, augmented assignments, loop variables)."""
    counts: dict = {}
    for node in n.walk(function):
        targets = []
        if isinstance(node, (n.Assign, n.AugAssign)):
            targets = node.target.elements if isinstance(node.target, n.TupleExpr) else [node.target]
        elif isinstance(node, n.For):
            targets = [node.var]
        for t in targets:
            if isinstance(t, n.Name):
                counts[t.id] = counts.get(t.id, 0) + 1
    return counts


def inlined_arrays(function: n.Function, roots: dict) -> dict:
    """Local arrays whose definition is read through at their uses instead of allocated.

    A local bound once to an element-wise expression and read only by the next
    statements of its block is a temporary NumPy needed and loops do not: used once,
    it is always inlined; used several times, it is inlined inside loop bodies (an
    allocation per iteration of a parallel loop costs more than recomputing the
    elements) and where one statement reads it several times and it calls no transcendental
    function (``a = np.abs(r); np.where(a <= d, r * r, d * a)``: one pass, not two). Nothing between the definition and the last use may write an array
    it reads or rebind a name it reads.
    """
    counts = assignment_counts(function)
    references: dict = {}
    for node in n.walk(function):
        if isinstance(node, n.Name):
            references[node.id] = references.get(node.id, 0) + 1
    defs: dict = {}

    def visit(block: list, in_loop: bool) -> None:
        for k, s in enumerate(block):
            for child_block, loop in nested_blocks(s):
                visit(child_block, in_loop or loop)
            if not (isinstance(s, n.Assign) and isinstance(s.target, n.Name)
                    and counts.get(s.target.id) == 1 and isinstance(s.value.type, ArrayType)
                    and not is_view_expr(s.value) and is_recomputable(s.value)):
                continue
            name = s.target.id
            uses = [j for j in range(k + 1, len(block))
                    if any(isinstance(x, n.Name) and x.id == name for x in n.walk(block[j]))]
            total = references.get(name, 0) - 1
            reads = [count_reads(block[j], name) for j in uses]
            if not uses or min(reads) < 0 or sum(reads) != total:
                continue
            if any(not isinstance(block[j], (n.Assign, n.AugAssign, n.Return)) for j in uses):
                continue
            one_statement = len(uses) == 1 and not is_transcendental(s.value)
            if total > 1 and (not (in_loop or one_statement) or is_costly(s.value)):
                continue
            if any(writes_inputs(block[j], s.value, roots) for j in range(k + 1, uses[-1])):
                continue
            defs[name] = s.value

    visit(function.body, False)
    return defs


# Element-wise calls whose recomputation costs more than storing and re-reading the element.
TRANSCENDENTAL = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
                  "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
                  "power", "float_power", "erf", "erfc", "gamma", "lgamma", "cbrt", "hypot"}


def is_transcendental(value) -> bool:
    return any(isinstance(node, n.Call) and short_name(node.func) in TRANSCENDENTAL
               or isinstance(node, n.BinOp) and node.op == "**" for node in n.walk(value))


def real_arrays_as_their_real_part(function: n.Function) -> None:
    """``a.real`` of an array of real numbers is ``a`` itself in Numba (a writable view of all
    of it): every such attribute is replaced by its array, in place."""
    def unwrap(value):
        while isinstance(value, n.Attribute) and value.attr == "real" and isinstance(value.type, ArrayType) \
                and not value.value.type.dtype.is_complex:
            value = value.value
        return value

    for node in n.walk(function):
        for field in getattr(node, "__dataclass_fields__", ()):
            value = getattr(node, field)
            if isinstance(value, list):
                setattr(node, field, [unwrap(v) for v in value])
            elif isinstance(value, dict):
                setattr(node, field, {k: unwrap(v) for k, v in value.items()})
            elif isinstance(value, n.Attribute):
                setattr(node, field, unwrap(value))


def refuse_writes_through_parts(function: n.Function) -> None:
    """``a.real[i] = v``, ``a.imag[:] = w`` and ``f(a.real)`` of a complex ``a``: kpc reads the
    parts of complex arrays element by element and has no view of them to write through."""
    for node in n.walk(function):
        if isinstance(node, (n.Assign, n.AugAssign)):
            targets = node.target.elements if isinstance(node.target, n.TupleExpr) else [node.target]
        elif isinstance(node, n.Call) and node.kind == "kernel":
            targets = [a for a in node.args if is_view_expr(a)]
        else:
            continue
        for target in targets:
            expr = target
            while isinstance(expr, (n.Index, n.Attribute)):
                if isinstance(expr, n.Attribute) and expr.attr in ("real", "imag") \
                        and isinstance(expr.type, ArrayType):
                    where = "passed to a kernel" if isinstance(node, n.Call) else "written through"
                    raise NumpyLoweringError(f"`{target}`, the .{expr.attr} part of a complex array {where}",
                                             target.loc, "write the complex elements instead: "
                                                         "a[i] = complex(v, a[i].imag)")
                expr = expr.value if isinstance(expr, n.Attribute) else expr.base


def store_through_destination(function: n.Function) -> None:
    """Inside loops, compute a costly temporary into the array slot it is stored to, then read it there.

    ``e = np.exp(x[i] - m); out[i] = e / e.sum()`` inside a ``prange``: ``e`` is used
    twice, and inlining it (no allocation per iteration) would evaluate every ``exp``
    twice, as the sum and as the store. When the next statement stores into an array
    slot of the same dtype and rank, and neither statement reads that array otherwise,
    the pair becomes ``out[i] = np.exp(x[i] - m); out[i] = out[i] / out[i].sum()``:
    one ``exp`` per element, no temporary, the values NumPy computes. The stored value must
    combine ``e`` element by element (``out[i] = e / e.sum() @ w`` has the shape of the
    product, not of ``e``, and keeps ``e``); the shapes of ``e`` and ``out[i]`` are then
    assumed equal (not checked at run time: an ``e`` of extent 1 would be stretched by the
    first store before ``e.sum()`` reads it).
    """
    counts = assignment_counts(function)
    references: dict = {}
    for node in n.walk(function):
        if isinstance(node, n.Name):
            references[node.id] = references.get(node.id, 0) + 1

    def visit(block: list, in_loop: bool) -> None:
        for s in block:
            for child_block, loop in nested_blocks(s):
                visit(child_block, in_loop or loop)
        if not in_loop:
            return
        for k in range(len(block) - 1):
            s, t = block[k], block[k + 1]
            if not (isinstance(s, n.Assign) and isinstance(s.target, n.Name) and counts.get(s.target.id) == 1
                    and isinstance(s.value.type, ArrayType) and not is_view_expr(s.value)
                    and is_recomputable(s.value) and is_transcendental(s.value)):
                continue
            name = s.target.id
            if not (isinstance(t, n.Assign) and isinstance(t.target, n.Index) and is_array_target(t.target)
                    and isinstance(t.target.type, ArrayType)):
                continue
            kind, dest = s.value.type, t.target.type
            if (kind.ndim, kind.dtype) != (dest.ndim, dest.dtype) or count_reads(t, name) < 2 \
                    or count_reads(t, name) != references.get(name, 0) - 1 or not shaped_like(t.value, name):
                continue
            base = view_base_name(t.target)
            index_names = expr_names(t.target.indices)
            if base is None or name in index_names or any(
                    isinstance(x, n.Name) and x.id == base for x in n.walk([s.value, t.value])):
                continue
            if any(isinstance(x, n.Call) and x.kind == "kernel" for x in n.walk([t.target, t.value])):
                continue
            block[k] = n.Assign(clone(t.target), s.value, s.loc)
            t.value = replace_names(t.value, lambda x, name=name, slot=t.target: clone(slot) if x.id == name else None)
            function.locals.pop(name, None)
            references[name] = 0

    visit(function.body, False)


def shaped_like(value, name: str) -> bool:
    """``value`` reads array ``name`` through element-wise operations only, from the top (so it
    has the shape of ``name``, up to broadcasting): ``e / e.sum()`` does, ``e / e.sum() @ w`` does not."""
    if isinstance(value, n.Name):
        return value.id == name
    if isinstance(value, n.BinOp) and value.op != "@" or isinstance(value, n.Compare):
        return shaped_like(value.left, name) or shaped_like(value.right, name)
    if isinstance(value, n.UnaryOp):
        return shaped_like(value.operand, name)
    if isinstance(value, n.Call) and (value.kind == "math" or value.kind == "numpy" and (
            short_name(value.func) in NUMPY_UFUNCS or value.func == "np.where")):
        return any(shaped_like(a, name) for a in value.args)
    return False


def nested_blocks(s):
    if isinstance(s, (n.For, n.While)):
        yield s.body, True
    elif isinstance(s, n.If):
        yield s.body, False
        yield s.orelse, False


def is_recomputable(value) -> bool:
    """An expression whose elements can be recomputed at each use: no kernel call, no random
    draw, no uninitialised allocation."""
    for node in n.walk(value):
        if isinstance(node, n.Call) and (node.kind in ("kernel", "random")
                                         or short_name(node.func) in ("empty", "empty_like")):
            return False
    return True


# NumPy functions whose result lower-numpy computes whole into a temporary (a scan, a sort, a
# search, a host routine): inlined at several uses, each use would compute all of it again.
WHOLE_ARRAY_RESULTS = {"cumsum", "cumprod", "sort", "argsort", "unique", "percentile", "quantile", "nonzero",
                       "flatnonzero", "argwhere", "searchsorted", "digitize", "interp", "convolve", "correlate",
                       "bincount", "histogram", "cov", "corrcoef", "linalg.solve", "linalg.inv", "linalg.cholesky"}


def is_costly(value) -> bool:
    for node in n.walk(value):
        if isinstance(node, n.Call) and node.kind != "kernel" and short_name(node.func) in WHOLE_ARRAY_RESULTS:
            return True
        if isinstance(node, n.BinOp) and node.op == "@":
            return True
        if isinstance(node, n.Call) and short_name(node.func) in ("dot", "matmul"):
            return True
        if isinstance(node, n.Call) and isinstance(node.type, ArrayType) and "axis" in node.kwargs:
            return True
    return False


def count_reads(s, name: str) -> int:
    """References to ``name`` in ``s`` that only read its elements (not stores, kernel arguments
    or aliases)."""
    escaping = []
    for node in n.walk(s):
        if isinstance(node, (n.Assign, n.AugAssign)):
            if view_base_name(node.target) == name and not isinstance(node.target, n.Name) \
                    or isinstance(node.target, n.Name) and node.target.id == name:
                return -1
            if isinstance(node.value, n.Name) and node.value.id == name:
                return -1
            if isinstance(node.value, n.TupleExpr):
                escaping += node.value.elements
        elif isinstance(node, n.Call) and node.kind == "kernel":
            escaping += node.args
        elif isinstance(node, n.Return) and node.value is not None:
            # A returned array is materialised anyway: keep the user's name for it.
            escaping += node.value.elements if isinstance(node.value, n.TupleExpr) else [node.value]
    if any(is_view_expr(e) and view_base_name(e) == name for e in escaping):
        return -1
    return sum(1 for x in n.walk(s) if isinstance(x, n.Name) and x.id == name)


def writes_inputs(s, value, roots: dict) -> bool:
    """True when statement ``s`` may change what ``value`` evaluates to."""
    names = expr_names(value)
    arrays = set()
    for x in n.walk(value):
        if isinstance(x, n.Name) and isinstance(x.type, ArrayType):
            arrays |= roots.get(x.id, {x.id})
    for node in n.walk(s):
        if isinstance(node, n.Call) and node.kind == "kernel":
            return True
        if isinstance(node, n.For) and node.var.id in names:
            return True
        if isinstance(node, (n.Assign, n.AugAssign)):
            targets = node.target.elements if isinstance(node.target, n.TupleExpr) else [node.target]
            for t in targets:
                if isinstance(t, n.Name) and t.id in names:
                    return True
                base = view_base_name(t)
                if base is not None and roots.get(base, {base}) & arrays:
                    return True
    return False
