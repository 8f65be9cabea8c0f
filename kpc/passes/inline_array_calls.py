"""Inline each call of a kernel that returns an array (or a tuple holding arrays) into its caller."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.queries import nested_bodies
from kpc.ir.queries import elementwise_call
from kpc.ir.types import ArrayType, TupleType

from .manager import Pass, register
from .numpy_lowering.values import clone

# Inlined calls may return calls of their own: this many rounds, then what is left stays.
_ROUNDS = 8


@register
class InlineArrayCalls(Pass):
    """Replace ``y = f(x)``, where ``@f`` returns an array, by ``@f``'s body with renamed locals.

    Users factor kernels into helpers that allocate and return arrays (``L = cholesky(A)``,
    ``Q, R = qr(A)``, ``back_sub(U, forward_sub(L, b))``, ``return softmax(z)``). A Kokkos
    kernel cannot return a view to another kernel, so the callee's statements move into the
    caller: its parameters become locals bound to the arguments (an array parameter is a view
    of the caller's array, so writes reach it, as in Numba), its locals get fresh names, and
    the returned expression takes the call's place; a tuple it returns, unpacked into names,
    becomes one assignment per name. Only when it is plain: the callee's one ``return`` is its
    last statement, the call is not in a loop header, a condition, or a branch of ``and``/
    ``or``/``x if c else y`` (which would run the callee when Python does not). The callee
    stays a kernel of its own.

    Before::

        func @scaled(x: f64[:] C, a: f64) -> f64[:] C   role=entry
          out: f64[:] C = np.empty_like(x)
          for i: i64 in range(0, x.shape[0]):
            out[i] = a * x[i]
          return out

        func @total(x: f64[:] C) -> f64   role=entry
          y: f64[:] C = call @scaled(x, 2.0)
          return y.sum()

    After::

        func @scaled(x: f64[:] C, a: f64) -> f64[:] C   role=entry
          out: f64[:] C = np.empty_like(x)
          for i: i64 in range(0, x.shape[0]):
            out[i] = a * x[i]
          return out

        func @total(x: f64[:] C) -> f64   role=entry
          x_scaled0: f64[:] C = x
          a_scaled0: f64 = 2.0
          out_scaled0: f64[:] C = np.empty_like(x_scaled0)
          for i_scaled0: i64 in range(0, x_scaled0.shape[0]):
            out_scaled0[i_scaled0] = a_scaled0 * x_scaled0[i_scaled0]
          y: f64[:] C = out_scaled0
          return y.sum()
    """

    name = "inline-array-calls"

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            inliner = _Inliner(module, function)
            for _ in range(_ROUNDS):
                if not inliner.block(function.body):
                    break


def _returns_array(t) -> bool:
    if isinstance(t, ArrayType):
        return True
    return isinstance(t, TupleType) and any(_returns_array(e) for e in t.elements)


def inlinable(callee: n.Function) -> bool:
    """One ``return`` with a value, the last statement of the body, or returns that
    ``single_exit`` can gather into one."""
    return _plain(callee.body) or single_exit(clone(callee.body), n.Name("result", callee.return_type)) is not None


def _plain(body: list) -> bool:
    if not body or not isinstance(body[-1], n.Return) or body[-1].value is None:
        return False
    return len([s for s in n.walk(body) if isinstance(s, n.Return)]) == 1


def single_exit(body: list, result: n.Name) -> list | None:
    """``body`` with each ``return v`` made ``result = v`` and the statements after an ``if``
    that returns in one branch moved into its other branch, ending in ``return result``
    (``if n < 3: return points.copy()`` ... ``return hull[:k - 1].copy()``); None when a
    return sits in a loop, some paths of a block return and others fall through, or a
    returned value is not of the result's type.

    >>> from kpc.ir.types import FLOAT64, INT64, ArrayType
    >>> from kpc.ir.printer import format_function
    >>> vec, i = ArrayType(FLOAT64, 1, "C"), INT64
    >>> x, k = n.Name("x", vec), n.Name("k", i)
    >>> body = [n.If(n.Compare("<", k, n.Const(3, i)), [n.Return(x)]),
    ...         n.Return(n.Call(".copy", [x], "numpy", type=vec))]
    >>> print(format_function(n.Function("f", [n.Param("x", vec), n.Param("k", i)],
    ...                                  single_exit(body, n.Name("result", vec)), vec)))
    func @f(x: f64[:] C, k: i64) -> f64[:] C   role=entry
      if k < 3:
        result: f64[:] C = x
      else:
        result = x.copy()
      return result
    """
    gathered = _gather(body, result)
    if gathered is None or not gathered[1]:
        return None
    return gathered[0] + [n.Return(n.Name(result.id, result.type, result.loc), result.loc)]


def _holds_return(stmt) -> bool:
    return any(isinstance(s, n.Return) for s in n.walk(stmt))


def _gather(block: list, result: n.Name):
    """(the statements of ``block`` with returns made assignments, whether every path through
    them ends in a return or a raise), or None; None too when some paths return and others
    fall through (what follows the block would run after a return)."""
    gathered = _gather_statements(block, result)
    if gathered is not None and not gathered[1] and _holds_return(block):
        return None
    return gathered


def _gather_statements(block: list, result: n.Name):
    out = []
    for k, stmt in enumerate(block):
        if isinstance(stmt, n.Return):
            value = stmt.value
            if value is None or value.type != result.type and not (
                    isinstance(value.type, ArrayType) and isinstance(result.type, ArrayType)
                    and value.type.dtype == result.type.dtype and value.type.ndim == result.type.ndim
                    and result.type.layout == "A"):
                return None
            out.append(n.Assign(n.Name(result.id, result.type, stmt.loc), value, stmt.loc))
            return out, True
        if isinstance(stmt, n.Raise):
            out.append(stmt)
            return out, True
        if isinstance(stmt, n.If) and _holds_return(stmt):
            body, orelse = _gather(stmt.body, result), _gather(stmt.orelse, result)
            rest = _gather(block[k + 1:], result)
            if body is None or orelse is None or rest is None:
                return None
            (body, body_exits), (orelse, orelse_exits), (rest, rest_exits) = body, orelse, rest
            if not body_exits:
                body, body_exits = body + rest, rest_exits
            elif not orelse_exits:
                orelse, orelse_exits = orelse + rest, rest_exits
            out.append(n.If(stmt.test, body, orelse, stmt.loc))
            return out, body_exits and orelse_exits
        if _holds_return(stmt):
            return None
        out.append(stmt)
    return out, False


class _Inliner:
    def __init__(self, module, function: n.Function):
        self.module = module
        self.function = function
        self.used = {p.name for p in function.params} | set(function.locals)
        for node in n.walk(function):
            if isinstance(node, n.Name):
                self.used.add(node.id)
        self.count = 0

    def block(self, block: list) -> bool:
        """Inline one call per statement of ``block`` (nested blocks too); whether any changed."""
        changed = False
        index = 0
        while index < len(block):
            stmt = block[index]
            for body in nested_bodies(stmt):
                changed |= self.block(body)
            call = self.candidate(stmt)
            if call is None:
                index += 1
                continue
            before, result = self.expand(call)
            replacement = self.replace(stmt, call, result)
            block[index:index + 1] = before + replacement
            index += len(before) + len(replacement)
            changed = True
        return changed

    def candidate(self, stmt):
        """The first call to inline in ``stmt`` (arguments before the call that takes them)."""
        if isinstance(stmt, (n.Assign, n.AugAssign)):
            roots = [stmt.value] + ([stmt.target] if isinstance(stmt.target, n.Index) else [])
        elif isinstance(stmt, (n.Return, n.ExprStmt)) and stmt.value is not None:
            roots = [stmt.value]
        else:
            return None
        for root in roots:
            found = self._search(root)
            if found is not None:
                return found
        return None

    def _search(self, expr):
        if isinstance(expr, (n.IfExp, n.BoolOp)):
            return None  # evaluated only in part: moving a call out would run it always
        if not isinstance(expr, n.Expr):
            return None
        for child in _expr_children(expr):
            found = self._search(child)
            if found is not None:
                return found
        if (isinstance(expr, n.Call) and expr.kind == "kernel" and expr.func in self.module.functions
                and expr.func != self.function.name and _returns_array(expr.type)
                and not elementwise_call(self.module.functions[expr.func], expr)
                and inlinable(self.module.functions[expr.func])):
            return expr
        return None

    def fresh(self, name: str, callee: str) -> str:
        candidate = f"{name}_{callee}{self.count}"
        while candidate in self.used:
            candidate += "_"
        self.used.add(candidate)
        return candidate

    def expand(self, call: n.Call) -> tuple:
        """The statements of the callee's body for ``call``, and the expression it returns."""
        callee = self.module.functions[call.func]
        names = {p.name for p in callee.params} | set(callee.locals)
        for node in n.walk(callee.body):
            if isinstance(node, n.Name):
                names.add(node.id)
            elif isinstance(node, n.For):
                names.add(node.var.id)
        mapping = {name: self.fresh(name, callee.name) for name in sorted(names)}
        self.count += 1
        statements = []
        for param, arg in zip(callee.params, _arguments(call, callee)):
            value = clone(arg)
            if not isinstance(param.type, ArrayType) and getattr(arg, "type", param.type) != param.type:
                value = n.Cast(param.type, value, type=param.type, loc=arg.loc)
            statements.append(n.Assign(n.Name(mapping[param.name], param.type, call.loc), value, call.loc))
            self.function.locals[mapping[param.name]] = param.type
        for name, t in callee.locals.items():
            self.function.locals[mapping[name]] = t
        body = clone(callee.body)
        if not _plain(body):
            result = self.fresh("result", callee.name)
            self.function.locals[result] = callee.return_type
            body = single_exit(body, n.Name(result, callee.return_type, callee.loc))
        _rename(body, mapping)
        for node in n.walk(body):
            if isinstance(node, n.For):
                self.function.locals.setdefault(node.var.id, node.var.type)
        returned = body.pop()
        return statements + body, returned.value

    def replace(self, stmt, call, result) -> list:
        """``stmt`` with ``result`` in place of ``call``: a list of statements (a tuple the
        callee returns, unpacked into names, is one assignment per name)."""
        if (isinstance(stmt, n.Assign) and stmt.value is call and isinstance(stmt.target, n.TupleExpr)
                and isinstance(result, n.TupleExpr) and len(result.elements) == len(stmt.target.elements)
                and all(isinstance(t, n.Name) for t in stmt.target.elements)):
            return [n.Assign(target, value, stmt.loc) for target, value in zip(stmt.target.elements, result.elements)]
        if (isinstance(stmt, n.Assign) and stmt.value is call and isinstance(stmt.target, n.Name)
                and isinstance(result, n.TupleExpr)):
            parts = self.split_tuple(stmt.target, result)
            if parts is not None:
                return parts
        _replace_node(stmt, call, result)
        return [stmt]

    def split_tuple(self, target: n.Name, result: n.TupleExpr) -> list | None:
        """``a = f(...)`` of a tuple holding arrays, read only as ``a[0]``, ``a[1]``, ...: one local
        per element (``a0 = ...``; ``a[0]`` becomes ``a0``), since a Kokkos kernel has no tuple of
        views to index. None when ``a`` is bound elsewhere or read otherwise."""
        name, size = target.id, len(result.elements)
        reads, items = 0, []
        for node in n.walk(self.function.body):
            if isinstance(node, n.Name) and node.id == name:
                reads += 1
            elif isinstance(node, n.Index) and isinstance(node.base, n.Name) and node.base.id == name:
                k = node.indices[0].value if len(node.indices) == 1 and isinstance(node.indices[0], n.Const) else None
                if not isinstance(k, int) or isinstance(k, bool) or not -size <= k < size:
                    return None
                items.append((node, k % size))
            elif isinstance(node, (n.Assign, n.AugAssign)) and node.target is not target \
                    and name in {x.id for x in n.walk(node.target) if isinstance(x, n.Name)}:
                return None
            elif isinstance(node, n.For) and node.var.id == name:
                return None
        if reads != len(items) + 1:
            return None
        names = [self.fresh(f"{name}{k}", "") for k in range(size)]
        for local, value in zip(names, result.elements):
            self.function.locals[local] = value.type
        for node, k in items:
            _replace_node(self.function, node, n.Name(names[k], result.elements[k].type, node.loc))
        return [n.Assign(n.Name(local, value.type, target.loc), value, target.loc)
                for local, value in zip(names, result.elements)]


def _arguments(call: n.Call, callee: n.Function) -> list:
    args = list(call.args)
    for param in callee.params[len(args):]:
        if param.name in call.kwargs:
            args.append(call.kwargs[param.name])
        else:
            args.append(param.default)
    return args


def _expr_children(expr) -> list:
    children = []
    for field in expr.__dataclass_fields__:
        value = getattr(expr, field)
        if isinstance(value, n.Expr):
            children.append(value)
        elif isinstance(value, list):
            children.extend(v for v in value if isinstance(v, n.Expr))
        elif isinstance(value, dict):
            children.extend(v for v in value.values() if isinstance(v, n.Expr))
    return children


def _rename(body: list, mapping: dict) -> None:
    for node in n.walk(body):
        if isinstance(node, n.Name) and node.id in mapping:
            node.id = mapping[node.id]
        elif isinstance(node, n.For):
            if node.var.id in mapping:
                node.var.id = mapping[node.var.id]
            info = node.parallel
            if info is not None:
                for spec in list(info.reductions) + ([info.scan] if info.scan is not None else []):
                    spec.var = mapping.get(spec.var, spec.var)
                info.captures = [mapping.get(x, x) for x in info.captures]
                info.privates = [mapping.get(x, x) for x in info.privates]


def _replace_node(node, old, new) -> bool:
    """Replace the expression ``old`` (by identity) below ``node`` with ``new``."""
    for field in node.__dataclass_fields__:
        value = getattr(node, field)
        if value is old:
            setattr(node, field, new)
            return True
        if isinstance(value, list):
            for k, item in enumerate(value):
                if item is old:
                    value[k] = new
                    return True
                if isinstance(item, (n.Expr, n.Stmt)) and _replace_node(item, old, new):
                    return True
        elif isinstance(value, dict):
            for key, item in value.items():
                if item is old:
                    value[key] = new
                    return True
                if isinstance(item, n.Expr) and _replace_node(item, old, new):
                    return True
        elif isinstance(value, (n.Expr, n.Stmt)) and _replace_node(value, old, new):
            return True
    return False
