"""Module scope: what each top-level name of the user's module means, read statically.

Imports give aliases (``import numpy as np``, ``from numba import njit, prange``,
``from math import sqrt``); top-level assignments of numbers give constants that
kernels freeze, as Numba does (``N = 3``, ``TWO_PI = 2 * math.pi``,
``WR, WG, WB = 0.299, 0.587, 0.114``, ``SQRT_2PI = np.sqrt(2.0 * np.pi)``); ``def``s are
kernels or plain Python functions. Nothing of the user's module is executed: constants
are evaluated from the syntax tree with a small evaluator over numbers, earlier
constants, ``math`` and NumPy's elementary functions (computed by NumPy itself, so the
value is the one the module would get), ``int``/``float``/``bool``/``abs``/``min``/``max``/``round``,
comparisons, ``and``/``or``/``not`` and ``x if c else y``. Decorator options may come from such
constants (``RUN_PARALLEL = True`` ... ``@njit(parallel=RUN_PARALLEL)``), from a dict of them
spread into the call (``OPTS = dict(parallel=True)`` ... ``@njit(**OPTS)``; ``option_dicts``) or
from a decorator bound to a name (``pjit = njit(parallel=True)`` ... ``@pjit``; ``decorator_calls``).
A value Numba would not freeze as a number of its own type (an int beyond int64, a
NumPy float32) is not a constant.

>>> import ast
>>> scope = ModuleScope.from_tree(ast.parse("import numpy as np\\nfrom math import pi\\nN = 3\\nM = 2 * N + 1"))
>>> scope.qualify(ast.parse("np.sum", mode="eval").body), scope.constants["M"]
('numpy.sum', 7)
>>> scope.qualify(ast.parse("pi", mode="eval").body)
'math.pi'
>>> scope = ModuleScope.from_tree(ast.parse("import numpy as np\\nA, (B, C) = 1, (2.0, np.sqrt(2.0))"))
>>> scope.constants["A"], scope.constants["B"], scope.constants["C"]
(1, 2.0, 1.4142135623730951)
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass, field

import numpy as np

from kpc.ir.intrinsics import NUMPY_DTYPES

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitOr: operator.or_, ast.BitAnd: operator.and_, ast.BitXor: operator.xor,
}
_UNARYOPS = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
             ast.Not: operator.not_}
_COMPARES = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
             ast.Gt: operator.gt, ast.GtE: operator.ge}

MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}
NUMPY_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan,
                   "euler_gamma": 0.5772156649015329, "PINF": math.inf, "NINF": -math.inf,
                   "NaN": math.nan, "Inf": math.inf}
_PURE_MATH = {"sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "atan", "atan2",
              "floor", "ceil", "fabs", "pow", "hypot", "radians", "degrees", "asin", "acos",
              "sinh", "cosh", "tanh", "log1p", "expm1", "erf", "gamma"}
# np.<f> of numbers: evaluated by NumPy, the result a float64/int64/bool scalar.
_PURE_NUMPY = {"sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
               "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh",
               "arccosh", "arctanh", "hypot", "floor", "ceil", "trunc", "rint", "round", "around",
               "abs", "absolute", "fabs", "power", "square", "deg2rad", "rad2deg", "degrees",
               "radians", "float64", "int64", "double", "minimum", "maximum"}
_PURE_BUILTINS = {"int": int, "float": float, "abs": abs, "min": min, "max": max, "round": round, "bool": bool}
# np.finfo(np.float64).<attr>: float64 only (a float32 finfo value is a float32 Numba freezes as such).
_FINFO_FLOAT64 = {"numpy.float64", "numpy.double", "numpy.float_", "float"}
_FINFO_ATTRS = {"eps", "max", "min", "tiny", "smallest_normal", "resolution", "epsneg"}
_INT64 = (-2 ** 63, 2 ** 63 - 1)


class NotConstant(Exception):
    """The expression is not a compile-time constant."""


@dataclass
class ModuleScope:
    """Top-level names of one module.

    ``aliases``: local name -> qualified name (``np`` -> ``numpy``, ``njit`` -> ``numba.njit``);
    ``constants``: name -> Python value of numeric constants (and strings, for signatures);
    ``variables``: top-level names bound to something that is not a constant (arrays, ...);
    ``functions``: name -> ``ast.FunctionDef`` of every top-level def; ``classes``: names;
    ``imports``: the import statements, as records for ``Module.imports``;
    ``option_dicts``: name -> ``{key: value}`` of a top-level dict of constants (``OPTS = dict(parallel=True)``),
    for decorators that spread it (``@njit(**OPTS)``); ``decorator_calls``: name -> the ``ast.Call`` a
    top-level name is bound to (``pjit = njit(parallel=True)``), for decorators spelled by that name;
    ``arrays``: name -> the NumPy array of a top-level ``np.array(<numbers>)`` (with arithmetic on
    it: ``np.array([[1.0, 2.0], [2.0, 1.0]]) / 6.0``) that no top-level statement writes into;
    kernels read it as the constant Numba freezes.

    >>> scope = ModuleScope.from_tree(ast.parse("import numpy as np\\nW = np.array([1, 2, 1]) / 4.0"))
    >>> scope.arrays["W"]
    array([0.25, 0.5 , 0.25])
    """

    aliases: dict = field(default_factory=dict)
    constants: dict = field(default_factory=dict)
    variables: set = field(default_factory=set)
    functions: dict = field(default_factory=dict)
    classes: set = field(default_factory=set)
    imports: list = field(default_factory=list)
    option_dicts: dict = field(default_factory=dict)
    decorator_calls: dict = field(default_factory=dict)
    arrays: dict = field(default_factory=dict)

    @classmethod
    def from_tree(cls, tree: ast.Module) -> "ModuleScope":
        scope = cls()
        for stmt in tree.body:
            scope._top_level(stmt)
        for stmt in tree.body:
            if not isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef,
                                     ast.Assign, ast.AnnAssign, ast.Expr, ast.AsyncFunctionDef)):
                for name in _bound_names(stmt):
                    scope._forget(name)
                    scope.variables.add(name)
        for node in ast.walk(ast.Module([s for s in tree.body if not isinstance(
                s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))], [])):
            written = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for target in written:
                while isinstance(target, (ast.Subscript, ast.Attribute)):
                    target = target.value
                if isinstance(target, ast.Name) and not isinstance(target.ctx, ast.Store):
                    scope.arrays.pop(target.id, None)
        return scope

    def _top_level(self, stmt) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.aliases[top] = top
                self.imports.append({"module": alias.name, "name": None, "asname": alias.asname,
                                     "line": stmt.lineno})
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                module = stmt.module or ""
                if alias.name != "*":
                    self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}"
                self.imports.append({"module": "." * stmt.level + module, "name": alias.name,
                                     "asname": alias.asname, "line": stmt.lineno})
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._forget(stmt.name)
            self.functions[stmt.name] = stmt
        elif isinstance(stmt, ast.ClassDef):
            self._forget(stmt.name)
            self.classes.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            try:
                value = NotConstant if stmt.value is None else _frozen(self.evaluate(stmt.value))
            except NotConstant:
                value = NotConstant
            for target in targets:
                self._bind(target, value)
            if value is NotConstant and len(targets) == 1 and isinstance(targets[0], ast.Name):
                self._bind_call(targets[0].id, stmt.value)
                try:
                    self.arrays[targets[0].id] = self._array(stmt.value)
                except NotConstant:
                    pass

    def _bind(self, target, value) -> None:
        """Bind an assignment target to a constant value (``NotConstant``: a variable), unpacking
        tuples as Python does (``A, B = 1, 2``)."""
        if isinstance(target, ast.Name):
            self._forget(target.id)
            if value is NotConstant:
                self.variables.add(target.id)
            else:
                self.constants[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
            parts = value if isinstance(value, tuple) and len(value) == len(target.elts) \
                else [NotConstant] * len(target.elts)
            for element, part in zip(target.elts, parts):
                self._bind(element, part)
        else:
            for name in _bound_names(target):
                self._forget(name)
                self.variables.add(name)

    def _bind_call(self, name: str, value) -> None:
        """Keep a dict of constants (``option_dicts``) or a call (``decorator_calls``) bound to ``name``."""
        try:
            self.option_dicts[name] = self.evaluate_dict(value)
        except NotConstant:
            if isinstance(value, ast.Call):
                self.decorator_calls[name] = value

    def evaluate_dict(self, node) -> dict:
        """The value of ``{"k": constant, ...}`` or ``dict(k=constant, ...)``, else ``NotConstant``."""
        if isinstance(node, ast.Name) and node.id in self.option_dicts:
            return dict(self.option_dicts[node.id])
        if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                              for k in node.keys):
            return {k.value: self.evaluate(v) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" \
                and not self._shadowed("dict") and not node.args and all(k.arg for k in node.keywords):
            return {k.arg: self.evaluate(k.value) for k in node.keywords}
        raise NotConstant

    def _forget(self, name: str) -> None:
        self.option_dicts.pop(name, None)
        self.decorator_calls.pop(name, None)
        self.aliases.pop(name, None)
        self.constants.pop(name, None)
        self.variables.discard(name)
        self.functions.pop(name, None)
        self.classes.discard(name)
        self.arrays.pop(name, None)

    def qualify(self, node) -> str | None:
        """The qualified name of a dotted reference to an imported module or object, else None.

        ``np.linalg.norm`` -> ``numpy.linalg.norm``; ``prange`` (from numba) -> ``numba.prange``.
        """
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        parts.append(self.aliases[node.id])
        return ".".join(reversed(parts))

    def evaluate(self, node):
        """The value of a constant expression (numbers, tuples, strings, math), else ``NotConstant``."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bool, int, float, complex, str)) or node.value is None:
                return node.value
            raise NotConstant
        if isinstance(node, ast.Name):
            if node.id in self.constants:
                return self.constants[node.id]
            qualified = self.qualify(node)
            return self._named_constant(qualified)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Call) and node.attr in _FINFO_ATTRS:
                return self._finfo(node.value, node.attr)
            return self._named_constant(self.qualify(node))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARYOPS:
            return _UNARYOPS[type(node.op)](self._number(node.operand))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            try:
                return _BINOPS[type(node.op)](self._number(node.left), self._number(node.right))
            except (ArithmeticError, ValueError, TypeError):
                raise NotConstant from None
        if isinstance(node, ast.Tuple):
            return tuple(self.evaluate(e) for e in node.elts)
        if isinstance(node, ast.Compare) and all(type(op) in _COMPARES for op in node.ops):
            left = self._number_or_text(node.left)
            for op, comparator in zip(node.ops, node.comparators):
                right = self._number_or_text(comparator)
                try:
                    if not _COMPARES[type(op)](left, right):
                        return False
                except TypeError:
                    raise NotConstant from None
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            values = [self.evaluate(v) for v in node.values]
            result = values[0]
            for value in values[1:]:
                if isinstance(node.op, ast.And) and not result or isinstance(node.op, ast.Or) and result:
                    break
                result = value
            return result
        if isinstance(node, ast.IfExp):
            return self.evaluate(node.body) if self.evaluate(node.test) else self.evaluate(node.orelse)
        if isinstance(node, ast.Call) and not node.keywords:
            return self._call(node)
        raise NotConstant

    def _call(self, node: ast.Call):
        """``math.f(...)``, ``np.f(...)`` and ``int``/``float``/``abs``/``min``/``max``/``round`` of numbers."""
        qualified = self.qualify(node.func)
        if qualified is None and isinstance(node.func, ast.Name) and node.func.id in _PURE_BUILTINS \
                and not self._shadowed(node.func.id):
            args = [self._number(a) for a in node.args]
            function = _PURE_BUILTINS[node.func.id]
        elif qualified and qualified.startswith("math.") and qualified[5:] in _PURE_MATH:
            args = [self._number(a) for a in node.args]
            function = getattr(math, qualified[5:])
        elif qualified and qualified.startswith("numpy.") and qualified[6:] in _PURE_NUMPY:
            args = [self._number(a) for a in node.args]
            if any(isinstance(a, int) and not _INT64[0] <= a <= _INT64[1] for a in args):
                raise NotConstant
            return _python_number(_numpy_value(getattr(np, qualified[6:]), args))
        else:
            raise NotConstant
        try:
            return function(*args)
        except (ArithmeticError, ValueError, TypeError):
            raise NotConstant from None

    def _array(self, node) -> np.ndarray:
        """The array of ``np.array(<nested lists of numbers>[, dtype=np.<dtype>])``, of an earlier
        such array, or of arithmetic on them and numbers, computed by NumPy; else ``NotConstant``."""
        if isinstance(node, ast.Name) and node.id in self.arrays:
            return self.arrays[node.id]
        if isinstance(node, ast.Call) and self.qualify(node.func) in ("numpy.array", "numpy.asarray") \
                and len(node.args) == 1 and all(k.arg == "dtype" for k in node.keywords):
            dtype = None
            if node.keywords:
                name = self.qualify(node.keywords[0].value) or ""
                if not name.startswith("numpy.") or name[6:] not in NUMPY_DTYPES:
                    raise NotConstant
                dtype = NUMPY_DTYPES[name[6:]]
            value = _numpy_value(lambda data: np.array(data, dtype=dtype), [self._nested(node.args[0])])
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            sides = []
            for side in (node.left, node.right):
                try:
                    sides.append(self._array(side))
                except NotConstant:
                    sides.append(self._number(side))
            if not any(isinstance(side, np.ndarray) for side in sides):
                raise NotConstant
            value = _numpy_value(_BINOPS[type(node.op)], sides)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            value = -self._array(node.operand)
        else:
            raise NotConstant
        if not isinstance(value, np.ndarray) or value.dtype.name not in NUMPY_DTYPES.values() or value.ndim == 0:
            raise NotConstant
        return value

    def _nested(self, node):
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self._nested(e) for e in node.elts]
        return self._number(node)

    def _finfo(self, call: ast.Call, attr: str) -> float:
        if self.qualify(call.func) != "numpy.finfo" or len(call.args) != 1 or call.keywords:
            raise NotConstant
        dtype = call.args[0]
        name = self.qualify(dtype) if not (isinstance(dtype, ast.Name) and dtype.id == "float"
                                          and not self._shadowed("float")) else "float"
        if name not in _FINFO_FLOAT64:
            raise NotConstant
        return float(getattr(np.finfo(np.float64), attr))

    def _shadowed(self, name: str) -> bool:
        return name in self.aliases or name in self.constants or name in self.variables \
            or name in self.functions or name in self.classes

    def _number_or_text(self, node):
        value = self.evaluate(node)
        if isinstance(value, (bool, int, float, str)):
            return value
        raise NotConstant

    def _number(self, node):
        value = self.evaluate(node)
        if isinstance(value, (bool, int, float, complex)):
            return value
        raise NotConstant

    @staticmethod
    def _named_constant(qualified: str | None):
        if qualified is None:
            raise NotConstant
        module, _, name = qualified.rpartition(".")
        if module == "math" and name in MATH_CONSTANTS:
            return MATH_CONSTANTS[name]
        if module == "numpy" and name in NUMPY_CONSTANTS:
            return NUMPY_CONSTANTS[name]
        raise NotConstant


def _numpy_value(function, args):
    try:
        with np.errstate(all="ignore"):
            return function(*args)
    except (ArithmeticError, ValueError, TypeError):
        raise NotConstant from None


def _python_number(value):
    """A NumPy scalar of a number type Numba freezes as float64/int64/bool/complex128, as a Python value."""
    if isinstance(value, (np.float64, np.int64, np.bool_, np.complex128)):
        return value.item()
    raise NotConstant


def _frozen(value):
    """``value`` if Numba freezes it as a global of its Python type (ints within int64), else ``NotConstant``."""
    if isinstance(value, tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, int) and not isinstance(value, bool) and not _INT64[0] <= value <= _INT64[1]:
        raise NotConstant
    return value


def _bound_names(node) -> list:
    """Names a statement or target binds, anywhere inside it (for module-level compound statements)."""
    names, stack = [], [node]
    while stack:
        sub = stack.pop()
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.append(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(sub.name)
            continue
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            names += [a.asname or a.name.split(".")[0] for a in sub.names]
        stack.extend(ast.iter_child_nodes(sub))
    return names
