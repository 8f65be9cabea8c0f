"""Loops with an ``else`` clause (``for ... else``, ``while ... else``): rewritten before lowering.

Python runs a loop's ``else`` block when the loop ends without ``break``. A loop whose body (at
its own level: not the loops nested in it) has no ``break`` becomes the loop followed by the
block; otherwise a flag set just before each of its breaks says whether the block runs:

>>> import ast
>>> body = ast.parse('''
... for i in range(1, n):
...     if x[i - 1] > x[i]:
...         break
... else:
...     return True
... return False
... ''').body
>>> print(ast.unparse(rewrite_loop_else(body, lambda base: base + "_1")))
broke_1 = False
for i in range(1, n):
    if x[i - 1] > x[i]:
        broke_1 = True
        break
if not broke_1:
    return True
return False
"""

from __future__ import annotations

import ast

LOOPS = (ast.For, ast.While)


def rewrite_loop_else(body: list, fresh_name) -> list:
    """``body`` with every loop's ``else`` clause rewritten (see the module docstring);
    ``fresh_name(base)``: a new local name."""
    out = []
    for stmt in body:
        out.extend(_statement(stmt, fresh_name))
    return out


def _statement(stmt, fresh_name) -> list:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
        return [stmt]  # a nested definition is rejected by the lowering as it is
    for field in ("body", "orelse", "finalbody"):
        block = getattr(stmt, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            setattr(stmt, field, rewrite_loop_else(block, fresh_name))
    if isinstance(stmt, ast.Try):
        for handler in stmt.handlers:
            handler.body = rewrite_loop_else(handler.body, fresh_name)
    if not isinstance(stmt, LOOPS) or not stmt.orelse:
        return [stmt]
    after = stmt.orelse
    stmt.orelse = []
    breaks = list(_own_breaks(stmt.body))
    if not breaks:
        return [stmt] + after
    flag = fresh_name("broke")
    for holder, index in reversed(breaks):
        holder[index:index] = [_assign(flag, True, holder[index])]
    test = ast.UnaryOp(op=ast.Not(), operand=ast.Name(id=flag, ctx=ast.Load()))
    check = ast.If(test=test, body=after, orelse=[])
    return [_assign(flag, False, stmt), stmt, ast.fix_missing_locations(ast.copy_location(check, stmt))]


def _own_breaks(block: list):
    """(list, index) of each ``break`` that leaves the loop whose body is ``block``."""
    for index, stmt in enumerate(block):
        if isinstance(stmt, ast.Break):
            yield block, index
        elif isinstance(stmt, LOOPS):
            yield from _own_breaks(stmt.orelse)  # a nested loop's else runs in this loop
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    yield from _own_breaks(inner)
            for handler in getattr(stmt, "handlers", ()):
                yield from _own_breaks(handler.body)


def _assign(name: str, value: bool, where) -> ast.Assign:
    node = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.Constant(value=value))
    return ast.fix_missing_locations(ast.copy_location(node, where))
