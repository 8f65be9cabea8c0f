"""Module scope: what each top-level name of the user's module means, read statically.

Imports give aliases (``import numpy as np``, ``from numba import njit, prange``,
``from math import sqrt``); top-level assignments of numbers give constants that
kernels freeze, as Numba does (``N = 3``, ``TWO_PI = 2 * math.pi``); ``def``s are
kernels or plain Python functions. Nothing of the user's module is executed: constants
are evaluated from the syntax tree with a small evaluator over numbers and ``math``.

>>> import ast
>>> scope = ModuleScope.from_tree(ast.parse("import numpy as np\\nfrom math import pi\\nN = 3\\nM = 2 * N + 1"))
>>> scope.qualify(ast.parse("np.sum", mode="eval").body), scope.constants["M"]
('numpy.sum', 7)
>>> scope.qualify(ast.parse("pi", mode="eval").body)
'math.pi'
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass, field

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitOr: operator.or_, ast.BitAnd: operator.and_, ast.BitXor: operator.xor,
}
_UNARYOPS = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
             ast.Not: operator.not_}

MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}
NUMPY_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan,
                   "euler_gamma": 0.5772156649015329, "PINF": math.inf, "NINF": -math.inf,
                   "NaN": math.nan, "Inf": math.inf}
_PURE_MATH = {"sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "atan", "atan2",
              "floor", "ceil", "fabs", "pow", "hypot", "radians", "degrees", "asin", "acos",
              "sinh", "cosh", "tanh", "log1p", "expm1", "erf", "gamma"}


class NotConstant(Exception):
    """The expression is not a compile-time constant."""


@dataclass
class ModuleScope:
    """Top-level names of one module.

    ``aliases``: local name -> qualified name (``np`` -> ``numpy``, ``njit`` -> ``numba.njit``);
    ``constants``: name -> Python value of numeric constants (and strings, for signatures);
    ``variables``: top-level names bound to something that is not a constant (arrays, ...);
    ``functions``: name -> ``ast.FunctionDef`` of every top-level def; ``classes``: names;
    ``imports``: the import statements, as records for ``Module.imports``.
    """

    aliases: dict = field(default_factory=dict)
    constants: dict = field(default_factory=dict)
    variables: set = field(default_factory=set)
    functions: dict = field(default_factory=dict)
    classes: set = field(default_factory=set)
    imports: list = field(default_factory=list)

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
            value = stmt.value
            for target in targets:
                if isinstance(target, ast.Name) and value is not None:
                    self._forget(target.id)
                    try:
                        self.constants[target.id] = self.evaluate(value)
                    except NotConstant:
                        self.variables.add(target.id)
                else:
                    for name in _bound_names(target):
                        self._forget(name)
                        self.variables.add(name)

    def _forget(self, name: str) -> None:
        self.aliases.pop(name, None)
        self.constants.pop(name, None)
        self.variables.discard(name)
        self.functions.pop(name, None)
        self.classes.discard(name)

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
        if isinstance(node, ast.Call) and not node.keywords:
            qualified = self.qualify(node.func)
            if qualified and qualified.startswith("math.") and qualified[5:] in _PURE_MATH:
                try:
                    return getattr(math, qualified[5:])(*(self._number(a) for a in node.args))
                except (ArithmeticError, ValueError, TypeError):
                    raise NotConstant from None
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
