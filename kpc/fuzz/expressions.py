"""Random, well-defined scalar and NumPy expressions for generated kernels, typed as Numba types them.

Every generated expression carries its Numba type, a bound on its magnitude and whether it
is *exact*. The bound keeps values finite (no overflow, no NaN: ``sqrt`` and ``log`` take
``abs(...)``, ``exp`` only bounded arguments), so a difference between kpc and Numba is a bug
and not an ill-defined input. An inexact value (one that went through a reduction, which kpc
and Numba may sum in different orders) never reaches a discontinuous operation (a comparison,
``//``, ``%``, ``int()``): a rounding difference there would turn into a different branch or
a different integer.

Divisors are non-zero by construction, except, with ``FuzzOptions.float_division_by_zero``,
``x / d``, ``k // d`` and ``k % d`` by an integer ``d`` that is zero for some inputs. Outside
``prange`` bodies Numba raises ``ZeroDivisionError`` there, and a non-zero integer divisor
is at least 1, so the bound holds whenever the kernel goes on; inside the ``prange`` body of
a parallel kernel (``ExpressionGenerator.in_prange``) Numba gives inf, nan (floats) or 0
(integers), so a float quotient there is inexact: it may be non-finite, and NaN must not
reach a comparison or a parallel min/max.

>>> import random
>>> scope = Scope([Var("x", "float32", 1.0), Var("k", "int64", 9.0)])
>>> gen = ExpressionGenerator(random.Random(3), FuzzOptions())
>>> e = gen.expression(scope, depth=2)
>>> e.type in NUMERIC and e.bound < BOUND_LIMIT
True
>>> binary_type("float32", "int64"), binary_type("float32", "float32")
('float64', 'float32')
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

NUMERIC = ("int64", "float64", "float32")
# Values stay below this magnitude; larger ones are squashed (``math.tanh``, ``% 1009``).
BOUND_LIMIT = 1.0e4
# exp() only of arguments bounded by this, so its result stays finite in float32.
EXP_LIMIT = 8.0


@dataclass(frozen=True)
class FuzzOptions:
    """What the generator may produce: NumPy expressions, ``@njit`` helpers, divisions by
    divisors that may be zero (Numba's error model: ZeroDivisionError, or inf/nan/0 in
    ``prange`` bodies and array expressions), NumPy broadcasting of operands of ranks 1..3
    with size-1 extents (``ValueError`` for the occasional incompatible shapes), strided
    array layouts; ``constructs``: kernels of issue 32's constructs (``kpc.fuzz.constructs``)
    ``"off"``, ``"mix"`` (one kernel in three) or ``"only"``."""

    numpy: bool = True
    helpers: bool = True
    float_division_by_zero: bool = True
    broadcast_size_one: bool = True
    strided_layouts: bool = True
    constructs: str = "mix"


@dataclass(frozen=True)
class Expr:
    """A generated expression: its source text, Numba type, magnitude bound and exactness."""

    text: str
    type: str
    bound: float
    exact: bool = True

    @property
    def is_float(self) -> bool:
        return self.type in ("float64", "float32")


@dataclass(frozen=True)
class Var:
    """A name visible in the generated code: a local, a parameter or a loop variable."""

    name: str
    type: str
    bound: float
    exact: bool = True


@dataclass(frozen=True)
class Index:
    """A loop variable usable as an array index along extent ``dim``: it runs over
    ``[low, dim - high)`` (so ``name + k`` is in bounds for ``-low <= k <= high``)."""

    name: str
    dim: str
    low: int
    high: int


@dataclass(frozen=True)
class ArrayRef:
    """An array parameter: its name, element type and extent names (``("n", "m")``)."""

    name: str
    dtype: str
    dims: tuple
    bound: float


@dataclass
class Scope:
    """What generated code may read at one point: scalars, arrays and array indices."""

    vars: list = field(default_factory=list)
    arrays: list = field(default_factory=list)
    indices: list = field(default_factory=list)
    helpers: object = None

    def child(self) -> "Scope":
        return Scope(list(self.vars), list(self.arrays), list(self.indices), self.helpers)


def binary_type(a: str, b: str) -> str:
    """Numba's result type of ``a + b`` (also ``-``, ``*``, ``min``, ``max``)."""
    if a == b:
        return a
    if "float64" in (a, b) or {a, b} == {"float32", "int64"}:
        return "float64"
    return "float32" if "float32" in (a, b) else "int64"


def value_type(dtype: str) -> str:
    """The type the generator tracks for an element of a ``dtype`` array: integers of any
    width count as ``int64`` (Numba computes with them as int64 after the first operation)."""
    return "int64" if dtype.startswith("int") else dtype


def squash(e: Expr, bound: float) -> Expr:
    """``e`` brought below ``bound`` (at least 1) by a continuous map for floats and inexact
    integers, ``%`` for exact integers: ``squash(Expr("x", "int64", 50.0), 16).text == "(x % 16)"``."""
    if e.bound <= bound:
        return e
    if e.type == "int64" and e.exact:
        k = max(int(bound), 1)
        return Expr(f"({e.text} % {k})", "int64", float(k))
    return Expr(f"math.tanh({e.text} * {1.0 / e.bound:.3g})", "float64", 1.0, e.exact)


def literal(value, type_: str) -> Expr:
    text = repr(float(value)) if type_ == "float64" else str(int(value))
    if text.startswith("-"):
        text = f"({text})"
    return Expr(text, type_, abs(float(value)))


class ExpressionGenerator:
    """Draws expressions over a ``Scope``; every choice comes from the ``random.Random`` given."""

    def __init__(self, rng: random.Random, options: FuzzOptions):
        self.rng = rng
        self.options = options
        # Set while drawing the body of a parallel kernel's prange loop: Numba's NumPy error model.
        self.in_prange = False

    # ----------------------------------------------------------------- scalars

    def expression(self, scope: Scope, depth: int, want: str | None = None) -> Expr:
        """A numeric expression; ``want="int64"`` asks for an integer, ``"float"`` for a float."""
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            e = self.leaf(scope, want)
        else:
            choices = ("binary", "binary", "binary", "math", "math", "minmax", "divmod", "ternary", "cast",
                       "helper", "power")
            if self.options.float_division_by_zero and want != "int64":
                choices += ("quotient",)
            choice = rng.choice(choices)
            e = getattr(self, f"_{choice}")(scope, depth - 1, want)
        return self.fit(e, want)

    def fit(self, e: Expr, want: str | None) -> Expr:
        """``e`` converted to the wanted kind and squashed below ``BOUND_LIMIT``."""
        if want == "int64" and e.is_float:
            e = self.to_int(e)
        elif want == "float" and not e.is_float:
            e = Expr(f"({e.text} * 0.5)", "float64", e.bound * 0.5, e.exact)
        return squash(e, BOUND_LIMIT)

    def to_int(self, e: Expr) -> Expr:
        if e.exact:
            return Expr(f"int({e.text})", "int64", e.bound)
        # A reassociated float may sit a rounding error away from an integer: only a
        # comparison-free, continuous route is safe, so fall back to a fresh exact value.
        return literal(self.rng.randint(-5, 5), "int64")

    def leaf(self, scope: Scope, want: str | None) -> Expr:
        rng = self.rng
        options = []
        for var in scope.vars:
            if want == "int64" and var.type != "int64":
                continue
            options.append(Expr(var.name, var.type, var.bound, var.exact))
        reads = [self.array_read(scope, array) for array in scope.arrays if self.readable(scope, array)]
        options += [r for r in reads if want != "int64" or r.type == "int64"]
        if options and rng.random() < 0.85:
            return rng.choice(options)
        if want == "int64" or (want is None and rng.random() < 0.4):
            return literal(rng.choice((1, 2, 3, 5, 7, -1, -3, 11)), "int64")
        return literal(rng.choice((0.5, 1.5, 2.0, 0.25, -0.75, 3.0, 0.1)), "float64")

    def readable(self, scope: Scope, array: ArrayRef) -> bool:
        dims = {index.dim for index in scope.indices}
        return all(d in dims for d in array.dims)

    def array_read(self, scope: Scope, array: ArrayRef) -> Expr:
        subscripts = [self.index_expression(scope, dim) for dim in array.dims]
        return Expr(f"{array.name}[{', '.join(subscripts)}]", value_type(array.dtype), array.bound)

    def index_expression(self, scope: Scope, dim: str) -> str:
        """An in-bounds subscript along ``dim`` from a loop variable running over it."""
        rng = self.rng
        index = rng.choice([i for i in scope.indices if i.dim == dim])
        kind = rng.choice(("plain", "plain", "offset", "mirror", "wrap", "half", "clamp", "negative", "last"))
        if kind == "offset" and (index.low or index.high):
            k = rng.randint(-index.low, index.high)
            return f"{index.name} + {k}" if k >= 0 else f"{index.name} - {-k}"
        if kind == "mirror":
            return f"{dim} - 1 - {index.name}"
        if kind == "wrap":
            return f"({index.name} + {rng.randint(1, 9)}) % {dim}"
        if kind == "half":
            return f"{index.name} // 2"
        if kind == "negative":  # Python's wraparound: a[i - n] is a[i]
            return f"{index.name} - {dim}"
        if kind == "last":
            return "-1"
        if kind == "clamp":
            return f"min({index.name} + {rng.randint(1, 4)}, {dim} - 1)"
        return index.name

    def _binary(self, scope, depth, want):
        rng = self.rng
        a = self.expression(scope, depth, want)
        b = self.expression(scope, depth, want)
        op = rng.choice(("+", "-", "*", "+", "-", "/") if want != "int64" else ("+", "-", "*"))
        if op == "/":
            return self.divide(a, b)
        t = binary_type(a.type, b.type)
        bound = a.bound * b.bound if op == "*" else a.bound + b.bound
        return Expr(f"({a.text} {op} {b.text})", t, bound, a.exact and b.exact)

    def divide(self, a: Expr, b: Expr, may_be_zero: bool = False) -> Expr:
        """True division by a divisor that cannot be zero, or (``may_be_zero``) by an exact integer
        that may be: ``|b| >= 1`` when it is not zero, so ``a.bound`` still bounds the quotient."""
        t = "float32" if a.type == b.type == "float32" else "float64"
        if may_be_zero:
            exact = a.exact and not self.in_prange
            return Expr(f"({a.text} / {b.text})", "float64", a.bound, exact)
        if self.rng.random() < 0.5:
            c = self.rng.choice((2.0, -4.0, 0.75, 3.0))
            return Expr(f"({a.text} / {c})", "float64", a.bound / abs(c), a.exact)
        return Expr(f"({a.text} / (abs({b.text}) + 1))", t, a.bound, a.exact and b.exact)

    def _quotient(self, scope, depth, want):
        """``a / d`` by an integer ``d`` that is zero for some inputs (a loop index, ``k % 3``)."""
        a = self.expression(scope, depth)
        d = self.expression(scope, max(depth - 1, 0), "int64")
        if not d.exact:
            return a
        return self.divide(a, d, may_be_zero=True)

    def _math(self, scope, depth, want):
        rng = self.rng
        x = self.expression(scope, depth)
        t = x.type if x.type == "float32" else "float64"
        kind = rng.choice(("sqrt", "sin", "cos", "exp", "log", "tanh", "atan", "abs", "floor"))
        if kind == "sqrt":
            return Expr(f"math.sqrt(abs({x.text}))", t, x.bound ** 0.5 + 1, x.exact)
        if kind == "log":
            return Expr(f"math.log(abs({x.text}) + 1.0)", "float64", x.bound, x.exact)
        if kind == "exp":
            if x.bound > EXP_LIMIT:
                x = Expr(f"math.sin({x.text})", t, 1.0, x.exact)
            return Expr(f"math.exp({x.text})", t, 2.72 ** x.bound, x.exact)
        if kind == "abs":
            return Expr(f"abs({x.text})", x.type, x.bound, x.exact)
        if kind == "floor":
            if not x.exact:
                return x
            return Expr(f"math.floor({x.text})", "int64", x.bound + 1)
        return Expr(f"math.{kind}({x.text})", t, 1.6, x.exact)

    def _minmax(self, scope, depth, want):
        a = self.expression(scope, depth, want)
        b = self.expression(scope, depth, want)
        f = self.rng.choice(("min", "max"))
        return Expr(f"{f}({a.text}, {b.text})", binary_type(a.type, b.type), max(a.bound, b.bound),
                    a.exact and b.exact)

    def _divmod(self, scope, depth, want):
        """``//`` and ``%`` (Python's floor semantics) by non-zero divisors, or (with the option)
        by ``b % m`` that may be zero: an integer result either way (0 in a ``prange`` body)."""
        rng = self.rng
        a = self.expression(scope, depth, want)
        if not a.exact:
            return a
        op = rng.choice(("//", "%"))
        if a.is_float:
            c = rng.choice((0.7, 1.5, -2.5, 3.0))
            bound = a.bound / abs(c) + 1 if op == "//" else abs(c)
            t = "float64"
            return Expr(f"({a.text} {op} {c if c > 0 else f'({c})'})", t, bound)
        if rng.random() < 0.5:
            c = rng.choice((2, 3, 7, -3, -5, 16))
            divisor, dbound = (str(c) if c > 0 else f"({c})"), abs(c)
        else:
            b = self.expression(scope, depth, "int64")
            if not b.exact:
                return a
            m = rng.choice((3, 5, 8))
            sign = rng.choice(("", "-"))
            nonzero = " + 1" if not self.options.float_division_by_zero or rng.random() < 0.6 else ""
            divisor, dbound = f"{sign}({b.text} % {m}{nonzero})", m
        bound = a.bound + 1 if op == "//" else dbound
        return Expr(f"({a.text} {op} {divisor})", "int64", bound)

    def _ternary(self, scope, depth, want):
        a = self.expression(scope, depth, want)
        b = self.expression(scope, depth, want)
        c = self.condition(scope, depth)
        return Expr(f"({a.text} if {c} else {b.text})", binary_type(a.type, b.type), max(a.bound, b.bound),
                    a.exact and b.exact)

    def _cast(self, scope, depth, want):
        x = self.expression(scope, depth)
        if want == "int64":
            return self.to_int(x)
        kind = self.rng.choice(("float", "np.float32", "np.float64"))
        t = "float32" if kind == "np.float32" else "float64"
        return Expr(f"{kind}({x.text})", t, x.bound, x.exact)

    def _power(self, scope, depth, want):
        x = self.expression(scope, depth, want)
        k = self.rng.choice((2, 3, 0.5) if want != "int64" else (2, 3))
        if x.bound > 30:
            x = squash(x, 30.0)
        if k == 0.5:
            return Expr(f"(abs({x.text}) ** 0.5)", "float64", x.bound ** 0.5 + 1, x.exact)
        return Expr(f"({x.text} ** {k})", x.type, x.bound ** k, x.exact)

    def _helper(self, scope, depth, want):
        if scope.helpers is None or not self.options.helpers:
            return self._binary(scope, depth, want)
        args = [self.expression(scope, depth, want) for _ in range(2)]
        return scope.helpers.call(args, safe=self.in_prange)

    # ----------------------------------------------------------------- NumPy arrays

    def array_expression(self, arrays, window: str, depth: int, top: bool = True) -> Expr:
        """An elementwise NumPy expression over equally shaped operands (``window``: the slice
        every 1-D operand takes, ``""`` for whole arrays); at the ``top`` never a bare scalar."""
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            if not top and rng.random() < 0.15:
                return literal(rng.choice((2.0, 0.5, 3)), rng.choice(("float64", "int64")))
            a = rng.choice(arrays)
            return Expr(f"{a.name}{window}", value_type(a.dtype), a.bound)
        kind = rng.choice(("binary", "binary", "ufunc", "minmax", "where", "power"))
        # At the top, the first operand is never a bare scalar either (``np.abs(0 ** 2)`` is no
        # array: ``.min()`` of it does not type under Numba).
        if kind == "ufunc":
            x = self.array_expression(arrays, window, depth - 1, top)
            f = rng.choice(("sqrt", "sin", "cos", "tanh", "exp", "log", "abs"))
            t = x.type if x.type == "float32" else "float64"
            if f == "sqrt":
                return Expr(f"np.sqrt(np.abs({x.text}))", t, x.bound ** 0.5 + 1)
            if f == "log":
                return Expr(f"np.log(np.abs({x.text}) + 1.0)", "float64", x.bound)
            if f == "exp":
                if x.bound > 8:
                    x = Expr(f"np.sin({x.text})", t, 1.0)
                return Expr(f"np.exp({x.text})", t, 2.72 ** x.bound)
            if f == "abs":
                return Expr(f"np.abs({x.text})", x.type, x.bound)
            return Expr(f"np.{f}({x.text})", t, 1.0)
        a = self.array_expression(arrays, window, depth - 1, top)
        b = self.array_expression(arrays, window, depth - 1, False)
        t = binary_type(a.type, b.type)
        if kind == "minmax":
            return Expr(f"np.{rng.choice(('maximum', 'minimum'))}({a.text}, {b.text})", t, max(a.bound, b.bound))
        if kind == "where":
            return Expr(f"np.where({a.text} > {b.text}, {a.text}, {b.text} * 0.5)", binary_type(t, "float64"),
                        max(a.bound, b.bound))
        if kind == "power":
            if a.bound > 30:
                a = Expr(f"np.tanh({a.text})", "float64", 1.0)
            return Expr(f"({a.text} ** 2)", a.type, a.bound ** 2)
        op = rng.choice(("+", "-", "*", "/"))
        if op == "/" and self.options.float_division_by_zero and b.type == "int64" and rng.random() < 0.5:
            # An integer array holds zeros: NumPy's inf and nan, never an exception.
            return Expr(f"({a.text} / {b.text})", "float64", a.bound)
        if op == "/":
            return Expr(f"({a.text} / (np.abs({b.text}) + 1.0))", binary_type(t, "float64"), a.bound)
        bound = a.bound * b.bound if op == "*" else a.bound + b.bound
        if bound > 1e4:
            return Expr(f"np.tanh({a.text} * 0.001)", "float64", 1.0)
        return Expr(f"({a.text} {op} {b.text})", t, bound)

    def condition(self, scope: Scope, depth: int) -> str:
        """A boolean condition over exact values only."""
        rng = self.rng
        exact = scope.child()
        exact.vars = [v for v in scope.vars if v.exact]
        kind = rng.random()
        if kind < 0.15 and exact.indices:
            index = rng.choice(exact.indices)
            return f"{index.name} % {rng.choice((2, 3, 4))} == {rng.randint(0, 1)}"
        a = self.expression(exact, max(depth - 1, 0))
        b = self.expression(exact, max(depth - 1, 0))
        if not (a.exact and b.exact):
            return rng.choice(("True", "False"))
        op = rng.choice(("<", ">", "<=", ">=", "!=", "=="))
        text = f"{a.text} {op} {b.text}"
        if kind > 0.85:
            other = self.condition(scope, 0)
            return f"({text}) {rng.choice(('and', 'or'))} ({other})"
        if kind > 0.8:
            return f"not ({text})"
        return text
