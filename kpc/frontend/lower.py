"""Lowering of one kernel's Python syntax tree to IR, rejecting what kpc does not translate.

Every node gets a ``Loc`` (file, line, column of the Python node). The lowering is
faithful: it does not type anything and does not rewrite NumPy code, except for
these normalizations, which do not change meaning:

- ``a[i][j]`` becomes one ``Index`` ``a[i, j]`` (when the inner index has no slice);
- ``a < b < c`` becomes ``a < b and b < c`` (``b`` lowered twice);
- ``-3`` is the constant ``-3``; ``np.newaxis`` is the constant ``None``;
- ``for i in range(n)`` gets explicit ``start=0`` and ``step=1``;
- ``for i, j in np.ndindex(n, m)`` becomes nested ``range`` loops (``ndindex_loop``); ``a.flat``
  is read as ``a.ravel()``;
- ``for v in a``, ``for i, v in enumerate(a)`` and ``for v, w in zip(a, b)`` become index
  loops over ``range(len(a))`` (zip: the shortest length) whose body starts with ``v = a[i]``
  (``element_loop``);
- a loop's ``else`` clause becomes a flag set before its breaks (``frontend.loop_else``);
- a list of numbers (or of tuples) built in the kernel and used only as ``frontend.lists``
  describes becomes growable NumPy buffers and a count (``rewrite_lists``);
- ``a = b = v`` becomes one assignment per target, left to right, ``v`` evaluated once
  (``assign``);
- calls of other kernels are bound positionally, with defaults filled in;
- ``int(x)``, ``float(x)``, ``bool(x)``, ``np.float32(x)``, ``numba.int32(x)`` are ``Cast``;
- ``np.random.X(...)`` is ``Call(kind="random")`` with its arguments bound to NumPy's
  parameters, in order (``random_call``);
- ``math.X``/``np.X`` names are spelled canonically (``np.sqrt`` for ``numpy.sqrt`` or
  ``from numpy import sqrt``); a dtype reference (``np.float32``, ``float`` as a dtype) is a
  ``GlobalConst`` whose value is the dtype name (a ``str``).

Anything outside the kernel subset raises ``KpcError`` naming the construct.
"""

from __future__ import annotations

import ast
import copy
import builtins
from collections import Counter

from kpc.ir import intrinsics as lib
from kpc.ir import nodes as n
from kpc.ir.diagnostics import KpcError
from kpc.ir.types import scalar

from .decorators import JitSpec
from .lists import rewrite_lists
from .loop_else import rewrite_loop_else
from .scope import MATH_CONSTANTS, NUMPY_CONSTANTS, ModuleScope, NotConstant
from .unsupported import hint

BINOPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^",
    ast.BitAnd: "&", ast.MatMult: "@",
}
UNARYOPS = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}
CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}

# Statements and expressions outside the subset, with the construct name diagnostics use.
REJECTED_STMTS = {
    ast.ClassDef: "class", ast.FunctionDef: "nested function", ast.AsyncFunctionDef: "nested function",
    ast.Try: "try", ast.With: "with", ast.AsyncWith: "async",
    ast.AsyncFor: "async", ast.Global: "global statement", ast.Nonlocal: "nonlocal statement",
    ast.Delete: "del", ast.Assert: "assert", ast.Import: "import in a kernel",
    ast.ImportFrom: "import in a kernel", ast.Match: "match",
}
if hasattr(ast, "TryStar"):
    REJECTED_STMTS[ast.TryStar] = "try"
REJECTED_EXPRS = {
    ast.List: "list", ast.Dict: "dict", ast.Set: "set", ast.ListComp: "list comprehension",
    ast.SetComp: "set comprehension", ast.DictComp: "dict comprehension",
    ast.GeneratorExp: "generator expression", ast.Lambda: "lambda", ast.JoinedStr: "f-string",
    ast.FormattedValue: "f-string", ast.Yield: "generator", ast.YieldFrom: "generator",
    ast.Await: "await", ast.NamedExpr: "walrus", ast.Starred: "starred expression",
}


def _stored_names(body: list) -> set:
    """Names assigned anywhere in a function body (Python's rule for what is local)."""
    return set(_bindings(body))


def _bindings(body: list) -> Counter:
    """How many times each name is bound in a function body (assignment and loop targets).

    Only statements bind names in the kernel subset (comprehensions, walrus, ``with ... as``
    and ``except ... as`` are rejected), so only their targets are visited.

    >>> sorted(_bindings(ast.parse("a = b = 1\\nfor i in r:\\n    a += i").body).items())
    [('a', 2), ('b', 1), ('i', 1)]
    """
    names, stack = Counter(), list(body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            targets = [stmt.target]
        else:
            targets = []
        for target in targets:
            names.update(_target_names(target))
        for field in ("body", "orelse"):
            stack.extend(getattr(stmt, field, ()))
    return names


def _target_names(target) -> list:
    """The names an assignment target binds: ``(a, b[i]), *c`` binds ``a`` and ``c``."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _target_names(element)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


class FunctionLowering:
    """Lowers one ``def`` (a Numba kernel) to an ``ir.Function``."""

    def __init__(self, fdef, spec: JitSpec, scope: ModuleScope, kernels: set, path: str, source: str):
        self.fdef = fdef
        self.spec = spec
        self.scope = scope
        self.kernels = kernels
        self.path = path
        self.source = source
        self.name = fdef.name
        self.locals: set = set()
        self.bindings: Counter = Counter()
        self.params: set = set()
        # Module-level arrays the body reads (name -> loc of the first read): each becomes a
        # local built at the top of the function from the values Numba freezes.
        self.module_arrays: dict = {}

    # -- helpers
    def loc(self, node) -> n.Loc:
        return n.Loc(self.path, node.lineno, node.col_offset)

    def fail(self, node, message: str, construct: str) -> KpcError:
        end = node.end_col_offset if getattr(node, "end_lineno", None) == node.lineno else -1
        return KpcError.at(self.loc(node), message, construct, hint(construct), self.source, end)

    def reject(self, node, construct: str, detail: str = "") -> KpcError:
        message = f"unsupported construct '{construct}' in kernel '{self.name}'"
        if detail:
            message += f": {detail}"
        return self.fail(node, message, construct)

    # -- function
    def lower(self) -> n.Function:
        args = self.fdef.args
        if args.vararg is not None:
            raise self.reject(args.vararg, "star-args", f"*{args.vararg.arg}")
        if args.kwarg is not None:
            raise self.reject(args.kwarg, "**kwargs", f"**{args.kwarg.arg}")
        if args.kwonlyargs:
            raise self.reject(args.kwonlyargs[0], "keyword-only parameter", args.kwonlyargs[0].arg)
        positional = list(args.posonlyargs) + list(args.args)
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        params = []
        for arg, default in zip(positional, defaults):
            param = n.Param(arg.arg, loc=self.loc(arg))
            if default is not None:
                param.default = self.default_value(default, arg.arg)
            params.append(param)
        body = self.fdef.body
        docstring = None
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            docstring = body[0].value.value
            body = body[1:]
        self.bindings = _bindings(body)
        self.params = {p.name for p in params}
        self.locals = set(self.bindings) | self.params
        numpy = next((alias for alias, qualified in self.scope.aliases.items()
                      if qualified == "numpy" and alias not in self.locals), None)
        body = rewrite_loop_else(body, self.fresh_name)
        body = rewrite_lists(body, numpy, self.fresh_name, self.range_kind, self.params)
        self.bindings = _bindings(body)
        self.locals |= set(self.bindings)
        lowered = self.block(body)
        function = n.Function(
            self.name, params, self.frozen_arrays() + lowered, options=dict(self.spec.options),
            signatures=list(self.spec.signatures), docstring=docstring, loc=self.loc(self.fdef),
        )
        return function

    def frozen_arrays(self) -> list:
        """``GAUSS3 = np.array(((0.0625, 0.125, 0.0625), ...), dtype=np.float64)`` for each
        module-level array the body reads: Numba freezes such a global into the compiled code as
        a constant array; here each call builds it once, before the body."""
        out = []
        for name, loc in self.module_arrays.items():
            value = self.scope.arrays[name]

            def literal(part):
                if isinstance(part, list):
                    return n.TupleExpr([literal(p) for p in part], loc=loc)
                return n.Const(part, loc=loc)

            dtype = n.GlobalConst(f"np.{value.dtype.name}_" if value.dtype.name == "bool" else f"np.{value.dtype.name}",
                                  value.dtype.name, loc=loc)
            built = n.Call("np.array", [literal(value.tolist())], "numpy", {"dtype": dtype}, loc=loc)
            out.append(n.Assign(n.Name(name, loc=loc), built, loc=loc))
        return out

    def default_value(self, node, param: str) -> n.Expr:
        qualified = self.scope.qualify(node) or ""
        if qualified.startswith("numpy.") and qualified[6:] in lib.NUMPY_DTYPES:
            # def f(n, dtype=np.float64): a dtype taken as an argument (Numba: class(float64))
            return n.GlobalConst(f"np.{qualified[6:]}", lib.NUMPY_DTYPES[qualified[6:]], loc=self.loc(node))
        try:
            value = self.scope.evaluate(node)
        except NotConstant:
            value = NotConstant
        if value is NotConstant or isinstance(value, (str, tuple)):
            raise self.reject(node, "non-constant default", f"{param}={ast.unparse(node)}")
        return n.Const(value, loc=self.loc(node))

    # -- statements
    def block(self, stmts: list) -> list:
        out = []
        for stmt in stmts:
            out.extend(self.stmt(stmt))
        return out

    def stmt(self, node) -> list:
        kind = type(node)
        if kind in REJECTED_STMTS:
            construct = REJECTED_STMTS[kind]
            detail = ""
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                detail = node.name
            raise self.reject(node, construct, detail)
        if isinstance(node, ast.Assign):
            return self.assign(node)
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                raise self.reject(node, "annotation", f"{ast.unparse(node)} declares without assigning")
            return [n.Assign(self.target(node.target), self.expr(node.value), loc=self.loc(node))]
        if isinstance(node, ast.AugAssign):
            return [n.AugAssign(self.target(node.target), BINOPS[type(node.op)], self.expr(node.value),
                                loc=self.loc(node))]
        if isinstance(node, ast.For):
            return self.for_loop(node)
        if isinstance(node, ast.While):  # an else clause is gone by now (rewrite_loop_else)
            return [n.While(self.expr(node.test), self.block(node.body), loc=self.loc(node))]
        if isinstance(node, ast.If):
            return [n.If(self.expr(node.test), self.block(node.body), self.block(node.orelse),
                         loc=self.loc(node))]
        if isinstance(node, ast.Return):
            value = None if node.value is None else self.expr(node.value)
            return [n.Return(value, loc=self.loc(node))]
        if isinstance(node, ast.Expr):
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return []
            return [n.ExprStmt(self.expr(value), loc=self.loc(node))]
        if isinstance(node, ast.Raise):
            return [self.raise_stmt(node)]
        if isinstance(node, ast.Pass):
            return []
        if isinstance(node, ast.Break):
            return [n.Break(loc=self.loc(node))]
        if isinstance(node, ast.Continue):
            return [n.Continue(loc=self.loc(node))]
        raise self.reject(node, type(node).__name__.lower())

    def raise_stmt(self, node: ast.Raise) -> n.Raise:
        """``raise E``, ``raise E()`` or ``raise E("text")`` with ``E`` a builtin exception class
        (what Numba raises with its message); other forms stay Numba with a diagnostic."""
        exc = node.exc
        call = exc if isinstance(exc, ast.Call) else None
        cls = call.func if call is not None else exc
        name = cls.id if isinstance(cls, ast.Name) else None
        builtin = getattr(builtins, name, None) if name else None
        if node.cause is not None or exc is None or not (
                isinstance(builtin, type) and issubclass(builtin, Exception)
                and name not in self.locals and not self.scope._shadowed(name)):
            what = "re-raise" if exc is None else ast.unparse(node)
            raise self.reject(node, "raise", f"{what} (only `raise E` or `raise E(\"text\")` of a builtin "
                                             "exception class E is translated)")
        args = call.args if call is not None else []
        if call is not None and (call.keywords or len(args) > 1 or args and not (
                isinstance(args[0], ast.Constant) and isinstance(args[0].value, str))):
            raise self.reject(node, "raise", f"{ast.unparse(node)} (the exception's one argument must be a "
                                             "string constant)")
        message = args[0].value if args else ""
        return n.Raise(name, message, bool(args), loc=self.loc(node))

    def assign(self, node: ast.Assign) -> list:
        """``t = v``; a chained ``a = b = v`` assigns the one value of ``v`` to ``a``, then to ``b``.

        Python evaluates ``v`` once, then assigns the targets from left to right. Each target
        gets ``v`` itself when ``v`` is a constant, or a name no earlier target rebinds; else
        each later target reads the first one when that is a local name bound only here and not
        a parameter (so Numba gives it exactly ``v``'s type); else ``v`` goes to a new local first.
        """
        loc = self.loc(node)
        value = self.expr(node.value)
        targets = [self.target(t) for t in node.targets]
        if len(targets) == 1:
            return self.unnest(targets[0], value, loc)
        rebound = {name for target in node.targets[:-1] for name in _target_names(target)}
        if isinstance(value, (n.Const, n.GlobalConst)) or isinstance(value, n.Name) and value.id not in rebound:
            return [n.Assign(t, self.expr(node.value), loc=loc) for t in targets]
        first = targets[0]
        if isinstance(first, n.Name) and self.bindings[first.id] == 1 and first.id not in self.params:
            return [n.Assign(first, value, loc=loc)] + [n.Assign(t, n.Name(first.id, loc=first.loc), loc=loc)
                                                        for t in targets[1:]]
        held = n.Name(self.fresh_name("chained_value"), loc=value.loc)
        return [n.Assign(held, value, loc=loc)] + [n.Assign(t, n.Name(held.id, loc=held.loc), loc=loc)
                                                   for t in targets]

    def unnest(self, target, value, loc) -> list:
        """``(a, b), c = v`` as assignments with flat tuple targets. A tuple written out on the
        right is matched element by element (``(a, b), c = (1, 2), 3`` is ``a, b, c = 1, 2, 3``:
        the right side is still evaluated whole first); any other value is unpacked into a
        fresh local per nested target, which is unpacked next (``t0, c = v; a, b = t0``)."""
        if not (isinstance(target, n.TupleExpr) and any(isinstance(e, n.TupleExpr) for e in target.elements)):
            return [n.Assign(target, value, loc=loc)]
        flat_targets, flat_values = _flatten_matching(target, value)
        if flat_targets is not None:
            return [n.Assign(n.TupleExpr(flat_targets, loc=target.loc), n.TupleExpr(flat_values, loc=value.loc),
                             loc=loc)]
        outer, inner = [], []
        for element in target.elements:
            if isinstance(element, n.TupleExpr):
                held = self.fresh_name("unpacked")
                outer.append(n.Name(held, loc=element.loc))
                inner.append((element, n.Name(held, loc=element.loc)))
            else:
                outer.append(element)
        out = [n.Assign(n.TupleExpr(outer, loc=target.loc), value, loc=loc)]
        for element, held in inner:
            out += self.unnest(element, held, loc)
        return out

    def target(self, node) -> n.Expr:
        if isinstance(node, ast.Name):
            return n.Name(node.id, loc=self.loc(node))
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "flat":
            raise self.reject(node, "assignment through .flat", f"{ast.unparse(node)} (index the array itself)")
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    raise self.starred_target(element)
            return n.TupleExpr([self.target(e) for e in node.elts], loc=self.loc(node))
        if isinstance(node, ast.Attribute):
            raise self.reject(node, "attribute assignment", ast.unparse(node))
        if isinstance(node, ast.Starred):
            raise self.starred_target(node)
        raise self.reject(node, type(node).__name__.lower(), "as an assignment target")

    def starred_target(self, node: ast.Starred) -> KpcError:
        # Numba rejects UNPACK_EX too, so there is no Numba meaning to translate: the kernel
        # stays as it is, and the diagnostic says how to write the unpacking Numba compiles.
        return self.reject(node, "starred assignment target",
                           f"{ast.unparse(node)} (Numba does not compile starred unpacking either)")

    def for_loop(self, node: ast.For) -> list:  # an else clause is gone by now (rewrite_loop_else)
        kind = self.range_kind(node.iter)
        if kind is None and isinstance(node.iter, ast.Call) and self.qualify(node.iter.func) == "numpy.ndindex":
            return self.ndindex_loop(node)
        if kind is None and self.constant_tuple(node.iter) is not None:
            return self.tuple_loop(node)
        if kind is None:
            return self.element_loop(node)
        if not isinstance(node.target, ast.Name):
            raise self.reject(node.target, "tuple loop target", ast.unparse(node.target))
        call = node.iter
        if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            raise self.reject(call, "keyword argument", f"{kind}() takes positional arguments only")
        if not 1 <= len(call.args) <= 3:
            raise self.fail(call, f"{kind}() expects 1 to 3 arguments, got {len(call.args)}", "call")
        args = [self.expr(a) for a in call.args]
        if len(args) == 1:
            start, stop, step = n.Const(0, loc=args[0].loc), args[0], n.Const(1, loc=args[0].loc)
        else:
            start, stop = args[0], args[1]
            step = args[2] if len(args) == 3 else n.Const(1, loc=args[1].loc)
        var = n.Name(node.target.id, loc=self.loc(node.target))
        return [n.For(var, start, stop, step, self.block(node.body), kind=kind, loc=self.loc(node))]

    def ndindex_loop(self, node: ast.For) -> list:
        """``for i, j in np.ndindex(n, m)`` (or ``np.ndindex(a.shape)``, ``np.ndindex((n, m))``): nested
        ``range`` loops, the last index fastest, as NumPy's C order; a single target ``idx`` is bound to
        the tuple of indices at the top of the body. The rank comes from the extents written out, or
        from the unpacking target for ``np.ndindex(a.shape)``."""
        call, target, loc = node.iter, node.target, self.loc(node)
        if call.keywords:
            raise self.reject(call, "keyword argument", "np.ndindex() takes extents only")
        names = [t.id for t in target.elts] if isinstance(target, ast.Tuple) and all(
            isinstance(t, ast.Name) for t in target.elts) else None
        if names is None and not isinstance(target, ast.Name):
            raise self.reject(target, "tuple loop target", ast.unparse(target))
        args = call.args
        if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
            args = args[0].elts
        if len(args) == 1 and isinstance(args[0], ast.Attribute) and args[0].attr == "shape":
            if names is None:
                raise self.reject(call, "iteration over a non-array", "np.ndindex(a.shape) with one loop "
                                  "target: unpack the indices (for i, j in np.ndindex(a.shape))")
            shape = self.expr(args[0])
            extents = [n.Index(shape, [n.Const(d, loc=loc)], loc=loc) if d == 0 else
                       n.Index(self.expr(args[0]), [n.Const(d, loc=loc)], loc=loc) for d in range(len(names))]
        elif args and not any(isinstance(a, ast.Starred) for a in args):
            extents = [self.expr(a) for a in args]
        else:
            raise self.reject(call, "iteration over a non-array", f"for ... in {ast.unparse(call)}")
        if names is not None and len(names) != len(extents):
            raise self.fail(target, f"np.ndindex() of {len(extents)} extents unpacked into {len(names)} names",
                            "tuple loop target")
        if names is None:
            names = [self.fresh_name(f"{target.id}_{d}") for d in range(len(extents))]
            self.locals.update(names)
        body = self.block(node.body)
        if isinstance(target, ast.Name):
            index = n.TupleExpr([n.Name(v, loc=loc) for v in names], loc=loc)
            body = [n.Assign(n.Name(target.id, loc=self.loc(target)), index, loc=loc)] + body
        for var, extent in reversed(list(zip(names, extents))):
            body = [n.For(n.Name(var, loc=loc), n.Const(0, loc=loc), extent, n.Const(1, loc=loc), body, loc=loc)]
        return body

    def constant_tuple(self, node) -> list | None:
        """The elements of a tuple of number constants a loop runs over (``(0, 1)``, ``(0.25, 0.5)``,
        a module constant ``W = (1, 2)``), as ``Const`` nodes, or of a tuple of such tuples of one
        length (``((-1, 0, 4.0), (0, 1, -1.0))``), as one list of ``Const`` nodes per inner tuple;
        None for any other iterable."""
        if isinstance(node, ast.Name) and node.id not in self.locals and node.id in self.scope.constants:
            value = self.scope.constants[node.id]
            if not isinstance(value, tuple) or not value:
                return None
            rows = [[n.Const(v, loc=self.loc(node)) for v in row] if isinstance(row, tuple) else
                    n.Const(row, loc=self.loc(node)) for row in value]
        elif isinstance(node, ast.Tuple):
            if not node.elts or any(isinstance(e, ast.Starred) for e in node.elts):
                return None
            rows = [self.constant_elements(e.elts) if isinstance(e, ast.Tuple) else self.constant_elements([e])
                    for e in node.elts]
            if any(row is None for row in rows):
                return None
            rows = [row if isinstance(e, ast.Tuple) else row[0] for row, e in zip(rows, node.elts)]
        else:
            return None
        nested = [isinstance(row, list) for row in rows]
        if any(nested) and not (all(nested) and len({len(row) for row in rows}) == 1 and rows[0]):
            return None
        flat = [e for row in rows for e in (row if isinstance(row, list) else [row])]
        if not all(type(e.value) in (bool, int, float, complex) for e in flat):
            return None
        return rows

    def constant_elements(self, nodes) -> list | None:
        """``Const`` nodes of number constants written out (``-1``, ``0.5``, a module constant)."""
        elements = []
        for element in nodes:
            value = self.expr(element) if isinstance(element, (ast.Constant, ast.Name, ast.UnaryOp)) else None
            if not isinstance(value, (n.Const, n.GlobalConst)):
                return None
            elements.append(n.Const(value.value, loc=self.loc(element)))
        return elements

    def tuple_loop(self, node: ast.For) -> list:
        """``for c in (0, 1):`` runs over the tuple's positions, selecting the element at the top
        of the body: ``for c_index in range(0, 2): c = 0 if c_index == 0 else 1``; over a tuple of
        tuples, ``for di, dj, v in ((-1, 0, -1.0), (0, 1, -1.0)):`` selects each name's element so.

        Numba iterates a tuple of one type only (``(0, 1)``, ``(0.25, 0.5, 0.25)``, tuples of the
        same element types); a tuple mixing ints and floats does not compile in Numba, so it is
        refused here too. The body is lowered once (break, continue and return keep their meaning,
        a long body is not copied); the selection is a few compares on a loop index the C++
        compiler can unroll.
        """
        loc = self.loc(node)
        rows = self.constant_tuple(node.iter)
        target = node.target
        if isinstance(rows[0], list):
            if not (isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts)
                    and len(target.elts) == len(rows[0])):
                raise self.reject(target, "tuple loop target", f"{ast.unparse(target)} (unpack each inner tuple "
                                  f"into {len(rows[0])} names)")
            names = [t for t in target.elts]
            columns = [[row[k] for row in rows] for k in range(len(names))]
        elif isinstance(target, ast.Name):
            names, columns = [target], [rows]
        else:
            raise self.reject(target, "tuple loop target", ast.unparse(target))
        if any(len({type(e.value) for e in column}) > 1 for column in columns):
            kinds = {type(e.value).__name__ for column in columns for e in column}
            raise self.reject(node.iter, "iteration over a non-array",
                              f"for ... in {ast.unparse(node.iter)} mixes {' and '.join(sorted(kinds))} "
                              "(Numba iterates tuples of one type only)")
        index = self.fresh_name(f"{names[0].id}_index")
        body = []
        for name, elements in zip(names, columns):
            selected = elements[-1]
            for position in range(len(elements) - 2, -1, -1):
                test = n.Compare("==", n.Name(index, loc=loc), n.Const(position, loc=loc), loc=loc)
                selected = n.IfExp(test, elements[position], selected, loc=loc)
            body.append(n.Assign(n.Name(name.id, loc=self.loc(name)), selected, loc=self.loc(name)))
        body += self.block(node.body)
        return [n.For(n.Name(index, loc=loc), n.Const(0, loc=loc), n.Const(len(rows), loc=loc),
                      n.Const(1, loc=loc), body, loc=loc)]

    def element_loop(self, node: ast.For) -> list:
        """``for v in a``, ``for i, v in enumerate(a)``, ``for v, w in zip(a, b)``: an index loop.

        The loop runs over ``range(len(a))`` (zip: ``range(min(len(a), len(b)))``) and binds the
        elements at the top of the body, as ``v = a[i]``. A sequence that is not a plain name,
        or a name the body assigns, is first bound to a local, so that it is evaluated once,
        as Python does.
        """
        loc = self.loc(node)
        index, pairs = self.iteration(node.iter, node.target)
        stored = _stored_names(node.body)
        setup, sequences = [], []
        for target, sequence in pairs:
            value = self.expr(sequence)
            if isinstance(value, (n.Const, n.GlobalConst, n.TupleExpr)):
                raise self.reject(sequence, "iteration over a non-array", f"for ... in {ast.unparse(sequence)}")
            if not isinstance(value, n.Name) or value.id in stored:
                name = self.fresh_name(f"{target.id}_values")
                setup.append(n.Assign(n.Name(name, loc=value.loc), value, loc=loc))
                value = n.Name(name, loc=value.loc)
            sequences.append((target, value))
        if index is None:
            var = n.Name(self.fresh_name(f"{sequences[0][0].id}_index"), loc=loc)
        else:
            var = n.Name(index.id, loc=self.loc(index))
        lengths = [n.Call("len", [n.Name(s.id, loc=s.loc)], "builtin", loc=s.loc) for _, s in sequences]
        stop = lengths[0] if len(lengths) == 1 else n.Call("min", lengths, "builtin", loc=loc)
        body = [n.Assign(n.Name(t.id, loc=self.loc(t)), n.Index(n.Name(s.id, loc=s.loc), [n.Name(var.id, loc=loc)],
                                                                 loc=self.loc(t)), loc=self.loc(t))
                for t, s in sequences]
        body += self.block(node.body)
        return setup + [n.For(var, n.Const(0, loc=stop.loc), stop, n.Const(1, loc=stop.loc), body, loc=loc)]

    def iteration(self, iterable, target) -> tuple:
        """(the index target of ``enumerate`` or None, [(element target, sequence)]) of a for loop."""
        index = None
        if self.builtin_call_of(iterable, "enumerate"):
            if len(iterable.args) != 1 or iterable.keywords:
                raise self.reject(iterable, "iteration over a non-array",
                                  "enumerate() takes one array here (no start)")
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)):
                raise self.reject(target, "tuple loop target", f"{ast.unparse(target)} for enumerate()")
            index, target, iterable = target.elts[0], target.elts[1], iterable.args[0]
        if self.builtin_call_of(iterable, "zip"):
            if not iterable.args or iterable.keywords:
                raise self.reject(iterable, "iteration over a non-array", "zip() takes arrays here")
            if not (isinstance(target, ast.Tuple) and len(target.elts) == len(iterable.args)
                    and all(isinstance(t, ast.Name) for t in target.elts)):
                raise self.reject(target, "tuple loop target",
                                  f"{ast.unparse(target)} for zip() of {len(iterable.args)} arrays")
            pairs = list(zip(target.elts, iterable.args))
        elif isinstance(target, ast.Name):
            pairs = [(target, iterable)]
        else:
            raise self.reject(target, "tuple loop target", ast.unparse(target))
        for _, sequence in pairs:
            if not isinstance(sequence, (ast.Name, ast.Subscript, ast.Attribute, ast.Call)) or \
                    isinstance(sequence, ast.Call) and (self.range_kind(sequence) is not None or isinstance(
                        sequence.func, ast.Name) and self.is_builtin(sequence.func.id)):
                raise self.reject(sequence, "iteration over a non-array", f"for ... in {ast.unparse(sequence)}")
        return index, pairs

    def builtin_call_of(self, node, name: str) -> bool:
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name \
            and self.is_builtin(name)

    def fresh_name(self, base: str) -> str:
        """A local name not used in the kernel (``base``, then ``base_2``, ...)."""
        scope = self.scope
        name, k = base, 1
        while name in self.locals or name in scope.aliases or name in scope.constants or name in scope.variables \
                or name in scope.functions or name in scope.classes or hasattr(builtins, name):
            k += 1
            name = f"{base}_{k}"
        self.locals.add(name)
        return name

    def range_kind(self, node) -> str | None:
        if not isinstance(node, ast.Call):
            return None
        func = node.func
        if isinstance(func, ast.Name) and func.id == "range" and self.is_builtin(func.id):
            return "range"
        if self.qualify(func) == "numba.prange":
            return "prange"
        return None

    # -- name resolution
    def is_builtin(self, name: str) -> bool:
        scope = self.scope
        shadowed = (name in self.locals or name in scope.aliases or name in scope.constants
                    or name in scope.variables or name in scope.functions or name in scope.classes)
        return not shadowed and hasattr(builtins, name)

    def qualify(self, node) -> str | None:
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.locals:
            return None
        return self.scope.qualify(node)

    # -- expressions
    def expr(self, node) -> n.Expr:
        kind = type(node)
        if kind in REJECTED_EXPRS:
            construct = REJECTED_EXPRS[kind]
            raise self.reject(node, construct, ast.unparse(node) if construct in ("walrus", "lambda") else "")
        loc = self.loc(node)
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            return self.name_ref(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.BinOp):
            return n.BinOp(BINOPS[type(node.op)], self.expr(node.left), self.expr(node.right), loc=loc)
        if isinstance(node, ast.UnaryOp):
            op = UNARYOPS[type(node.op)]
            operand = self.expr(node.operand)
            if op == "-" and isinstance(operand, n.Const) and type(operand.value) in (int, float, complex):
                return n.Const(-operand.value, loc=loc)
            return n.UnaryOp(op, operand, loc=loc)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            return n.BoolOp(op, [self.expr(v) for v in node.values], loc=loc)
        if isinstance(node, ast.IfExp):
            return n.IfExp(self.expr(node.test), self.expr(node.body), self.expr(node.orelse), loc=loc)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Tuple):
            return n.TupleExpr([self.expr(e) for e in node.elts], loc=loc)
        if isinstance(node, ast.Slice):
            raise self.reject(node, "complex slicing", "a slice outside of an index")
        raise self.reject(node, type(node).__name__.lower())

    def constant(self, node: ast.Constant) -> n.Expr:
        value = node.value
        if isinstance(value, str):
            raise self.reject(node, "string", repr(value) if len(value) < 30 else "")
        if isinstance(value, bytes):
            raise self.reject(node, "bytes")
        if value is Ellipsis:
            raise self.reject(node, "ellipsis")
        return n.Const(value, loc=self.loc(node))

    def name_ref(self, node: ast.Name) -> n.Expr:
        ident = node.id
        loc = self.loc(node)
        if ident in self.locals:
            return n.Name(ident, loc=loc)
        scope = self.scope
        if ident in scope.constants:
            value = scope.constants[ident]
            if isinstance(value, str):
                raise self.reject(node, "string", f"module constant {ident} = {value!r}")
            if value is None:
                return n.Const(None, loc=loc)
            return n.GlobalConst(ident, value, loc=loc)
        if ident in scope.aliases:
            return self.qualified_value(node, scope.aliases[ident])
        if ident in scope.functions or ident in self.kernels:
            raise self.reject(node, "first-class function", f"{ident} used as a value")
        if ident in scope.classes:
            raise self.reject(node, "class", ident)
        if ident in scope.arrays:
            self.module_arrays.setdefault(ident, loc)
            return n.Name(ident, loc=loc)
        if ident in scope.variables:
            raise self.reject(node, "module-level variable",
                              f"{ident} is not a numeric constant at module level")
        if self.is_builtin(ident):
            if ident in lib.CAST_BUILTINS:
                return n.GlobalConst(ident, lib.CAST_BUILTINS[ident], loc=loc)
            raise self.reject(node, "first-class function", f"builtin {ident} used as a value")
        raise self.reject(node, "undefined name", f"{ident} is not defined in this module")

    def qualified_value(self, node, qualified: str) -> n.Expr:
        """A reference to an imported module member used as a value (``math.pi``, ``np.float32``)."""
        loc = self.loc(node)
        module, _, attr = qualified.rpartition(".")
        if module in ("math", "cmath") and attr in MATH_CONSTANTS:
            return n.GlobalConst(f"math.{attr}", MATH_CONSTANTS[attr], loc=loc)
        if module == "numpy":
            if attr == "newaxis":
                return n.Const(None, loc=loc)
            if attr in NUMPY_CONSTANTS:
                return n.GlobalConst(f"np.{attr}", NUMPY_CONSTANTS[attr], loc=loc)
            if attr in lib.NUMPY_DTYPES:
                return n.GlobalConst(f"np.{attr}", lib.NUMPY_DTYPES[attr], loc=loc)
        if module in ("numba", "numba.types") and attr in lib.NUMBA_SCALARS:
            return n.GlobalConst(f"numba.{attr}", lib.NUMBA_SCALARS[attr], loc=loc)
        if module in ("math", "numpy", "numpy.linalg") or qualified.startswith("numba"):
            raise self.reject(node, "first-class function", f"{_canonical(qualified)} used as a value")
        raise self.reject(node, "call into another library", f"{qualified} is not part of the kernel subset")

    def attribute(self, node: ast.Attribute) -> n.Expr:
        qualified = self.qualify(node)
        if qualified is not None:
            return self.qualified_value(node, qualified)
        if node.attr == "flat":  # read through: the elements in C order, as a.ravel() gives them
            return n.Call(".ravel", [self.expr(node.value)], "numpy", loc=self.loc(node))
        if node.attr not in lib.ARRAY_ATTRIBUTES and node.attr not in lib.COMPLEX_ATTRIBUTES:
            raise self.reject(node, "attribute", f".{node.attr}")
        return n.Attribute(self.expr(node.value), node.attr, loc=self.loc(node))

    def compare(self, node: ast.Compare) -> n.Expr:
        for op in node.ops:
            if isinstance(op, (ast.Is, ast.IsNot)):
                raise self.reject(node, "is operator", ast.unparse(node))
            if isinstance(op, (ast.In, ast.NotIn)):
                raise self.reject(node, "in operator", ast.unparse(node))
        operands = [node.left] + list(node.comparators)
        parts = []
        for i, op in enumerate(node.ops):
            left, right = operands[i], operands[i + 1]
            loc = self.loc(node) if i == 0 else self.loc(left)
            parts.append(n.Compare(CMPOPS[type(op)], self.expr(left), self.expr(right), loc=loc))
        if len(parts) == 1:
            return parts[0]
        return n.BoolOp("and", parts, loc=self.loc(node))

    def subscript(self, node: ast.Subscript) -> n.Expr:
        base = self.expr(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        indices = [self.index_item(item) for item in items]
        # Not through a call's result, which may be a tuple (np.histogram(x, b)[1][0]).
        if isinstance(base, n.Index) and not isinstance(base.base, (n.Attribute, n.Call)) and all(
                not isinstance(i, n.Slice) and not (isinstance(i, n.Const) and i.value is None)
                for i in base.indices):
            return n.Index(base.base, base.indices + indices, loc=self.loc(node))
        return n.Index(base, indices, loc=self.loc(node))

    def index_item(self, node) -> n.Expr:
        if isinstance(node, ast.Slice):
            part = lambda p: None if p is None else self.expr(p)  # noqa: E731
            return n.Slice(part(node.lower), part(node.upper), part(node.step), loc=self.loc(node))
        if isinstance(node, ast.Constant) and node.value is Ellipsis:
            raise self.reject(node, "ellipsis")
        return self.expr(node)

    # -- calls
    def call(self, node: ast.Call) -> n.Expr:
        loc = self.loc(node)
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.reject(arg, "star-args", ast.unparse(arg))
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.reject(keyword.value, "star-args", f"**{ast.unparse(keyword.value)}")
        func = node.func
        if isinstance(func, ast.Name):
            ident = func.id
            if ident in self.locals:
                raise self.reject(func, "call of a local variable", ident)
            if ident in self.kernels:
                return self.kernel_call(node, ident)
            if ident in self.scope.functions:
                raise self.reject(node, "call to a non-jitted function", f"{ident}() is not decorated with @njit")
            if ident in self.scope.classes:
                raise self.reject(node, "class", f"{ident}() creates an object")
            if ident in self.scope.aliases:
                return self.library_call(node, self.scope.aliases[ident])
            if ident in self.scope.constants or ident in self.scope.variables:
                raise self.reject(func, "call of a local variable", f"{ident} is not a function")
            if self.is_builtin(ident):
                return self.builtin_call(node, ident)
            raise self.reject(func, "undefined name", f"{ident} is not defined in this module")
        if isinstance(func, ast.Attribute):
            qualified = self.qualify(func)
            if qualified is not None:
                return self.library_call(node, qualified)
            if func.attr in lib.COMPLEX_METHODS and not node.args and not node.keywords:
                return n.Call("np.conj", [self.expr(func.value)], "math", loc=self.loc(node))
            if func.attr not in lib.ARRAY_METHODS:
                raise self.reject(func, "array method", f".{func.attr}()")
            obj = self.expr(func.value)
            args = [obj] + [self.expr(a) for a in node.args]
            return n.Call(f".{func.attr}", args, "numpy", self.keywords(node), loc=loc)
        raise self.reject(node, "call", f"{ast.unparse(func)} is not a function name")

    def keywords(self, node: ast.Call) -> dict:
        found = {}
        for keyword in node.keywords:
            if keyword.arg == "kind" and isinstance(node.func, ast.Attribute) and node.func.attr == "argsort":
                found["stable"] = self.sort_kind(keyword.value)
            else:
                found[keyword.arg] = self.expr(keyword.value)
        return found

    def sort_kind(self, value) -> n.Const:
        """``argsort(kind=...)``, a string Numba takes as a literal: whether the order is stable
        (``'mergesort'``, ``'stable'``) or Numba's quicksort order (``'quicksort'``)."""
        kinds = {"quicksort": False, "mergesort": True, "stable": True}
        if not (isinstance(value, ast.Constant) and value.value in kinds):
            raise self.fail(value, f"argsort(kind=...) takes one of {', '.join(map(repr, kinds))} written in "
                                   f"the call, as Numba", "sort kind")
        return n.Const(kinds[value.value], loc=self.loc(value))

    def no_keywords(self, node: ast.Call, what: str) -> None:
        if node.keywords:
            raise self.reject(node.keywords[0].value, "keyword argument", f"{node.keywords[0].arg}= in {what}()")

    def builtin_call(self, node: ast.Call, ident: str) -> n.Expr:
        loc = self.loc(node)
        if ident == "print":
            raise self.reject(node, "print")
        if ident in ("range",):
            raise self.reject(node, "range outside a for loop")
        if ident == "complex":
            return self.complex_call(node)
        if ident in lib.CAST_BUILTINS:
            self.no_keywords(node, ident)
            if len(node.args) != 1:
                raise self.fail(node, f"{ident}() takes exactly one argument in a kernel", "call")
            return n.Cast(scalar(lib.CAST_BUILTINS[ident]), self.expr(node.args[0]), loc=loc, builtin=ident)
        if ident in lib.BUILTINS:
            self.no_keywords(node, ident)
            if not node.args:
                raise self.fail(node, f"{ident}() needs arguments", "call")
            return n.Call(ident, [self.expr(a) for a in node.args], "builtin", loc=loc)
        raise self.reject(node, "call to a Python builtin", f"{ident}()")

    def complex_call(self, node: ast.Call) -> n.Expr:
        """``complex()``, ``complex(x)`` (a cast) and ``complex(re, im)`` (a builtin call)."""
        loc = self.loc(node)
        self.no_keywords(node, "complex")
        if not node.args:
            return n.Const(0j, loc=loc)
        if len(node.args) == 1:
            return n.Cast(scalar("complex128"), self.expr(node.args[0]), loc=loc, builtin="complex")
        if len(node.args) != 2:
            raise self.fail(node, "complex() takes at most two arguments", "call")
        return n.Call("complex", [self.expr(a) for a in node.args], "builtin", loc=loc)

    def library_call(self, node: ast.Call, qualified: str) -> n.Expr:
        loc = self.loc(node)
        module, _, attr = qualified.rpartition(".")
        if module == "math":
            if attr not in lib.MATH_FUNCS:
                raise self.reject(node, "math function", f"math.{attr}()")
            self.no_keywords(node, f"math.{attr}")
            return n.Call(f"math.{attr}", [self.expr(a) for a in node.args], "math", loc=loc)
        if module == "numpy" and attr in lib.NUMPY_DTYPES or \
                module in ("numba", "numba.types") and attr in lib.NUMBA_SCALARS:
            table = lib.NUMPY_DTYPES if module == "numpy" else lib.NUMBA_SCALARS
            self.no_keywords(node, attr)
            if len(node.args) != 1:
                raise self.fail(node, f"{_canonical(qualified)}() takes exactly one argument in a kernel", "call")
            return n.Cast(scalar(table[attr]), self.expr(node.args[0]), loc=loc)
        if module in ("numpy.random", "random") and attr == "shuffle":
            # In place, drawing with np.random.randint as Numba's shuffle does (random.shuffle
            # draws from Python's generator in Numba, from the same streams in kpc).
            self.no_keywords(node, f"{_canonical(qualified)}")
            if len(node.args) != 1:
                raise self.fail(node, f"{_canonical(qualified)}() takes one array", "call")
            return n.Call("np.random.shuffle", [self.expr(node.args[0])], "numpy", loc=loc)
        if module == "numpy.random":
            return self.random_call(node, attr)
        if module == "random" and attr in lib.PYTHON_RANDOM:
            return self.python_random_call(node, attr)
        if module == "cmath" and attr in ("phase", "isnan", "isinf", "isfinite") and len(node.args) == 1:
            # of the parts: atan2(imag, real); NaN or infinite in either part; both finite
            self.no_keywords(node, f"cmath.{attr}")
            z = n.Cast(scalar("complex128"), self.expr(node.args[0]), loc=loc, builtin=qualified)
            parts = [n.Attribute(z, "imag", loc=loc), n.Attribute(copy.deepcopy(z), "real", loc=loc)]
            if attr == "phase":
                return n.Call("math.atan2", parts, "math", loc=loc)
            tests = [n.Call(f"math.{attr}", [part], "math", loc=loc) for part in parts]
            return n.BoolOp("and" if attr == "isfinite" else "or", tests, loc=loc)
        if module == "cmath" and attr in lib.CMATH_FUNCS and len(node.args) == 1:
            # cmath.f(z) is NumPy's f of z made complex (infer-types picks complex64 or complex128,
            # or rejects a real z where Numba does): a complex result even for a real argument
            self.no_keywords(node, f"cmath.{attr}")
            z = n.Cast(scalar("complex128"), self.expr(node.args[0]), loc=loc, builtin=qualified)
            return n.Call(f"np.{lib.CMATH_FUNCS[attr]}", [z], "numpy", loc=loc)
        if module == "numpy" and attr in lib.COMPLEX_ATTRIBUTES and len(node.args) == 1 and not node.keywords:
            return n.Attribute(self.expr(node.args[0]), attr, loc=loc)
        if module.startswith("numpy"):
            name = qualified[len("numpy."):]
            if name not in lib.NUMPY_FUNCS:
                raise self.reject(node, "NumPy function", f"np.{name}()")
            if name in lib.NUMPY_BOUND:
                return self.bound_numpy_call(node, name)
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Name) and first.id not in self.locals \
                    and isinstance(self.scope.constants.get(first.id), tuple) and name in ("array", "asarray"):
                first = ast.copy_location(ast.parse(repr(self.scope.constants[first.id]), mode="eval").body, first)
                node = ast.copy_location(ast.Call(node.func, [first] + node.args[1:], node.keywords), node)
                for sub in ast.walk(first):
                    ast.copy_location(sub, node)
            if name in ("array", "asarray") and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
                # np.array([x, y, z]), np.array([[1, 2], [3, 4]]), np.array((a, b)): numbers laid out
                # as a (nested) tuple, the array built by lower-numpy
                args = [self.literal_elements(node.args[0])] + [self.expr(a) for a in node.args[1:]]
                return n.Call("np.array", args, "numpy", self.keywords(node), loc=loc)
            args = [self.expr(a) for a in node.args]
            return n.Call(f"np.{name}", args, "numpy", self.keywords(node), loc=loc)
        if qualified == "numba.prange":
            raise self.reject(node, "range outside a for loop", "prange()")
        raise self.reject(node, "call into another library", f"{_canonical(qualified)}()")

    def literal_elements(self, node) -> n.TupleExpr:
        """The elements of ``np.array([...])``'s nested list or tuple literal, as nested ``TupleExpr``s."""
        if not node.elts or any(isinstance(e, ast.Starred) for e in node.elts):
            raise self.reject(node, "list", f"np.array({ast.unparse(node)}): a literal of numbers, one per element")
        nested = [isinstance(e, (ast.List, ast.Tuple)) for e in node.elts]
        if any(nested) and not all(nested):
            raise self.reject(node, "list", f"np.array({ast.unparse(node)}) mixes rows and numbers")
        return n.TupleExpr([self.literal_elements(e) if isinstance(e, (ast.List, ast.Tuple)) else self.expr(e)
                            for e in node.elts], loc=self.loc(node))

    def random_call(self, node: ast.Call, attr: str) -> n.Call:
        """``np.random.<f>(...)``, its arguments bound to NumPy's parameters in order up to the
        last one given, gaps filled with NumPy's defaults (``None`` for ``randint``'s ``high``)."""
        loc = self.loc(node)
        if attr not in lib.NUMPY_RANDOM:
            supported = ", ".join(sorted(lib.NUMPY_RANDOM))
            raise self.reject(node, "NumPy function", f"np.random.{attr}() (supported: {supported})")
        params = lib.NUMPY_RANDOM[attr]
        args = [self.expr(a) for a in node.args]
        if params is None:
            self.no_keywords(node, f"np.random.{attr}")
            return n.Call(f"np.random.{attr}", args, "random", loc=loc)
        if len(args) > len(params):
            raise self.fail(node, f"np.random.{attr}() takes at most {len(params)} arguments", "call")
        bound = dict(zip(params, args))
        for keyword in node.keywords:
            if keyword.arg not in params or keyword.arg in bound:
                raise self.fail(keyword.value, f"np.random.{attr}() got an unexpected or repeated "
                                               f"argument {keyword.arg!r}", "call")
            bound[keyword.arg] = self.expr(keyword.value)
        defaults = {"low": 0.0, "high": 1.0 if attr == "uniform" else None, "loc": 0.0, "scale": 1.0}
        last = max((params.index(p) for p in bound), default=-1)
        for param in params[:last + 1]:
            if param not in bound:
                if param not in defaults or attr == "randint" and param == "low":
                    raise self.fail(node, f"np.random.{attr}() is missing the argument {param!r}", "call")
                bound[param] = n.Const(defaults[param], loc=loc)
        return n.Call(f"np.random.{attr}", [bound[p] for p in params[:last + 1]], "random", loc=loc)

    def python_random_call(self, node: ast.Call, attr: str) -> n.Call:
        """``random.<f>(...)`` of Python's ``random`` module as the ``np.random`` draw of the same
        distribution (``lib.PYTHON_RANDOM``): ``random.randint(a, b)`` includes ``b``."""
        self.no_keywords(node, f"random.{attr}")
        func, count = lib.PYTHON_RANDOM[attr]
        if len(node.args) != count:
            raise self.fail(node, f"random.{attr}() takes {count} argument{'s' if count != 1 else ''} in a kernel",
                            "call")
        args = [self.expr(a) for a in node.args]
        if attr == "randint":
            args[1] = n.BinOp("+", args[1], n.Const(1, loc=self.loc(node)), loc=self.loc(node))
        return n.Call(f"np.random.{func}", args, "random", loc=self.loc(node))

    def bound_numpy_call(self, node: ast.Call, name: str) -> n.Call:
        """``np.<f>(...)`` of ``lib.NUMPY_BOUND``: one positional argument per NumPy parameter,
        NumPy's defaults where the call gives none (``np.histogram(x, range=(0, 1))`` is
        ``np.histogram(x, 10, (0, 1))``)."""
        loc = self.loc(node)
        params = [p for p, _ in lib.NUMPY_BOUND[name]]
        if len(node.args) > len(params):
            raise self.fail(node, f"np.{name}() takes at most {len(params)} arguments", "call")
        bound = dict(zip(params, (self.numpy_argument(name, p, a) for p, a in zip(params, node.args))))
        for keyword in node.keywords:
            if keyword.arg not in params or keyword.arg in bound:
                raise self.fail(keyword.value, f"np.{name}() got an unexpected or repeated "
                                               f"argument {keyword.arg!r}", "call")
            bound[keyword.arg] = self.numpy_argument(name, keyword.arg, keyword.value)
        for param, default in lib.NUMPY_BOUND[name]:
            if param not in bound:
                if param == params[0]:
                    raise self.fail(node, f"np.{name}() is missing the argument {param!r}", "call")
                bound[param] = n.Const(default, loc=loc)
        return n.Call(f"np.{name}", [bound[p] for p in params], "numpy", loc=loc)

    def numpy_argument(self, name: str, param: str, node) -> n.Expr:
        """An argument of a bound NumPy call; a string (np.convolve's mode, np.searchsorted's
        side) becomes its code (``lib.NUMPY_STRING_CODES``), as a constant: Numba takes it as a
        literal."""
        codes = lib.NUMPY_STRING_CODES.get((name, param))
        if codes is None:
            return self.expr(node)
        valid = ", ".join(repr(k) for k in codes)
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            raise self.reject(node, "string", f"np.{name}({param}=...) takes {valid} written in the call")
        if node.value not in codes:
            raise self.fail(node, f"np.{name}(): invalid {param!r}, valid are {valid}", "call")
        return n.Const(codes[node.value], loc=self.loc(node))

    def kernel_call(self, node: ast.Call, callee: str) -> n.Call:
        """A call of another kernel, arguments bound positionally, defaults filled in."""
        fdef = self.scope.functions.get(callee)
        args = [self.expr(a) for a in node.args]
        if fdef is None:
            return n.Call(callee, args, "kernel", self.keywords(node), loc=self.loc(node))
        spec = fdef.args
        params = [a.arg for a in list(spec.posonlyargs) + list(spec.args)]
        if len(args) > len(params):
            raise self.fail(node, f"{callee}() takes {len(params)} arguments but {len(args)} were given", "call")
        bound = args + [None] * (len(params) - len(args))
        for keyword in node.keywords:
            if keyword.arg not in params:
                raise self.fail(keyword.value, f"{callee}() has no parameter {keyword.arg!r}", "call")
            position = params.index(keyword.arg)
            if bound[position] is not None:
                raise self.fail(keyword.value, f"{callee}() got two values for {keyword.arg!r}", "call")
            bound[position] = self.expr(keyword.value)
        defaults = [None] * (len(params) - len(spec.defaults)) + list(spec.defaults)
        for position, value in enumerate(bound):
            if value is None:
                default = defaults[position]
                if default is None:
                    raise self.fail(node, f"{callee}() is missing the argument {params[position]!r}", "call")
                qualified = self.scope.qualify(default) or ""
                if qualified.startswith("numpy.") and qualified[6:] in lib.NUMPY_DTYPES:
                    bound[position] = self.default_value(default, params[position])
                    continue
                try:
                    bound[position] = n.Const(self.scope.evaluate(default), loc=self.loc(node))
                except NotConstant:
                    raise self.reject(default, "non-constant default", f"{params[position]}") from None
        return n.Call(callee, bound, "kernel", loc=self.loc(node))


def _flatten_matching(target, value):
    """``(targets, values)`` of a nested tuple target and a tuple expression of the same
    structure, flattened in order; ``(None, None)`` where the structures differ."""
    if not isinstance(target, n.TupleExpr):
        return [target], [value]
    if not isinstance(value, n.TupleExpr) or len(value.elements) != len(target.elements):
        return None, None
    targets, values = [], []
    for t, v in zip(target.elements, value.elements):
        more_targets, more_values = _flatten_matching(t, v)
        if more_targets is None:
            return None, None
        targets += more_targets
        values += more_values
    return targets, values


def _canonical(qualified: str) -> str:
    if qualified.startswith("numpy."):
        return "np." + qualified[len("numpy."):]
    return qualified
