"""After lowering: allocations and shape checks hoisted out of loops they do not vary in, broadcast strides unswitched.

>>> from kpc.ir.nodes import Assign, Call, Const, For, Function, Index, Name, TupleExpr
>>> from kpc.ir.printer import format_function
>>> from kpc.ir.types import FLOAT64, INT64, ArrayType, TupleType
>>> vec = ArrayType(FLOAT64, 1, "C")
>>> alloc = Call("np.empty", [TupleExpr([Name("n", INT64)], TupleType((INT64,)))], "numpy", type=vec)
>>> i, zero = Name("i0", INT64), Const(0.0, FLOAT64)
>>> fill = For(i, Const(0), Name("n", INT64), Const(1), [Assign(Index(Name("tmp0", vec), [i], FLOAT64), zero)])
>>> steps = For(Name("s", INT64), Const(0), Name("steps", INT64), Const(1), [Assign(Name("tmp0", vec), alloc), fill])
>>> f = Function("f", [], [steps])
>>> hoist_temporaries(f, {"tmp0"})
>>> print(format_function(f))
func @f() -> ?   role=entry
  tmp0: f64[:] C = np.empty((n,))
  for s: i64 in range(0, steps):
    for i0: i64 in range(0, n):
      tmp0[i0] = 0.0
"""

from __future__ import annotations

from ...ir import nodes as n
from ...ir.rewrite import replace_names
from ...ir.types import BOOL, INT64
from .local_arrays import assignment_counts, nested_blocks
from .values import Namer, clone, const_int


def hoist_temporaries(function: n.Function, generated: set, shape_locals: set = frozenset()) -> None:
    """Allocate temporaries once, before the serial ``range`` loops they do not depend on,
    rather than in every iteration. Only temporaries read and written element by element
    move (not those rebound to a user's name, returned or passed to a kernel), and never out
    of a ``prange`` loop, whose iterations each need their own. The broadcast extents and
    strides ``shape_locals`` that such an allocation reads move with it (the shape checks
    stay in the loop: NumPy raises only when the statement runs)."""
    movable = set(generated)
    for node in n.walk(function):
        if isinstance(node, n.Assign) and isinstance(node.value, n.Name):
            movable.discard(node.value.id)
        elif isinstance(node, n.Return) and node.value is not None:
            values = node.value.elements if isinstance(node.value, n.TupleExpr) else [node.value]
            movable -= {v.id for v in values if isinstance(v, n.Name)}
        elif isinstance(node, n.Call) and node.kind == "kernel":
            movable -= {a.id for a in node.args if isinstance(a, n.Name)}

    def visit(block: list) -> list:
        out = []
        for s in block:
            for child, _ in nested_blocks(s):
                child[:] = visit(child)
            if isinstance(s, n.For) and s.kind == "range" and s.parallel is None:
                varying = set(assignment_counts(n.Function("", [], s.body))) | {s.var.id}
                keep = []
                for inner in s.body:
                    shape_local = isinstance(inner, n.Assign) and isinstance(inner.target, n.Name) \
                        and inner.target.id in shape_locals
                    if (is_allocation_of(inner, movable) or shape_local) and not any(
                            isinstance(x, n.Name) and x.id in varying for x in n.walk(inner.value)):
                        out.append(inner)
                        varying.discard(inner.target.id)
                    else:
                        keep.append(inner)
                s.body = keep
            out.append(s)
        return out

    function.body = visit(function.body)


def hoist_broadcast_checks(function: n.Function, shape_locals: set) -> None:
    """Check broadcast shapes (and compute broadcast extents and strides) once before a loop
    whose iterations would all check the same shapes, under ``if start < stop:`` (a loop
    that does not run raises nothing, as in NumPy). Out of a ``prange`` body the check runs
    on the host before the parallel loop writes anything, where it can raise at once; in a
    kernel body it could only flag, and the PyKokkos target could not run it at all."""

    def hoistable(s, varying: set) -> bool:
        if isinstance(s, n.ExprStmt):
            ok = isinstance(s.value, n.Call) and s.value.func in ("broadcast_operands", "broadcast_into")
        elif isinstance(s, n.Assign):
            ok = isinstance(s.target, n.Name) and s.target.id in shape_locals
        elif isinstance(s, n.If):
            ok = not s.orelse and all(hoistable(t, varying) for t in s.body)
        else:
            ok = False
        return ok and not any(isinstance(x, n.Name) and x.id in varying
                              for x in n.walk(s.value if isinstance(s, n.Assign) else s))

    def visit(block: list) -> list:
        out = []
        for s in block:
            for child, _ in nested_blocks(s):
                child[:] = visit(child)
            step = const_int(s.step) if isinstance(s, n.For) else None
            if step:
                varying = set(assignment_counts(n.Function("", [], s.body))) | {s.var.id}
                checks, keep = [], []
                for inner in s.body:
                    if not hoistable(inner, varying):
                        keep.append(inner)
                    elif isinstance(inner, n.Assign):
                        out.append(inner)
                        varying.discard(inner.target.id)
                    else:
                        checks.append(inner)
                if checks:
                    runs = n.Compare("<" if step > 0 else ">", clone(s.start), clone(s.stop), BOOL, s.loc)
                    out.append(n.If(runs, checks, [], s.loc))
                s.body = keep
            out.append(s)
        return out

    function.body = visit(function.body)


def unswitch_broadcast_strides(function: n.Function, namer: Namer) -> None:
    """A loop nest of the lowering that reads operands at ``i * bs<k>`` runs in two versions:
    ``if bs0 == 1 and ...:`` the nest with every stride 1 (no operand stretched at run time,
    the usual case: contiguous reads that vectorize), ``else:`` the nest as it is. The copy's
    loops get fresh variables: later analyses (index ranges) key loop variables by name."""
    strides, generated = namer.strides, namer.generated

    def version(s):
        used = sorted({x.id for x in n.walk(s) if isinstance(x, n.Name) and x.id in strides})
        if not used or set(used) & set(assignment_counts(n.Function("", [], [s]))):
            return None
        fresh = {x.var.id: namer.fresh("i", x.var.type) for x in n.walk(s) if isinstance(x, n.For)}

        def substitute(name):
            if name.id in used:
                return n.Const(1, name.type, name.loc)
            if name.id in fresh:
                return n.Name(fresh[name.id], name.type, name.loc)
            return None

        plain = drop_unit_factors(replace_names(clone(s), substitute))
        for loop in n.walk(plain):
            if isinstance(loop, n.For) and loop.var.id in fresh:
                loop.var = n.Name(fresh[loop.var.id], loop.var.type, loop.var.loc)
        test = [n.Compare("==", n.Name(name, INT64, s.loc), n.Const(1, INT64, s.loc), BOOL, s.loc) for name in used]
        test = test[0] if len(test) == 1 else n.BoolOp("and", test, BOOL, s.loc)
        return n.If(test, [plain], [s], s.loc)

    def visit(block: list) -> list:
        out = []
        for s in block:
            versioned = version(s) if isinstance(s, n.For) and s.var.id in generated else None
            if versioned is not None:
                out.append(versioned)
                continue
            for child, _ in nested_blocks(s):
                child[:] = visit(child)
            out.append(s)
        return out

    function.body = visit(function.body)


def drop_unit_factors(node):
    """``node`` with every ``e * 1`` rewritten to ``e``, in place."""
    def fold(value):
        while isinstance(value, n.BinOp) and value.op == "*" and const_int(value.right) == 1:
            value = value.left
        return value

    for field in getattr(node, "__dataclass_fields__", ()):
        value = getattr(node, field)
        if isinstance(value, list):
            setattr(node, field, [drop_unit_factors(fold(v)) for v in value])
        elif isinstance(value, (n.Expr, n.Stmt)):
            setattr(node, field, drop_unit_factors(fold(value)))
    return node


def is_allocation_of(s, names: set) -> bool:
    return isinstance(s, n.Assign) and isinstance(s.target, n.Name) and s.target.id in names \
        and isinstance(s.value, n.Call) and s.value.func == "np.empty"
