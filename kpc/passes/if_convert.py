"""Turn an ``if`` that only picks one of two cheap integer values for a local into a branch-free select."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.queries import statements
from kpc.ir.types import ScalarType

from .manager import Pass, register

# Operators both of whose results are computed when the branch is gone: none may raise or trap
# (no division, no power) and their cost is a cycle or two.
CHEAP_OPS = ("+", "-", "*", "&", "|", "^")
SHIFTS = ("<<", ">>")


def _integer(ty) -> bool:
    return isinstance(ty, ScalarType) and ty.is_int


def cheap(expr) -> bool:
    """True when ``expr`` may be evaluated whatever the condition says: scalar names, constants and
    integer arithmetic that cannot raise (shifts only by a constant count)."""
    if isinstance(expr, (n.Const, n.GlobalConst)):
        return isinstance(expr.value, (bool, int))
    if isinstance(expr, n.Name):
        return isinstance(expr.type, ScalarType)
    if isinstance(expr, n.BinOp):
        if getattr(expr, "checked", False):
            return False
        if expr.op in SHIFTS:
            return isinstance(expr.right, n.Const) and 0 <= expr.right.value < 64 and cheap(expr.left)
        return expr.op in CHEAP_OPS and cheap(expr.left) and cheap(expr.right)
    if isinstance(expr, n.UnaryOp):
        return expr.op in ("-", "~") and cheap(expr.operand)
    if isinstance(expr, n.Cast):
        return isinstance(expr.to, ScalarType) and expr.to.is_int and cheap(expr.value)
    return False


class IfConverter:
    """Rewrites the ``if`` statements of one function; ``defined`` holds the locals already assigned."""

    def __init__(self, function):
        self.function = function
        self.reduced = set()
        for stmt in statements(function.body):
            if isinstance(stmt, n.For) and stmt.parallel is not None:
                self.reduced |= {r.var for r in stmt.parallel.reductions}
                if stmt.parallel.scan is not None:
                    self.reduced.add(stmt.parallel.scan.var)

    def target_type(self, name: str):
        ty = self.function.locals.get(name)
        if ty is None:
            ty = next((p.type for p in self.function.params if p.name == name), None)
        return ty

    def value(self, stmt, ty):
        """``(name, expr)``: the local that ``stmt`` assigns and the value, when both are cheap integers."""
        if not isinstance(stmt, (n.Assign, n.AugAssign)) or not isinstance(stmt.target, n.Name):
            return None
        name = stmt.target.id
        if isinstance(stmt, n.AugAssign):
            if stmt.atomic or stmt.checked:
                return None
            value = n.BinOp(stmt.op, n.Name(name, ty, stmt.target.loc), stmt.value, ty, stmt.loc)
        else:
            value = stmt.value
        if value.type != ty and not isinstance(value, n.Const):
            return None
        return (name, value) if cheap(value) else None

    def convert(self, stmt, defined: set):
        """The ``Assign`` that replaces ``stmt``, or None."""
        if len(stmt.body) != 1 or len(stmt.orelse) > 1:
            return None
        first = stmt.body[0]
        if not isinstance(first, (n.Assign, n.AugAssign)) or not isinstance(first.target, n.Name):
            return None
        name = first.target.id
        ty = self.target_type(name)
        if not _integer(ty) or name in self.reduced:
            return None
        taken = self.value(first, ty)
        if stmt.orelse:
            other = self.value(stmt.orelse[0], ty)
            if other is None or other[0] != name:
                return None
            otherwise = other[1]
        elif name in defined:
            otherwise = n.Name(name, ty, first.target.loc)
        else:
            return None
        if taken is None:
            return None
        select = n.IfExp(stmt.test, taken[1], otherwise, ty, stmt.loc, branchless=True)
        return n.Assign(n.Name(name, ty, first.target.loc), select, stmt.loc)

    def block(self, body: list, defined: set) -> list:
        out = []
        for stmt in body:
            if isinstance(stmt, n.If):
                replacement = self.convert(stmt, defined)
                if replacement is not None:
                    out.append(replacement)
                    continue
                stmt.body = self.block(stmt.body, set(defined))
                stmt.orelse = self.block(stmt.orelse, set(defined))
            elif isinstance(stmt, (n.For, n.While)):
                stmt.body = self.block(stmt.body, set(defined))
            elif isinstance(stmt, (n.Assign, n.AugAssign)) and isinstance(stmt.target, n.Name):
                defined.add(stmt.target.id)
            out.append(stmt)
        return out


@register
class IfConvert(Pass):
    """An ``if``/``else`` whose arms each only assign a cheap integer value to the same local becomes
    one assignment of a branch-free select, printed ``select(test, taken, otherwise)``.

    GCC keeps such an ``if`` (or a ``?:``) a branch, mispredicted half of the time when the test
    is a data bit (a CRC's low bit: 5x slower than Numba, whose LLVM selects); the Kokkos target
    prints the select as bit arithmetic. Both values must be cheap and unable to raise (integer
    ``+ - * & | ^``, shifts by a constant, names and constants); reduction variables keep their
    ``if``. A one-armed ``if`` converts when the local was assigned before it.

    Before::

        func @crc32(data: u8[:]) -> i64   role=entry
          crc: i64 = 4294967295
          for i: i64 in range(0, data.shape[0]):
            crc ^= data[i]
            for _: i64 in range(0, 8):
              if crc & 1:
                crc = crc >> 1 ^ 3988292384
              else:
                crc >>= 1
          return crc ^ 4294967295

    After::

        func @crc32(data: u8[:]) -> i64   role=entry
          crc: i64 = 4294967295
          for i: i64 in range(0, data.shape[0]):
            crc ^= data[i]
            for _: i64 in range(0, 8):
              crc = select(crc & 1, crc >> 1 ^ 3988292384, crc >> 1)
          return crc ^ 4294967295
    """

    name = "if-convert"

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            params = {p.name for p in function.params}
            function.body = IfConverter(function).block(function.body, params)
