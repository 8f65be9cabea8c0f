"""Rewrite ``x ** k`` for small constant k into multiplications, ``x ** 0.5`` into ``math.sqrt``."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.rewrite import FreshNames, has_call
from kpc.ir.types import FLOAT64, UNKNOWN, ScalarType

from .manager import Pass, register

# Numba raises to a constant integer power by squaring for any exponent; up to 16 that costs at
# most 7 multiplications, far less than pow() (the seed's lj() has (1 / r) ** 12).
MAX_EXPONENT = 16
POW_CALLS = ("math.pow", "np.power")


def integer_exponent(expr):
    """The exponent as an int when it is a constant integer (or integral float) with |k| <= MAX_EXPONENT."""
    if isinstance(expr, n.UnaryOp) and expr.op == "-":
        inner = integer_exponent(expr.operand)
        return None if inner is None else -inner
    if not isinstance(expr, n.Const) or isinstance(expr.value, bool):
        return None
    value = expr.value
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and abs(value) <= MAX_EXPONENT:
        return value
    return None


def half_exponent(expr):
    """``0.5`` or ``-0.5`` as a float, else None."""
    if isinstance(expr, n.UnaryOp) and expr.op == "-":
        inner = half_exponent(expr.operand)
        return None if inner is None else -inner
    if isinstance(expr, n.Const) and isinstance(expr.value, float) and abs(expr.value) == 0.5:
        return expr.value
    return None


def power_by_squaring(base_copy, k: int, ty):
    """``base ** k`` (k >= 1) as products, in the order Numba's integer power uses.

    Numba computes ``x ** 6`` as ``r = x*x; p = (x*x)*(x*x); r * p`` (exponentiation
    by squaring), so the same association gives bit-identical results.
    """
    result, square = None, base_copy()
    while True:
        if k & 1:
            result = _clone(square) if result is None else n.BinOp("*", result, _clone(square), ty)
        k >>= 1
        if not k:
            return result
        square = n.BinOp("*", square, _clone(square), ty)


def _clone(expr):
    """A deep copy of an expression tree (IR nodes are mutable; each use gets its own)."""
    if isinstance(expr, list):
        return [_clone(e) for e in expr]
    if isinstance(expr, dict):
        return {k: _clone(v) for k, v in expr.items()}
    if not isinstance(expr, n.Expr):
        return expr
    fields = {name: _clone(getattr(expr, name)) for name in expr.__dataclass_fields__}
    return type(expr)(**fields)


def _int_const(expr) -> bool:
    return isinstance(expr, n.Const) and type(expr.value) is int


def _simple(expr) -> bool:
    return isinstance(expr, (n.Name, n.Const, n.GlobalConst))


class _Rewriter:
    """Rewrites the powers of one function; may introduce locals for bases that are not simple."""

    def __init__(self, function: n.Function):
        self.function = function
        self.names = FreshNames(function)
        self.pending: list = []  # statements to insert before the current one
        self.new_locals: list = []  # (name, region loop or None)

    def expr(self, expr, hoistable: bool, hint: str):
        """The rewritten expression; ``hoistable``: evaluated unconditionally with its statement."""
        if isinstance(expr, list):
            return [self.expr(e, hoistable, hint) for e in expr]
        if not isinstance(expr, n.Expr):
            return expr
        if isinstance(expr, n.IfExp):
            expr.test = self.expr(expr.test, hoistable, hint)
            expr.body = self.expr(expr.body, False, hint)
            expr.orelse = self.expr(expr.orelse, False, hint)
            return expr
        if isinstance(expr, n.BoolOp):
            expr.values = [self.expr(v, hoistable and k == 0, hint) for k, v in enumerate(expr.values)]
            return expr
        for name in expr.__dataclass_fields__:
            if name in ("type", "loc", "to"):
                continue
            value = getattr(expr, name)
            if isinstance(value, (n.Expr, list)):
                setattr(expr, name, self.expr(value, hoistable, hint))
            elif isinstance(value, dict):
                setattr(expr, name, {k: self.expr(v, hoistable, hint) for k, v in value.items()})
        if isinstance(expr, n.BinOp) and expr.op == "**":
            return self.power(expr, expr.left, expr.right, hoistable, hint) or expr
        if isinstance(expr, n.Call) and expr.kind == "math" and expr.func in POW_CALLS and len(expr.args) == 2:
            return self.power(expr, expr.args[0], expr.args[1], hoistable, hint) or expr
        return expr

    def power(self, expr, base, exponent, hoistable: bool, hint: str):
        ty = expr.type
        if _int_const(base) and _int_const(exponent) and 0 <= exponent.value <= 63:
            return n.Const(base.value ** exponent.value, ty, expr.loc)
        k = integer_exponent(exponent)
        half = half_exponent(exponent) if k is None else None
        if k is None and half is None:
            return None
        if isinstance(ty, ScalarType) and not ty.is_float and k is not None and k < 0:
            return None  # Numba's integer power with a negative exponent truncates; keep it
        base_type = getattr(base, "type", UNKNOWN)
        if isinstance(ty, ScalarType) and isinstance(base_type, ScalarType) and base_type != ty:
            base = n.Cast(ty, base, ty, base.loc)
        if k == 0:
            if has_call(base):
                return None
            return n.Const(1.0 if isinstance(ty, ScalarType) and ty.is_float else 1, ty, expr.loc)
        copies = self.copies(base, abs(k) if k is not None else 1, hoistable, hint)
        if copies is None:
            return None
        if half is not None:
            root_type = ty if ty is not UNKNOWN else FLOAT64
            value = n.Call("math.sqrt", [copies()], "math", type=root_type, loc=expr.loc)
            return value if half > 0 else n.BinOp("/", n.Const(1.0, root_type), value, root_type, expr.loc)
        value = power_by_squaring(copies, abs(k), ty)
        if k < 0:
            one = n.Const(1.0 if not isinstance(ty, ScalarType) or ty.is_float else 1, ty)
            return n.BinOp("/", one, value, ty, expr.loc)
        return value

    def copies(self, base, uses: int, hoistable: bool, hint: str):
        """A factory of references to ``base`` (a local when it is not a simple name/constant)."""
        if _simple(base) or uses == 1:
            first = [True]

            def same():
                if first[0]:
                    first[0] = False
                    return base
                return _clone(base)
            return same
        if hoistable:
            name = self.names.fresh(f"{hint}_base" if hint else "base")
            ty = base.type
            self.pending.append(n.Assign(n.Name(name, ty, base.loc), base, base.loc))
            self.new_locals.append((name, ty))
            return lambda: n.Name(name, ty, base.loc)
        if has_call(base):
            return None
        return lambda: _clone(base)


@register
class SimplifyPowers(Pass):
    """``x ** k`` -> products for constant integer ``|k| <= 16``, ``x ** 0.5`` -> ``sqrt(x)``, negative -> ``1 / (...)``.

    The products follow Numba's exponentiation by squaring, so results are
    bit-identical for integer exponents (an integral float exponent such as
    ``x ** 3.0``, a ``pow`` call in Numba, may differ in the last bit). The
    result keeps the type of the power: ``int ** positive int`` stays an integer;
    an integer base of a float power is cast first. A base that is not a name or
    a constant is computed once into a new local (``<target>_base``) placed
    before the statement; where that would evaluate it when the source does not
    (inside ``a if c else b``, after ``and``/``or``), a call-free base is
    repeated instead and a base with calls keeps its ``**``. ``math.pow(x, k)``
    and scalar ``np.power(x, k)`` are treated like ``x ** k``; constant integer
    powers are folded (``2 ** 10``); an integer power with a negative exponent
    (which Numba truncates to an integer) is kept. New locals inside a region
    join its privates.

    Before::

        func @lj(r: f64) -> f64   role=entry
          sr6: f64 = (1.0 / r) ** 6
          d: f64 = r ** 0.5 + r ** (-2)
          return 4.0 * (sr6 * sr6 - sr6) + d

    After::

        func @lj(r: f64) -> f64   role=entry
          sr6_base: f64 = 1.0 / r
          sr6: f64 = sr6_base * sr6_base * (sr6_base * sr6_base * (sr6_base * sr6_base))
          d: f64 = math.sqrt(r) + 1.0 / (r * r)
          return 4.0 * (sr6 * sr6 - sr6) + d
    """

    name = "simplify-powers"

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            rewriter = _Rewriter(function)
            function.body = self.block(function.body, rewriter, None)
            for name, ty in rewriter.new_locals:
                function.locals.setdefault(name, ty)

    def block(self, body: list, rewriter: _Rewriter, region) -> list:
        out = []
        for stmt in body:
            hint = stmt.target.id if isinstance(stmt, (n.Assign, n.AugAssign)) and isinstance(
                stmt.target, n.Name) else ""
            for name in stmt.__dataclass_fields__:
                value = getattr(stmt, name)
                if name in ("loc", "parallel", "var") or not isinstance(value, n.Expr):
                    continue
                hoistable = not (isinstance(stmt, n.While) and name == "test")
                setattr(stmt, name, rewriter.expr(value, hoistable, hint))
            for new in rewriter.pending:
                if region is not None and new.target.id not in region.parallel.privates:
                    region.parallel.privates = sorted(region.parallel.privates + [new.target.id])
            out += rewriter.pending
            rewriter.pending = []
            inner = stmt if isinstance(stmt, n.For) and stmt.parallel is not None else region
            if isinstance(stmt, (n.For, n.While)):
                stmt.body = self.block(stmt.body, rewriter, inner)
            elif isinstance(stmt, n.If):
                stmt.body = self.block(stmt.body, rewriter, inner)
                stmt.orelse = self.block(stmt.orelse, rewriter, inner)
            out.append(stmt)
        return out
