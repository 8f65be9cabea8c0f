"""Lists of numbers, or of tuples of numbers, built in a kernel: rewritten as growable NumPy buffers before lowering.

Numba gives a list built in a kernel one element type, the unification of everything put in
it (``[1]`` then ``.append(2.5)`` holds float64 values). A list name ``L`` that the kernel uses
only in the shapes below becomes one buffer per tuple position (the name itself for a list of
numbers), a count ``L_len`` and, per position, an item local that every stored value goes
through, so that typing unifies them and the buffer takes that dtype:

- ``L = []`` / ``L = [e, ...]`` (numbers, or tuples of one length): a buffer of 8 (or more)
  elements, then the elements appended in order;
- ``L.append(e)``: the buffer doubles when full (amortized O(1), as a list grows);
- ``x = L.pop()``, ``a, b = L.pop()``, ``s += L.pop()``, ``L.pop()``, and one ``L.pop()`` in an
  assignment or return that does not otherwise mention ``L`` (popped just before it):
  ``IndexError("pop from empty list")`` when empty, as in Numba;
- ``len(L)``; ``while L:``, ``if L:``, ``not L``; ``for v in L`` (``for a, b in L``) when the
  loop body does not change ``L``;
- ``L.sort()`` and ``np.array(L[, dtype])`` / ``np.asarray(L)`` of a list of numbers.

Any other use (indexing, passing or returning the list, a list in a ``prange`` loop, where
Numba's appends race) leaves the name a list, which the lowering rejects as 'list'.

>>> import ast
>>> body = ast.parse('''
... peaks = []
... for i in range(n):
...     if x[i] > 0:
...         peaks.append(i)
... out = np.array(peaks, dtype=np.int64)
... ''').body
>>> names = iter(["peaks_len", "peaks_item", "peaks_grown"])
>>> print(ast.unparse(rewrite_lists(body, "np", lambda base: next(names), lambda node: None)))
peaks = np.empty(8, dtype=peaks_item.dtype)
peaks_len = 0
for i in range(n):
    if x[i] > 0:
        peaks_item = i
        if peaks_len == peaks.shape[0]:
            peaks_grown = np.empty(2 * peaks_len, dtype=peaks.dtype)
            peaks_grown[:peaks_len] = peaks
            peaks = peaks_grown
        peaks[peaks_len] = peaks_item
        peaks_len += 1
out = peaks[:peaks_len].astype(np.int64)
"""

from __future__ import annotations

import ast
import copy

FIRST_CAPACITY = 8


def rewrite_lists(body: list, numpy: str | None, fresh_name, range_kind, params=()) -> list:
    """``body`` with every list it can rewrite rewritten (see the module docstring).

    ``numpy``: the module's name for NumPy (None: nothing is rewritten); ``fresh_name(base)``: a
    new local name; ``range_kind(node)``: "prange" for a ``prange(...)`` call; ``params``: the
    kernel's parameters (never rewritten)."""
    if numpy is None:
        return body
    for name, arity in _rewritable(body, numpy, range_kind).items():
        if name in params:
            continue
        body = _ListRewrite(name, arity, numpy, fresh_name).block(body)
    return body


def _method(node, name: str, method: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == name and not node.keywords


def _is_len(node, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
        and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Name) \
        and node.args[0].id == name


def _is_array_of(node, name: str, numpy: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in ("array", "asarray") and isinstance(node.func.value, ast.Name) \
        and node.func.value.id == numpy and len(node.args) == 1 and isinstance(node.args[0], ast.Name) \
        and node.args[0].id == name and all(k.arg == "dtype" for k in node.keywords)


def _arity(value) -> int | None:
    """0 for a value that is not a tuple display, the length of a tuple display, None for a
    display Numba's list of tuples here cannot hold (a starred element)."""
    if isinstance(value, ast.Tuple):
        if not value.elts or any(isinstance(e, ast.Starred) for e in value.elts):
            return None
        return len(value.elts)
    return None if isinstance(value, ast.Starred) else 0


def _mentions(node, name: str) -> bool:
    return any(isinstance(sub, ast.Name) and sub.id == name for sub in ast.walk(node))


def _rewritable(body: list, numpy: str, range_kind) -> dict:
    """name -> tuple length (0: numbers) of each list the rewrite takes."""
    parents = {}
    module = ast.Module(body=body, type_ignores=[])
    for parent in ast.walk(module):
        for child in ast.iter_child_nodes(parent):
            parents[child] = parent
    created = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            created[node.targets[0].id] = True
    out = {}
    for name in created:
        arity = _uses(name, module, parents, numpy, range_kind)
        if arity is not None:
            out[name] = arity
    return out


def _uses(name: str, module, parents: dict, numpy: str, range_kind) -> int | None:
    """The tuple length of list ``name`` when every use of it is one the rewrite takes, else None."""
    arities, numbers_only = set(), False
    for node in ast.walk(module):
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        parent = parents[node]
        if _inside_prange(node, parents, range_kind):
            return None
        if isinstance(parent, ast.Assign) and node in parent.targets:
            if not (isinstance(parent.value, ast.List) and len(parent.targets) == 1):
                return None
            for element in parent.value.elts:
                if _mentions(element, name):
                    return None
                arities.add(_arity(element))
        elif isinstance(parent, ast.Attribute) and parent.value is node:
            call = parents.get(parent)
            statement = parents.get(call)
            if _method(call, name, "append") and len(call.args) == 1 and isinstance(statement, ast.Expr):
                arities.add(_arity(call.args[0]))
            elif _method(call, name, "sort") and not call.args and isinstance(statement, ast.Expr):
                numbers_only = True
            elif _method(call, name, "pop") and not call.args and (
                    isinstance(statement, ast.Expr) or isinstance(statement, ast.Assign)
                    and statement.value is call and len(statement.targets) == 1
                    and isinstance(statement.targets[0], (ast.Name, ast.Tuple))
                    and not _mentions(statement.targets[0], name)
                    or isinstance(statement, ast.AugAssign) and statement.value is call
                    and isinstance(statement.target, ast.Name) and statement.target.id != name):
                target = statement.targets[0] if isinstance(statement, ast.Assign) else None
                if isinstance(target, ast.Tuple):
                    if not all(isinstance(e, ast.Name) for e in target.elts):
                        return None
                    arities.add(len(target.elts))
            elif _method(call, name, "pop") and not call.args and _pop_in_expression(call, name, parents):
                continue
            else:
                return None
        elif _is_len(parent, name) or _truth_test(node, parent):
            continue
        elif _is_array_of(parent, name, numpy):
            numbers_only = True
        elif isinstance(parent, ast.For) and parent.iter is node:
            if parent.orelse or any(_mentions(s, name) and not _only_len(s, name) for s in parent.body):
                return None
            target = parent.target
            if isinstance(target, ast.Tuple):
                if not all(isinstance(e, ast.Name) for e in target.elts):
                    return None
                arities.add(len(target.elts))
            elif not isinstance(target, ast.Name):
                return None
            else:
                arities.add("name")
        else:
            return None
    lengths = {a for a in arities if a != "name"}
    if None in lengths or len(lengths) != 1:
        return None
    arity = lengths.pop()
    if arity and (numbers_only or "name" in arities):
        return None
    return arity


def _pop_in_expression(call, name: str, parents: dict) -> bool:
    """``s = s * 0.5 + L.pop()``: the only mention of ``L`` in an assignment, ``+=`` or return,
    evaluated whenever the statement runs (not under ``and``/``or``/``x if c else y``); it is
    popped into a local just before the statement."""
    node = parents.get(call)
    while node is not None and not isinstance(node, ast.stmt):
        if isinstance(node, (ast.BoolOp, ast.IfExp)):
            return False
        node = parents.get(node)
    if not isinstance(node, (ast.Assign, ast.AugAssign, ast.Return, ast.Expr)):
        return False
    mentions = [sub for sub in ast.walk(node) if isinstance(sub, ast.Name) and sub.id == name]
    return len(mentions) == 1


def _popped(stmt, name: str):
    """The ``L.pop()`` call inside the simple statement ``stmt``, if any."""
    if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Return, ast.Expr)):
        return None
    return next((sub for sub in ast.walk(stmt) if _method(sub, name, "pop") and not sub.args), None)


def _truth_test(node, parent) -> bool:
    """``while L:``, ``if L:``, ``not L``: whether the list is empty, a bool."""
    return isinstance(parent, (ast.While, ast.If)) and parent.test is node \
        or isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)


def _only_len(stmt, name: str) -> bool:
    """Whether every mention of ``name`` in ``stmt`` is ``len(name)``."""
    lens = [node for node in ast.walk(stmt) if _is_len(node, name)]
    mentions = [node for node in ast.walk(stmt) if isinstance(node, ast.Name) and node.id == name]
    return len(lens) == len(mentions)


def _inside_prange(node, parents: dict, range_kind) -> bool:
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.For) and child is not parent.iter and range_kind(parent.iter) == "prange":
            return True
        child, parent = parent, parents.get(parent)
    return False


class _ListRewrite:
    """Rewrites the uses of one list ``name`` of tuples of ``arity`` (0: of numbers)."""

    def __init__(self, name: str, arity: int, numpy: str, fresh_name):
        self.name = name
        self.numpy = numpy
        positions = max(arity, 1)
        self.arity = arity
        self.length = fresh_name(f"{name}_len")
        self.buffers = [name] if arity == 0 else [fresh_name(f"{name}_{j}") for j in range(positions)]
        self.items = [fresh_name(f"{name}_item" if arity == 0 else f"{name}_item{j}") for j in range(positions)]
        self.grown = [fresh_name(f"{b}_grown") for b in self.buffers]
        self.fresh_name = fresh_name
        self.popped = None

    def new_popped(self) -> str:
        self.popped = self.fresh_name(f"{self.name}_popped")
        return self.popped

    # -- small builders (locations are fixed up from the statement rewritten)
    def load(self, name: str):
        return ast.Name(name, ast.Load())

    def store(self, name: str):
        return ast.Name(name, ast.Store())

    def np_call(self, func: str, args: list, keywords: list):
        return ast.Call(ast.Attribute(self.load(self.numpy), func, ast.Load()), args, keywords)

    def filled(self, buffer: str):
        """``buffer[:L_len]``"""
        return ast.Subscript(self.load(buffer), ast.Slice(None, self.load(self.length), None), ast.Load())

    # -- statements
    def block(self, body: list) -> list:
        out = []
        for stmt in body:
            for new in self.stmt(stmt):
                out.append(ast.fix_missing_locations(ast.copy_location(new, stmt)) if new is not stmt else new)
        return out

    def stmt(self, stmt) -> list:
        name = self.name
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id == name and isinstance(stmt.value, ast.List):
            return self.create(stmt)
        if isinstance(stmt, ast.Expr) and _method(stmt.value, name, "append"):
            return self.append(stmt.value.args[0], stmt)
        if isinstance(stmt, ast.Expr) and _method(stmt.value, name, "pop"):
            return self.pop(None, stmt)
        if isinstance(stmt, ast.Assign) and _method(stmt.value, name, "pop"):
            return self.pop(stmt.targets[0], stmt)
        if isinstance(stmt, ast.AugAssign) and _method(stmt.value, name, "pop"):
            return self.pop(stmt.target, stmt, stmt.op)
        popped = _popped(stmt, name)
        if popped is not None:
            local = self.popped or self.new_popped()
            out = self.pop(self.store(local), stmt)
            stmt = _Substitute(popped, self.load(local)).visit(stmt)
            return out + [_ExpressionRewrite(self).visit(stmt)]
        if isinstance(stmt, ast.Expr) and _method(stmt.value, name, "sort"):
            call = ast.Call(ast.Attribute(self.filled(name), "sort", ast.Load()), [], [])
            return [ast.Expr(call)]
        if isinstance(stmt, ast.For) and isinstance(stmt.iter, ast.Name) and stmt.iter.id == name:
            return [self.loop(stmt)]
        stmt = _ExpressionRewrite(self).visit(stmt)
        for field in ("body", "orelse"):
            if hasattr(stmt, field):
                setattr(stmt, field, self.block(getattr(stmt, field)))
        return [stmt]

    def create(self, stmt) -> list:
        capacity = max(FIRST_CAPACITY, len(stmt.value.elts))
        out = [ast.Assign([self.store(b)], self.np_call("empty", [ast.Constant(capacity)], [
            ast.keyword("dtype", ast.Attribute(self.load(item), "dtype", ast.Load()))]))
            for b, item in zip(self.buffers, self.items)]
        out.append(ast.Assign([self.store(self.length)], ast.Constant(0)))
        for element in stmt.value.elts:
            out += self.append(element, stmt)
        return out

    def append(self, value, stmt) -> list:
        parts = value.elts if self.arity else [value]
        out = [ast.Assign([self.store(item)], _ExpressionRewrite(self).visit(copy.deepcopy(part)))
               for item, part in zip(self.items, parts)]
        full = ast.Compare(self.load(self.length), [ast.Eq()],
                           [ast.Attribute(self.load(self.buffers[0]), "shape", ast.Load())])
        full.comparators[0] = ast.Subscript(full.comparators[0], ast.Constant(0), ast.Load())
        grow = []
        for buffer, grown in zip(self.buffers, self.grown):
            size = ast.BinOp(ast.Constant(2), ast.Mult(), self.load(self.length))
            dtype = ast.Attribute(self.load(buffer), "dtype", ast.Load())
            grow += [
                ast.Assign([self.store(grown)], self.np_call("empty", [size], [ast.keyword("dtype", dtype)])),
                ast.Assign([ast.Subscript(self.load(grown), ast.Slice(None, self.load(self.length), None),
                                          ast.Store())], self.load(buffer)),
                ast.Assign([self.store(buffer)], self.load(grown)),
            ]
        out.append(ast.If(full, grow, []))
        out += [ast.Assign([ast.Subscript(self.load(buffer), self.load(self.length), ast.Store())], self.load(item))
                for buffer, item in zip(self.buffers, self.items)]
        out.append(ast.AugAssign(self.store(self.length), ast.Add(), ast.Constant(1)))
        return out

    def pop(self, target, stmt, op=None) -> list:
        empty = ast.Compare(self.load(self.length), [ast.Eq()], [ast.Constant(0)])
        error = ast.Raise(ast.Call(self.load("IndexError"), [ast.Constant("pop from empty list")], []), None)
        out = [ast.If(empty, [error], []), ast.AugAssign(self.store(self.length), ast.Sub(), ast.Constant(1))]
        if target is not None:
            values = [ast.Subscript(self.load(b), self.load(self.length), ast.Load()) for b in self.buffers]
            value = values[0] if self.arity == 0 else ast.Tuple(values, ast.Load())
            out.append(ast.Assign([target], value) if op is None else ast.AugAssign(target, op, value))
        return out

    def loop(self, stmt) -> ast.For:
        """``for v in L`` as ``for L_index in range(L_len): v = L[L_index]`` (the body does not
        change ``L``, so its length is read once, as the list's iterator would see it)."""
        index = self.fresh_name(f"{self.name}_index")
        values = [ast.Subscript(self.load(b), self.load(index), ast.Load()) for b in self.buffers]
        value = values[0] if self.arity == 0 else ast.Tuple(values, ast.Load())
        bind = ast.copy_location(ast.Assign([stmt.target], value), stmt.target)
        iterable = ast.Call(ast.Name("range", ast.Load()), [self.load(self.length)], [])
        body = [bind] + self.block(stmt.body)
        return ast.fix_missing_locations(ast.copy_location(
            ast.For(self.store(index), ast.copy_location(iterable, stmt.iter), body, [], None), stmt))


class _Substitute(ast.NodeTransformer):
    """``node`` (by identity) replaced with ``by``."""

    def __init__(self, node, by):
        self.node, self.by = node, by

    def visit(self, node):
        if node is self.node:
            return ast.copy_location(self.by, node)
        return super().visit(node)


class _ExpressionRewrite(ast.NodeTransformer):
    """``len(L)`` -> ``L_len``; ``L`` tested for truth -> ``L_len > 0``; ``np.array(L[, dtype])`` -> ``L[:L_len].astype(dtype)`` (or ``.copy()``)."""

    def __init__(self, rewrite: _ListRewrite):
        self.rewrite = rewrite

    def visit_Call(self, node):
        r = self.rewrite
        if _is_len(node, r.name):
            return ast.copy_location(r.load(r.length), node)
        if _is_array_of(node, r.name, r.numpy):
            if node.keywords:
                call = ast.Call(ast.Attribute(r.filled(r.name), "astype", ast.Load()), [node.keywords[0].value], [])
            else:
                call = ast.Call(ast.Attribute(r.filled(r.name), "copy", ast.Load()), [], [])
            return ast.fix_missing_locations(ast.copy_location(call, node))
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        r = self.rewrite
        if node.id == r.name and isinstance(node.ctx, ast.Load):  # only truth tests are left
            test = ast.Compare(r.load(r.length), [ast.Gt()], [ast.Constant(0)])
            return ast.fix_missing_locations(ast.copy_location(test, node))
        return node

    def visit_For(self, node):
        node.iter = self.visit(node.iter)
        return node

    def visit_While(self, node):
        node.test = self.visit(node.test)
        return node

    def visit_If(self, node):
        node.test = self.visit(node.test)
        return node
