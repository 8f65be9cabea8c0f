"""NumPy ufuncs as scalar expressions of one element: math intrinsics, operators, NaN-aware extremes, rounding.

>>> from kpc.ir.nodes import NOLOC, Function, Name, Param
>>> from kpc.ir.types import FLOAT64
>>> from kpc.ir.nodes import Call
>>> from kpc.passes.numpy_lowering.elements import ElementLowering
>>> from kpc.passes.numpy_lowering.values import Namer
>>> f = Function("f", [Param("x", FLOAT64), Param("y", FLOAT64)], [])
>>> low = ElementLowering(f, Namer(f), NOLOC)
>>> maximum = low.ufunc(Call("np.maximum", [], "numpy", type=FLOAT64), FLOAT64)
>>> str(maximum(Name("x", FLOAT64), Name("y", FLOAT64)))
'x if x >= y or x != x else y'
"""

from __future__ import annotations

import math

from ...ir import nodes as n
from ...ir.types import BOOL, FLOAT64, ScalarType
from .numpy_names import BINARY_UFUNCS, COMPARE_UFUNCS, MATH_UFUNCS, short_name
from .values import clone, const_int


class Ufuncs:
    """``ElementLowering``'s element-wise NumPy functions, as functions of the element values."""

    def ufunc_args(self, call: n.Call) -> list:
        if call.kwargs:
            self.fail(f"keyword arguments of `{call}`", call)
        return list(call.args)

    def ufunc(self, call: n.Call, dtype: ScalarType):
        """The scalar form of an element-wise NumPy function: a function of the element values."""
        name = short_name(call.func)
        b = self.b
        if name in MATH_UFUNCS:
            func = f"np.{name}"
            float_result = dtype.is_float or dtype.is_complex

            def math_call(*xs):
                args = [b.cast(x, dtype) if float_result and not x.type.is_float else x for x in xs]
                return b.math(func, args, dtype)
            return math_call
        if name in BINARY_UFUNCS:
            return lambda x, y: b.binop(BINARY_UFUNCS[name], x, y, dtype)
        if name in COMPARE_UFUNCS:
            return lambda x, y: n.Compare(COMPARE_UFUNCS[name], x, y, BOOL, self.loc)
        if name in ("abs", "absolute"):
            return lambda x: b.builtin("abs", [x], dtype)
        if name in ("maximum", "fmax", "minimum", "fmin"):
            func = "max" if name in ("maximum", "fmax") else "min"
            if dtype.is_float:
                return lambda x, y: self.nan_aware_extreme(name, b.cast(x, dtype), b.cast(y, dtype), dtype)
            return lambda x, y: b.builtin(func, [b.cast(x, dtype), b.cast(y, dtype)], dtype)
        if name == "sign":
            def sign(x):
                positive = n.Compare(">", x, b.const(0, x.type), BOOL, self.loc)
                negative = n.Compare("<", clone(x), b.const(0, x.type), BOOL, self.loc)
                inner = n.IfExp(negative, b.const(-1, dtype), b.cast(clone(x), dtype), dtype, self.loc)
                return n.IfExp(positive, b.const(1, dtype), inner, dtype, self.loc)
            return sign
        if name == "square":
            return lambda x: b.binop("*", x, clone(x), dtype)
        if name == "negative":
            return lambda x: n.UnaryOp("-", x, dtype, self.loc)
        if name == "reciprocal":
            return lambda x: b.binop("/", b.const(1, dtype), x, dtype)
        if name == "positive" or (name in ("conj", "conjugate") and not dtype.is_complex):
            return lambda x: b.cast(x, dtype)
        if name in ("conj", "conjugate"):
            return lambda x: b.math("np.conj", [b.cast(x, dtype)], dtype)
        if name == "invert":
            return lambda x: n.UnaryOp("not" if dtype.is_bool else "~", x, dtype, self.loc)
        if name in ("deg2rad", "radians", "rad2deg", "degrees"):
            factor = math.pi / 180.0 if name in ("deg2rad", "radians") else 180.0 / math.pi
            return lambda x: b.binop("*", b.cast(x, dtype), b.const(factor, dtype), dtype)
        if name == "sinc":
            def sinc(x):
                # Numba's np.sinc: x = 1e-20 where x is 0, then sin(pi x) / (pi x), in float64.
                value = b.cast(x, FLOAT64)
                zero = n.Compare("==", value, b.const(0.0, FLOAT64), BOOL, self.loc)
                nudged = n.IfExp(zero, b.const(1e-20, FLOAT64), clone(value), FLOAT64, self.loc)
                y = b.binop("*", nudged, b.const(math.pi, FLOAT64), FLOAT64)
                return b.cast(b.binop("/", b.math("np.sin", [y], FLOAT64), clone(y), FLOAT64), dtype)
            return sinc
        if name in ("logical_and", "logical_or"):
            op = name.split("_")[1]
            return lambda x, y: n.BoolOp(op, [x, y], BOOL, self.loc)
        if name == "logical_not":
            return lambda x: n.UnaryOp("not", x, BOOL, self.loc)
        if name == "logical_xor":
            return lambda x, y: n.Compare("!=", b.cast(x, BOOL), b.cast(y, BOOL), BOOL, self.loc)
        if name in ("float64", "float32", "int64", "int32", "bool_", "float", "int", "bool"):
            return lambda x: b.cast(x, dtype)
        self.fail(f"NumPy function `{call.func}`", call)

    def rounding(self, call: n.Call, dtype: ScalarType):
        """``np.round(x, decimals)`` of one element, as Numba computes it (``round_ndigits`` of
        numba/np/arraymath.py, CPython's algorithm): decimals 0 is ``rint`` (half to even; an
        integer is itself); decimals d > 0 is ``rint(x * 10.0**d) / 10.0**d`` in float64, ``x``
        itself where the product overflows (NumPy would give inf there); d < 0 is
        ``rint(x / 10.0**-d) * 10.0**-d``; the result converted to ``dtype`` (float64 for a
        scalar, the array's dtype for an array, int64 for integers). ``decimals`` must be a
        constant integer."""
        b = self.b
        if "out" in call.kwargs or len(call.args) > 2 or set(call.kwargs) - {"decimals"}:
            self.fail(f"`{call}` with an out array", call)
        decimals = const_int(self.arg(call, 1, "decimals", b.int(0)))
        if decimals is None:
            self.fail(f"`{call}` with decimals that are not a constant integer", call)

        def rounded(x):
            if x.type.is_complex or x.type.is_bool:
                self.fail(f"`{call}` of {x.type.name} values", call)
            if decimals == 0:
                return b.cast(b.math("np.rint", [x], x.type), dtype) if x.type.is_float else b.cast(x, dtype)
            if any(isinstance(e, n.Call) and e.kind in ("kernel", "random") for e in n.walk(x)):
                self.fail(f"`{call}` of a call (it is read more than once)", call)
            value = b.cast(x, FLOAT64)
            if decimals < 0:
                scale = b.const(10.0 ** -decimals, FLOAT64)
                quotient = b.binop("/", value, scale, FLOAT64)
                result = b.binop("*", b.math("np.rint", [quotient], FLOAT64), clone(scale), FLOAT64)
                return b.cast(result, dtype)
            # CPython splits a scale beyond 1e22 in two so that neither factor overflows.
            factors = [10.0 ** decimals] if decimals <= 22 else [10.0 ** (decimals - 22), 1e22]
            scaled = value
            for factor in factors:
                scaled = b.binop("*", scaled, b.const(factor, FLOAT64), FLOAT64)
            result = b.math("np.rint", [clone(scaled)], FLOAT64)
            for factor in reversed(factors):
                result = b.binop("/", result, b.const(factor, FLOAT64), FLOAT64)
            overflows = b.math("np.isinf", [scaled], BOOL)
            return b.cast(n.IfExp(overflows, clone(value), result, FLOAT64, self.loc), dtype)

        return rounded

    def nan_aware_extreme(self, name, x, y, dtype) -> n.Expr:
        """NumPy's ``maximum(x, y)``: ``x if x >= y or x != x else y`` (a NaN either side is
        the result); ``fmax``: ``x if x >= y or y != y else y`` (a NaN loses to a number);
        ``minimum``/``fmin`` with ``<=``."""
        compare = n.Compare(">=" if name in ("maximum", "fmax") else "<=", x, y, BOOL, self.loc)
        nan_side = clone(x) if name in ("maximum", "minimum") else clone(y)
        is_nan = n.Compare("!=", nan_side, clone(nan_side), BOOL, self.loc)
        test = n.BoolOp("or", [compare, is_nan], BOOL, self.loc)
        return n.IfExp(test, clone(x), clone(y), dtype, self.loc)
