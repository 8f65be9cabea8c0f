"""Give every subview in PyKokkos kernel code its own assignment to a fresh name with bare-name positions."""

from __future__ import annotations

from dataclasses import dataclass, field

from kpc.ir import nodes as n
from kpc.ir.diagnostics import Diagnostic, source_line_at
from kpc.ir.queries import assigned_names, expr_names, statements, stmt_defs
from kpc.ir.types import INT64, SLICE, UNKNOWN, ArrayType

from .array_accesses import ArrayScope
from .manager import Pass, register


def _position_hint(expr) -> str:
    if isinstance(expr, n.Name):
        return expr.id
    if isinstance(expr, n.Const) and isinstance(expr.value, int) and expr.value >= 0:
        return f"k{expr.value}"
    if isinstance(expr, n.BinOp) and expr.op in ("+", "-") and isinstance(expr.left, n.Name) \
            and isinstance(expr.right, n.Const) and isinstance(expr.right.value, int):
        return f"{expr.left.id}{'p' if expr.op == '+' else 'm'}{expr.right.value}"
    return "pos"


def _subview_type(base_type, indices: list):
    if not isinstance(base_type, ArrayType):
        return UNKNOWN
    ints = [k for k, i in enumerate(indices) if not isinstance(i, n.Slice)]
    rank = base_type.ndim - len(ints)
    layout = "A"
    if base_type.layout == "C" and ints == list(range(len(ints))):
        layout = "C"
    elif base_type.layout == "F" and ints == list(range(base_type.ndim - len(ints), base_type.ndim)):
        layout = "F"
    return ArrayType(base_type.dtype, rank, layout, base_type.readonly)


@dataclass(eq=False)
class _Frame:
    """An enclosing loop of the statement being rewritten (``loop`` None for an ``if``)."""

    loop: n.Stmt | None
    assigned: set
    hoisted: list = field(default_factory=list)  # assignments placed before the loop


class _Unit:
    """One PyKokkos function body: a workunit (region) or a ``@pk.function`` (device function)."""

    def __init__(self, ctx, module, function: n.Function, region: n.For | None, taken: set):
        self.ctx = ctx
        self.module = module
        self.function = function
        self.region = region
        self.scope = ArrayScope(function)
        self.taken = taken
        self.subviews: dict = {}  # subview name -> the block that assigns it
        self.frames: list = []  # enclosing loops (and ifs, which stop hoisting), innermost last

    def fresh(self, hint: str, ty) -> str:
        name, k = hint, 1
        while name in self.taken:
            k += 1
            name = f"{hint}{k}"
        self.taken.add(name)
        self.function.locals[name] = ty
        if self.region is not None:
            self.region.parallel.privates = sorted(set(self.region.parallel.privates) | {name})
        return name

    def bare(self, expr, before: list):
        """``expr`` as a bare name or a full slice, assigning it to a fresh local when needed."""
        if expr is None or isinstance(expr, n.Name):
            return expr
        name = self.fresh(_position_hint(expr), INT64)
        before.append(n.Assign(n.Name(name, INT64, getattr(expr, "loc", n.NOLOC)), expr, getattr(
            expr, "loc", n.NOLOC)))
        return n.Name(name, INT64, getattr(expr, "loc", n.NOLOC))

    def normalized(self, view: n.Index, before: list) -> n.Index:
        """``base[positions]`` with bare-name positions and explicit trailing ``:``."""
        indices = []
        for index in view.indices:
            if isinstance(index, n.Slice):
                indices.append(n.Slice(self.bare(index.lower, before), self.bare(index.upper, before),
                                       self.bare(index.step, before), SLICE, index.loc))
            else:
                indices.append(self.bare(index, before))
        base_type = getattr(view.base, "type", UNKNOWN)
        if isinstance(base_type, ArrayType):
            indices += [n.Slice(type=SLICE, loc=view.loc) for _ in range(base_type.ndim - len(indices))]
        ty = _subview_type(base_type, indices) if isinstance(base_type, ArrayType) else view.type
        return n.Index(view.base, indices, ty, view.loc)

    def expr(self, expr, before: list, hoistable: bool):
        if isinstance(expr, list):
            return [self.expr(e, before, hoistable) for e in expr]
        if not isinstance(expr, n.Expr):
            return expr
        if isinstance(expr, n.IfExp):
            expr.test = self.expr(expr.test, before, hoistable)
            expr.body = self.expr(expr.body, before, False)
            expr.orelse = self.expr(expr.orelse, before, False)
            return expr
        if isinstance(expr, n.BoolOp):
            expr.values = [self.expr(v, before, hoistable and k == 0) for k, v in enumerate(expr.values)]
            return expr
        for field_name in expr.__dataclass_fields__:
            if field_name in ("type", "loc", "to"):
                continue
            value = getattr(expr, field_name)
            if isinstance(value, (n.Expr, list)):
                setattr(expr, field_name, self.expr(value, before, hoistable))
            elif isinstance(value, dict):
                setattr(expr, field_name, {k: self.expr(v, before, hoistable) for k, v in value.items()})
        if isinstance(expr, n.Index) and isinstance(expr.base, n.Name) and self.scope.is_view(expr):
            if not hoistable:
                self.warn(expr, f"subview {expr} is evaluated conditionally and cannot be given its own "
                                f"assignment; PyKokkos rejects inline subviews")
                return expr
            needs = expr_names(expr)
            target = self.hoist_target(needs)
            placed = target.hoisted if target is not None else before
            view = self.normalized(expr, placed)
            hint = "_".join([expr.base.id] + [i.id for i in view.indices if isinstance(i, n.Name)])
            name = self.fresh(hint, view.type)
            self.subviews[name] = None
            placed.append(n.Assign(n.Name(name, view.type, expr.loc), view, expr.loc))
            return n.Name(name, view.type, expr.loc)
        return expr

    def hoist_target(self, needs: set):
        """The outermost enclosing loop that does not assign any of ``needs`` (None: place it here).

        A subview of ``cluster[i]`` inside ``for j`` is created once per ``i``
        instead of once per ``j``. Never across an ``if``: the subview would be
        created where the source does not create it.
        """
        target = None
        for frame in reversed(self.frames):
            if frame.loop is None or frame.assigned & needs:
                break
            target = frame
        return target

    def block(self, body: list) -> list:
        out = []
        rest = list(body)
        while rest:
            stmt = rest.pop(0)
            before: list = []
            if isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name) and isinstance(
                    stmt.value, n.Index) and isinstance(stmt.value.base, n.Name) and self.scope.is_view(stmt.value):
                stmt.value = self.normalized(stmt.value, before)
                name = stmt.target.id
                if name in self.subviews:
                    if self.subviews[name] is body:
                        new = self.fresh(name, self.function.locals.get(name, stmt.value.type))
                        _rename(rest, name, new)
                        stmt.target = n.Name(new, stmt.target.type, stmt.target.loc)
                        name = new
                    else:
                        self.warn(stmt, f"subview {name} is assigned more than once in one PyKokkos "
                                        f"function (\"Redeclaration of existing subview\"); use distinct names")
                self.subviews[name] = body
            else:
                for field_name in stmt.__dataclass_fields__:
                    value = getattr(stmt, field_name)
                    if field_name in ("loc", "parallel", "var", "target") or not isinstance(value, n.Expr):
                        continue
                    hoistable = not (isinstance(stmt, n.While) and field_name == "test")
                    setattr(stmt, field_name, self.expr(value, before, hoistable))
                if isinstance(getattr(stmt, "target", None), n.Index):
                    stmt.target.indices = self.expr(stmt.target.indices, before, True)
            out += before
            if isinstance(stmt, (n.For, n.While)):
                frame = _Frame(stmt, assigned_names(stmt.body) | set(stmt_defs(stmt)))
                self.frames.append(frame)
                stmt.body = self.block(stmt.body)
                self.frames.pop()
                out += frame.hoisted
            elif isinstance(stmt, n.If):
                self.frames.append(_Frame(None, set()))
                stmt.body = self.block(stmt.body)
                stmt.orelse = self.block(stmt.orelse)
                self.frames.pop()
            out.append(stmt)
        return out

    def warn(self, node, message: str) -> None:
        loc = getattr(node, "loc", n.NOLOC)
        self.ctx.warnings.append(Diagnostic(message, loc, construct="subview", severity="warning",
                                            source_line=source_line_at(loc, self.module.source)))


def _rename(stmts: list, old: str, new: str) -> None:
    for node in n.walk(stmts):
        if isinstance(node, n.Name) and node.id == old:
            node.id = new


@register
class MaterializeSubviews(Pass):
    """Assign each subview used in kernel code to a fresh local, once per PyKokkos function.

    PyKokkos (PYKOKKOS_CONTRACT.md §8) accepts a subview only as ``name = v[i, :]``
    with bare-name integer positions, each name assigned once per workunit, never
    inline in a call. In parallel regions and in device functions (``role``
    ``device``/``both``), every subview expression (slices, or fewer indices than
    the rank) gets such an assignment before its statement, hoisted out of the
    enclosing loops that do not change its positions (not out of an ``if``);
    positions that are not names get a local first (``ip1 = i + 1``); trailing
    ``:`` are made explicit. A user's ``r = a[i]`` assigned twice in the same block is renamed;
    in different branches it is reported. Host code is left alone.

    Before::

        func @potential(cluster: f64[:, :] C) -> f64   role=entry parallel
          energy: f64 = 0.0
          parallel_reduce(sum:energy) Range i: i64 in prange(0, len(cluster) - 1):
            for j: i64 in range(i + 1, len(cluster)):
              energy += call @lj(call @distance(cluster[i, :], cluster[j, :]))
              energy += call @lj(call @distance(cluster[i + 1, :], cluster[0, :]))
          return energy

    After::

        func @potential(cluster: f64[:, :] C) -> f64   role=entry parallel
          energy: f64 = 0.0
          parallel_reduce(sum:energy) Range i: i64 in prange(0, len(cluster) - 1):
            cluster_i: f64[:] C = cluster[i, :]
            ip1: i64 = i + 1
            cluster_ip1: f64[:] C = cluster[ip1, :]
            k0: i64 = 0
            cluster_k0: f64[:] C = cluster[k0, :]
            for j: i64 in range(i + 1, len(cluster)):
              cluster_j: f64[:] C = cluster[j, :]
              energy += call @lj(call @distance(cluster_i, cluster_j))
              energy += call @lj(call @distance(cluster_ip1, cluster_k0))
          return energy
    """

    name = "materialize-subviews"

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            taken = set(function.locals) | {p.name for p in function.params}
            taken |= {node.id for node in n.walk(function) if isinstance(node, n.Name)}
            if function.role != "device":
                for loop in list(statements(function.body)):
                    if isinstance(loop, n.For) and loop.parallel is not None:
                        loop.body = _Unit(ctx, module, function, loop, taken).block(loop.body)
            if function.role in ("device", "both"):
                function.body = _Unit(ctx, module, function, None, taken).block(function.body)
