"""Static check of a PyKokkos module against the rules of upstream PyKokkos (PYKOKKOS_CONTRACT.md).

Upstream PyKokkos is not installable here, so emitted modules are checked by
reading them: ``check(source_text)`` parses the text and returns one
``Violation`` per broken rule (empty list = the module keeps every rule checked).
Each rule has an id; the contract section it comes from is in ``RULES``.
``check(text, space="Cuda")`` (or any module that names ``pk.Cuda``) adds the Cuda-space
rules of ``CUDA_RULES``: upstream does not move NumPy arrays to the device (§4).

>>> bad = '''
... import pykokkos as pk
...
... @pk.workunit
... def k(i: int, acc: pk.Acc[pk.double], x: pk.View1D[pk.double]):
...     acc = max(acc, x[i])
... '''
>>> sorted({v.rule for v in check(bad)})
['builtin', 'reduction-form']
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .spelling import CPP_KEYWORDS, MATH_FUNCTIONS

from kpc.ir import python_source

RULES = {
    "syntax": "the module parses as Python",
    "pk-import": "§1.2 a top-level `import pykokkos as <alias>` on its own line",
    "decorator-spelling": "§1.2 decorators spelled @<alias>.workunit / @<alias>.function",
    "module-level": "§1.1 workunits and functions are module-level defs",
    "api-surface": "only pk names the contract lists (no pk.atomic_max, pk.from_numpy, pk.MDRangePolicy...)",
    "function-annotations": "§6 every @pk.function parameter and the return are annotated (-> None too)",
    "annotation-spelling": "§2/§3 pk.double/pk.float, never pk.float64/pk.float32; known dtypes only",
    "view-indexing": "§8 element access is v[i][j], never v[i, j]",
    "inline-subview": "§8 a subview is only the whole value of an assignment to a fresh name",
    "subview-position": "§8 integer positions of a subview are bare names",
    "subview-slice": "§8 subview slices are [:] or [lo:hi] on a 2-D or higher view; a step is silently dropped upstream",
    "subview-redeclared": "§8 each subview name is assigned once per workunit/function",
    "tuple": "§11 no tuple unpacking or tuple literals; no chained assignment (C++ `a = b = v` converts through "
             "b's type: silently wrong when the targets' types differ)",
    "conditional-expression": "§11 no `a if c else b`",
    "chained-comparison": "§11 no `a < b < c`",
    "mixed-boolop": "upstream prints and/or without parentheses: no and/or nested in the other or in a comparison "
                    "(it compiles and silently regroups)",
    "in-is": "§11 no `in` / `is`",
    "builtin": "§9/§11 no min, max, len, print or other Python builtins inside workunits/functions "
               "(min/max/len/print: upstream prints 'undefined symbol' and exits with status 0)",
    "float-cast": "§12 float(x) is a 32-bit cast (silently loses precision upstream): use pk.double(x)",
    "statement": "§11 no with/assert/del/global/try/raise/lambda/comprehensions/else clauses of loops",
    "for-range": "§11 for loops iterate range(...) into one name; a step is a literal (negative only as -k): "
                 "upstream compares with > only for a literal -k, so a negative variable step silently runs zero times",
    "reduction-form": "§5 an accumulator is only updated with += / -= (upstream joins with + from 0: "
                      "other forms compile and give silently wrong results)",
    "acc-annotation": "§5 accumulators are annotated pk.Acc[...] (unannotated means double: an integer sum "
                      "silently comes back as a float, rounded above 2**53)",
    "module-global": "§1.4 module-level names are not visible inside workunits/functions (upstream prints "
                     "'undefined symbol' and exits with status 0)",
    "param-assignment": "§2 a workunit's keyword parameters are const members: copy into an annotated local before "
                        "writing (the thread index and @pk.function parameters are by-value C++ parameters: assignable)",
    "local-annotation": "§3 a new local is declared with an annotation at its first assignment",
    "redeclared-local": "§3 a local is declared once (in the same block: C++ redeclaration error; in an inner "
                        "block or as a loop variable: a C++ shadow, so the outer variable is silently left unchanged)",
    "out-of-scope": "§3 C++ block scoping: a local declared in a block is not visible after it",
    "return-value": "§11 a workunit returns no value",
    "extent-in-function": "§6 v.extent() is not accepted inside @pk.function: pass sizes as parameters",
    "shape-attribute": "§8 v.shape is an undefined symbol inside workunits/functions (upstream exits with status 0): "
                       "use v.extent(d)",
    "atomic-in-function": "§6 pk.atomic_add / pk.atomic_increment are not accepted inside @pk.function: "
                          "use pk.atomic_fetch_add",
    "kwargs-match": "§2 a dispatch passes exactly the workunit's parameters, by keyword (**mapping is fine); a "
                    "parallel_reduce of a workunit without an accumulator silently returns None",
    "cpp-keyword": "a local or parameter named like a C++ keyword or alternative token (xor, bitand...) does not compile",
    "string": "no string constants inside workunits/functions (except pk.printf's format and bare string "
              "statements, which upstream drops)",
}

CUDA_RULES = {
    "cuda-policy-space": "§4 Cuda space: every policy names pk.Cuda (an int policy or a RangePolicy without a "
                         "space runs in the default host space); no pk.set_default_space to another space",
    "cuda-numpy-argument": "§4 Cuda space: NumPy arrays are not moved to the device, so no workunit argument is "
                           "a NumPy array (a np.* result, or a caller's parameter passed on unconverted)",
    "cuda-host-view": "§4/§7 Cuda space: no pk.array/pk.View/pk.zeros (they wrap or allocate host memory); "
                      "device arrays are CuPy arrays",
}
RULES.update(CUDA_RULES)

_ALLOWED_PK = frozenset(
    """workunit function parallel_for parallel_reduce parallel_scan RangePolicy TeamPolicy TeamThreadRange
    AUTO OpenMP Serial Threads Cuda HIP ExecutionSpace set_default_space Acc double float real
    int int8 int16 int32 int64 uint8 uint16 uint32 uint64 array View zeros printf float32 float64
    atomic_add atomic_increment atomic_fetch_add atomic_fetch_sub atomic_fetch_mul atomic_fetch_div
    atomic_fetch_mod atomic_fetch_min atomic_fetch_max atomic_fetch_and atomic_fetch_or atomic_fetch_xor
    atomic_fetch_lshift atomic_fetch_rshift atomic_compare_exchange""".split()
) | {f"View{d}D" for d in range(1, 9)} | MATH_FUNCTIONS | {"abs"}
_SCALAR_TYPES = frozenset("double float int int8 int16 int32 int64 uint8 uint16 uint32 uint64".split())
_VIEW_DTYPES = _SCALAR_TYPES - {"int"}
_UNIT_BUILTINS = frozenset({"range", "abs", "int"})
_DISPATCH_LEADING = {"parallel_for": 1, "parallel_reduce": 2, "parallel_scan": 3}
_MATH_CONSTANTS = frozenset({"pi", "e", "tau", "inf", "nan"})
_SILENT_SYMBOL = "upstream prints 'undefined symbol' and exits with status 0"


@dataclass(frozen=True)
class Violation:
    rule: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.line}:{self.col + 1}: [{self.rule}] {self.message}"


def check(source_text: str, space: str | None = None) -> list:
    """Every rule violation of a PyKokkos module, in source order.

    ``space``: the execution space the module was built for; ``"Cuda"`` adds ``CUDA_RULES``,
    as does a module that names ``pk.Cuda`` itself.
    """
    try:
        tree = python_source.parse(source_text)
    except SyntaxError as exc:
        return [Violation("syntax", exc.lineno or 0, (exc.offset or 1) - 1, exc.msg)]
    checker = _Checker(tree)
    violations = checker.run()
    if (space or "").lower() == "cuda" or checker.names_space("Cuda"):
        violations += _CudaRules(checker).run()
    return sorted(violations, key=lambda v: (v.line, v.col, v.rule))


class _Checker:
    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.violations: list = []
        self.alias = self._alias()
        self.units = {}  # name -> (kind, FunctionDef)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                kind = self._unit_kind(node)
                if kind:
                    self.units[node.name] = (kind, node)
        self.functions = {name for name, (kind, _) in self.units.items() if kind == "function"}

    def add(self, rule: str, node, message: str) -> None:
        self.violations.append(Violation(rule, getattr(node, "lineno", 0), getattr(node, "col_offset", 0), message))

    # ------------------------------------------------------------------ module level
    def _alias(self) -> str | None:
        alias = None
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "pykokkos":
                self.add("pk-import", node, "`from pykokkos import ...`: upstream looks for `import pykokkos as <alias>`")
            if isinstance(node, ast.Import) and any(a.name == "pykokkos" for a in node.names):
                if len(node.names) != 1:
                    self.add("pk-import", node, "`import pykokkos as pk` must be an import statement of its own")
                elif node not in self.tree.body:
                    self.add("pk-import", node, "`import pykokkos` must be at module level")
                else:
                    alias = node.names[0].asname or "pykokkos"
        return alias

    def _unit_kind(self, fn: ast.FunctionDef) -> str | None:
        for decorator in fn.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if isinstance(target, ast.Attribute) and target.attr in ("workunit", "function") \
                    and isinstance(target.value, ast.Name) and target.value.id == self.alias:
                return target.attr
            if isinstance(target, ast.Name) and target.id in ("workunit", "function"):
                self.add("decorator-spelling", decorator, f"@{target.id}: spell it @pk.{target.id}")
            elif isinstance(target, ast.Attribute) and target.attr in ("workunit", "function"):
                self.add("decorator-spelling", decorator,
                         f"decorator must use the pykokkos import alias ({self.alias or 'pk'!s})")
        return None

    def names_space(self, space: str) -> bool:
        """Does the module refer to ``pk.<space>`` (or ``pk.ExecutionSpace.<space>``) anywhere?"""
        return any(isinstance(node, ast.Attribute) and node.attr == space and _root_name(node) == self.alias
                   for node in ast.walk(self.tree))

    def run(self) -> list:
        uses_pk = False
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("pk", self.alias):
                uses_pk = True
                if node.value.id == self.alias and node.attr not in _ALLOWED_PK:
                    self.add("api-surface", node, f"pk.{node.attr} is not part of upstream's working API")
        if uses_pk and self.alias is None:
            self.add("pk-import", self.tree, "the module uses pk but has no `import pykokkos as pk` at top level")
        for node in ast.walk(self.tree):
            if isinstance(node, ast.FunctionDef) and node not in self.tree.body:
                for decorator in node.decorator_list:
                    if isinstance(decorator, ast.Attribute) and decorator.attr in ("workunit", "function"):
                        self.add("module-level", node, f"'{node.name}' must be defined at module level")
        for name, (kind, fn) in self.units.items():
            _Unit(self, kind, fn).run()
        self._dispatches()
        return self.violations

    def _dispatches(self) -> None:
        workunits = {name: fn for name, (kind, fn) in self.units.items() if kind == "workunit"}
        for node in ast.walk(self.tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == self.alias
                    and node.func.attr in _DISPATCH_LEADING):
                continue
            positions = [i for i, a in enumerate(node.args) if isinstance(a, ast.Name) and a.id in workunits]
            if not positions:
                continue
            where = positions[-1]
            fn = workunits[node.args[where].id]
            if len(node.args) > where + 1:
                self.add("kwargs-match", node, f"positional arguments after {fn.name}: pass them by keyword")
            # `**mapping` reaches upstream as ordinary keywords: only the named ones can be checked here.
            unpacked = any(k.arg is None for k in node.keywords)
            leading = _DISPATCH_LEADING[node.func.attr]
            second = fn.args.args[1].annotation if len(fn.args.args) > 1 else None
            if node.func.attr == "parallel_reduce" and second is not None and not (
                    isinstance(second, ast.Subscript) and isinstance(second.value, ast.Attribute)
                    and second.value.attr == "Acc"):
                self.add("kwargs-match", node, f"pk.{node.func.attr}(..., {fn.name}, ...): the workunit has no "
                         "accumulator (upstream runs it and silently returns None)")
                continue
            expected = [a.arg for a in fn.args.args[leading:]]
            given = [k.arg for k in node.keywords if k.arg is not None]
            missing = [] if unpacked else [x for x in expected if x not in given]
            extra = [x for x in given if x not in expected]
            if missing or extra or len(fn.args.args) < leading:
                parts = []
                if missing:
                    parts.append(f"missing {', '.join(missing)}")
                if extra:
                    parts.append(f"unknown {', '.join(extra)}")
                if len(fn.args.args) < leading:
                    parts.append(f"{node.func.attr} needs {leading} leading parameters")
                self.add("kwargs-match", node, f"pk.{node.func.attr}(..., {fn.name}, ...): " + "; ".join(parts))


class _Unit:
    """Checks one @pk.workunit or @pk.function body, with C++ block scoping."""

    def __init__(self, checker: _Checker, kind: str, fn: ast.FunctionDef):
        self.c = checker
        self.kind = kind
        self.fn = fn
        self.alias = checker.alias
        self.params = [a.arg for a in fn.args.args]
        # C++ by-value parameters (assignable): every @pk.function parameter and a workunit's thread index;
        # a workunit's keyword parameters are members of the const functor.
        if kind == "function":
            self.assignable = set(self.params)
        else:
            first = fn.args.args[:1]
            self.assignable = {a.arg for a in first if self._pk_attr(a.annotation) != "TeamMember"}
        self.accs: set = set()
        self.scan = False
        self.scopes: list = [set(self.params)]
        self.closed: set = set()
        self.subviews: set = set()

    def add(self, rule, node, message):
        self.c.add(rule, node, f"{self.fn.name}: {message}")

    def run(self) -> None:
        fn = self.fn
        args = fn.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.defaults:
            self.add("kwargs-match", fn, "no *args, **kwargs, keyword-only or default parameters")
        for a in args.args:
            if a.arg in CPP_KEYWORDS:
                self.add("cpp-keyword", a, f"parameter '{a.arg}' is a C++ keyword")
            if a.annotation is not None:
                self._annotation(a.annotation, a, allow_acc=True)
                self._evaluated_annotation(a.annotation, a)
                if self._is_acc(a.annotation):
                    self.accs.add(a.arg)
        if self.kind == "function":
            for a in args.args:
                if a.annotation is None:
                    self.add("function-annotations", a, f"parameter '{a.arg}' needs an annotation")
            if fn.returns is None:
                self.add("function-annotations", fn, "the return needs an annotation (-> None for none)")
            else:
                self._annotation(fn.returns, fn, allow_none=True)
                self._evaluated_annotation(fn.returns, fn)
        else:
            if len(args.args) >= 3 and args.args[2].annotation is not None and \
                    isinstance(args.args[2].annotation, ast.Name) and args.args[2].annotation.id == "bool" and \
                    self._is_acc(args.args[1].annotation):
                self.scan = True
            if len(args.args) >= 2 and args.args[1].annotation is None and args.args[1].arg in ("acc", "accumulator"):
                self.add("acc-annotation", args.args[1], f"accumulator '{args.args[1].arg}' is unannotated: upstream "
                         "makes it double, so an integer sum silently comes back as a float (rounded above 2**53)")
        self.block(fn.body)

    # ------------------------------------------------------------------ annotations
    def _is_acc(self, node) -> bool:
        return isinstance(node, ast.Subscript) and self._pk_attr(node.value) == "Acc"

    def _pk_attr(self, node) -> str | None:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self.alias:
            return node.attr
        return None

    def _evaluated_annotation(self, node, where) -> None:
        """Parameter and return annotations run at import: ``pk.int`` (fine on locals) is no attribute of pykokkos."""
        if any(self._pk_attr(n) == "int" for n in ast.walk(node)):
            self.add("annotation-spelling", where, "pk.int in a parameter or return annotation: AttributeError at "
                     "import (pykokkos has no attribute int): use int")

    def _annotation(self, node, where, allow_acc=False, allow_none=False) -> None:
        if isinstance(node, ast.Name) and node.id in ("int", "float", "bool"):
            return
        if allow_none and isinstance(node, ast.Constant) and node.value is None:
            return
        attr = self._pk_attr(node)
        if attr is not None:
            if attr in ("float64", "float32"):
                self.add("annotation-spelling", where, f"pk.{attr} breaks the translator: use "
                         f"{'pk.double' if attr == 'float64' else 'pk.float'}")
            elif attr not in _SCALAR_TYPES:
                self.add("annotation-spelling", where, f"pk.{attr} is not a type")
            return
        if isinstance(node, ast.Subscript):
            kind = self._pk_attr(node.value)
            inner = node.slice
            if kind == "Acc" and allow_acc:
                dtype = self._pk_attr(inner)
                ok = dtype in _SCALAR_TYPES or (isinstance(inner, ast.Name) and inner.id in ("float", "int"))
                if not ok:
                    self.add("annotation-spelling", where, "accumulator type must be pk.Acc[pk.double]-like")
                return
            if kind and kind.startswith("View") and kind.endswith("D"):
                dtype = self._pk_attr(inner)
                if dtype in ("float64", "float32"):
                    self.add("annotation-spelling", where, f"pk.{dtype} as a view dtype crashes the translator")
                elif dtype not in _VIEW_DTYPES:
                    self.add("annotation-spelling", where, "unknown view dtype")
                return
        self.add("annotation-spelling", where, f"unsupported annotation `{ast.unparse(node)}`")

    # ------------------------------------------------------------------ scopes
    def visible(self, name: str) -> bool:
        return any(name in scope for scope in self.scopes)

    def declare(self, name: str, node) -> None:
        if name in CPP_KEYWORDS:
            self.add("cpp-keyword", node, f"local '{name}' is a C++ keyword")
        if name in self.scopes[-1]:
            self.add("redeclared-local", node, f"'{name}' is declared again in the same block (C++ redeclaration)")
        elif self.visible(name):
            self.add("redeclared-local", node, f"'{name}' is declared again in an inner block: C++ shadows it, so "
                     "the outer variable is silently left unchanged")
        self.scopes[-1].add(name)

    def block(self, body: list, new_scope: bool = False, names=()) -> None:
        if new_scope:
            self.scopes.append(set(names))
        for stmt in body:
            self.stmt(stmt)
        if new_scope:
            self.closed |= self.scopes.pop()

    # ------------------------------------------------------------------ statements
    def stmt(self, s) -> None:
        if isinstance(s, ast.AnnAssign):
            if not isinstance(s.target, ast.Name):
                self.add("local-annotation", s, "only plain names are declared")
                return
            self._annotation(s.annotation, s)
            if s.value is None:
                self.add("local-annotation", s, f"'{s.target.id}' is declared without a value")
            else:
                self.expr(s.value)
            self.declare(s.target.id, s)
        elif isinstance(s, ast.Assign):
            self._assign(s)
        elif isinstance(s, ast.AugAssign):
            self.expr(s.value)
            target = s.target
            if isinstance(target, ast.Name):
                if target.id in self.accs:
                    if not isinstance(s.op, (ast.Add, ast.Sub)):
                        self.add("reduction-form", s, f"'{target.id}' updated with {type(s.op).__name__}: upstream "
                             "joins partial accumulators with + from 0 (compiles, silently wrong)")
                    return
                self._store_name(target, s)
            else:
                self._target(target)
        elif isinstance(s, ast.For):
            self._for(s)
        elif isinstance(s, ast.While):
            if s.orelse:
                self.add("statement", s, "while/else")
            self.expr(s.test)
            self.block(s.body, new_scope=True)
        elif isinstance(s, ast.If):
            self.expr(s.test)
            self.block(s.body, new_scope=True)
            self.block(s.orelse, new_scope=True)
        elif isinstance(s, ast.Return):
            if s.value is not None:
                if self.kind == "workunit":
                    self.add("return-value", s, "a workunit cannot return a value")
                self.expr(s.value)
        elif isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                return  # a docstring or any bare string statement: upstream emits an empty statement
            self.expr(s.value)
        elif isinstance(s, (ast.Break, ast.Continue, ast.Pass)):
            return
        elif isinstance(s, ast.FunctionDef):
            self.add("statement", s, "nested def (only TeamThreadRange bodies, which kpc does not emit)")
        else:
            self.add("statement", s, f"{type(s).__name__} statement")

    def _assign(self, s: ast.Assign) -> None:
        if len(s.targets) != 1:
            self.add("tuple", s, "chained assignment: upstream emits C++ `a = b = v`, which converts through b's "
                     "type (silently wrong when the targets' types differ)")
        target = s.targets[0]
        value = s.value
        if isinstance(target, ast.Tuple) or isinstance(value, ast.Tuple):
            self.add("tuple", s, "tuple unpacking / tuple value")
            return
        if isinstance(target, ast.Name) and self._is_subview(value):
            self._subview(target, value, s)
            return
        self.expr(value)
        if isinstance(target, ast.Name):
            if target.id in self.accs:
                ok = isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)) and (
                    (isinstance(value.left, ast.Name) and value.left.id == target.id)
                    or (isinstance(value.op, ast.Add) and isinstance(value.right, ast.Name)
                        and value.right.id == target.id))
                if not ok:
                    self.add("reduction-form", s, f"'{target.id}' is assigned a non-sum form: upstream joins "
                             "partial accumulators with + from 0 (compiles, silently wrong)")
                return
            self._store_name(target, s)
        else:
            self._target(target)

    def _store_name(self, target: ast.Name, s) -> None:
        name = target.id
        if name in self.params and name not in self.assignable:
            self.add("param-assignment", s, f"assignment to parameter '{name}' (a const functor member upstream)")
        elif name in self.subviews and self.visible(name):
            self.add("subview-redeclared", s, f"subview '{name}' assigned again")
        elif not self.visible(name):
            if name in self.closed:
                self.add("out-of-scope", s, f"'{name}' was declared in an inner block and is gone here")
            else:
                self.add("local-annotation", s, f"first assignment to '{name}' needs an annotation")
            self.scopes[-1].add(name)

    def _target(self, target) -> None:
        if isinstance(target, ast.Subscript):
            self._subscript(target)
        else:
            self.add("local-annotation", target, f"cannot assign to `{ast.unparse(target)}`")

    def _is_subview(self, value) -> bool:
        if not isinstance(value, ast.Subscript):
            return False
        parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
        return any(isinstance(p, ast.Slice) for p in parts)

    def _subview(self, target: ast.Name, value: ast.Subscript, s) -> None:
        name = target.id
        if name in self.subviews:
            self.add("subview-redeclared", s, f"subview '{name}' assigned again")
        elif self.visible(name) or name in self.params:
            self.add("subview-redeclared", s, f"'{name}' already names something else")
        self.subviews.add(name)
        self.scopes[-1].add(name)
        if not isinstance(value.value, ast.Name):
            self.add("inline-subview", s, "a subview is taken of a view name")
        else:
            self.expr(value.value)
        parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
        if not isinstance(value.slice, ast.Tuple):
            self.add("subview-slice", s, "slices of 1-D views are rejected upstream")
        for part in parts:
            if isinstance(part, ast.Slice):
                if part.step is not None:
                    self.add("subview-slice", s, "subview slice with a step: upstream silently drops the step")
                if (part.lower is None) != (part.upper is None):
                    self.add("subview-slice", s, "partial slice: use [lo:hi] or [:]")
                for bound in (part.lower, part.upper):
                    if bound is not None:
                        self.expr(bound)
            elif not isinstance(part, ast.Name):
                self.add("subview-position", s, f"subview position `{ast.unparse(part)}` must be a bare name")
            else:
                self.expr(part)

    def _for(self, s: ast.For) -> None:
        if s.orelse:
            self.add("statement", s, "for/else")
        it = s.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and not it.keywords and 1 <= len(it.args) <= 3):
            self.add("for-range", s, "for loops iterate range(...) only")
        else:
            for arg in it.args:
                self.expr(arg)
            if len(it.args) == 3:
                step = it.args[2]
                literal = isinstance(step, ast.Constant) and isinstance(step.value, int) or (
                    isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub)
                    and isinstance(step.operand, ast.Constant) and isinstance(step.operand.value, int))
                if not literal:
                    self.add("for-range", s, "a variable range step: upstream compares with > only for a literal "
                             "-k, so a negative step silently runs zero times")
        if not isinstance(s.target, ast.Name):
            self.add("tuple", s, "for loops take one name")
            self.block(s.body, new_scope=True)
            return
        if self.visible(s.target.id):
            self.add("redeclared-local", s, f"loop variable '{s.target.id}' shadows a declared name: C++ declares a "
                     "new int, so the outer variable is silently left unchanged")
        self.block(s.body, new_scope=True, names=[s.target.id])

    # ------------------------------------------------------------------ expressions
    def expr(self, e) -> None:
        if e is None:
            return
        if isinstance(e, ast.Name):
            self._load(e)
        elif isinstance(e, ast.Constant):
            if isinstance(e.value, str):
                self.add("string", e, "string constant")
        elif isinstance(e, ast.BinOp):
            self.expr(e.left)
            self.expr(e.right)
        elif isinstance(e, ast.UnaryOp):
            self.expr(e.operand)
        elif isinstance(e, ast.BoolOp):
            for v in e.values:
                if isinstance(v, ast.BoolOp) and type(v.op) is not type(e.op):
                    self.add("mixed-boolop", v, "and/or nested in the other operator loses its grouping in C++ "
                             "(compiles upstream, silently wrong)")
                self.expr(v)
        elif isinstance(e, ast.Compare):
            if len(e.ops) > 1:
                self.add("chained-comparison", e, "chained comparison")
            for op in e.ops:
                if isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)):
                    self.add("in-is", e, "`in` / `is` comparison")
            for operand in [e.left] + e.comparators:
                if isinstance(operand, ast.BoolOp):
                    self.add("mixed-boolop", operand, "and/or inside a comparison loses its grouping in C++ "
                             "(compiles upstream, silently wrong)")
                self.expr(operand)
        elif isinstance(e, ast.IfExp):
            self.add("conditional-expression", e, "conditional expression")
            for part in (e.test, e.body, e.orelse):
                self.expr(part)
        elif isinstance(e, ast.Call):
            self._call(e)
        elif isinstance(e, ast.Subscript):
            self._subscript(e)
        elif isinstance(e, ast.Attribute):
            self._attribute(e)
        elif isinstance(e, ast.Tuple):
            self.add("tuple", e, "tuple literal")
        elif isinstance(e, ast.List):
            self.add("tuple", e, "list literal outside an atomic's index list")
        elif isinstance(e, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)):
            self.add("statement", e, f"{type(e).__name__}")
        else:
            self.add("statement", e, f"{type(e).__name__} expression")

    def _load(self, e: ast.Name) -> None:
        name = e.id
        if self.visible(name) or name in self.c.functions or name in _UNIT_BUILTINS \
                or name in (self.alias, "math") or name in MATH_FUNCTIONS:
            return
        if name in self.closed:
            self.add("out-of-scope", e, f"'{name}' was declared in an inner block and is gone here")
        elif name in ("min", "max", "len", "print"):
            self.add("builtin", e, f"'{name}' is not available upstream ({_SILENT_SYMBOL})")
        else:
            self.add("module-global", e, f"'{name}' is not a parameter or local here ({_SILENT_SYMBOL})")

    def _attribute(self, e: ast.Attribute) -> None:
        if isinstance(e.value, ast.Name) and e.value.id == "math":
            if e.attr not in MATH_FUNCTIONS and e.attr not in _MATH_CONSTANTS:
                self.add("builtin", e, f"math.{e.attr} is not translated upstream")
            return
        if isinstance(e.value, ast.Name) and e.value.id == self.alias:
            return
        if e.attr == "shape":
            self.add("shape-attribute", e, f"v.shape inside a workunit/function ({_SILENT_SYMBOL}): use v.extent(d)")
        self.expr(e.value)

    def _call(self, e: ast.Call) -> None:
        func = e.func
        for kw in e.keywords:
            self.add("kwargs-match", e, "keyword arguments in device code")
            self.expr(kw.value)
        pk_name = self._pk_attr(func)
        if isinstance(func, ast.Name):
            name = func.id
            if name == "float":
                self.add("float-cast", e, "float(x) casts to 32-bit float upstream (silent precision loss): "
                         "use pk.double(x)")
            elif name in ("min", "max", "len", "print") or (
                    name not in self.c.functions and name not in _UNIT_BUILTINS and name not in MATH_FUNCTIONS):
                if not self.visible(name):
                    silent = f" ({_SILENT_SYMBOL})" if name in ("min", "max", "len", "print") else ""
                    self.add("builtin", e, f"'{name}()' is not available inside workunits/functions{silent}")
        elif isinstance(func, ast.Attribute) and func.attr == "extent":
            if self.kind == "function":
                self.add("extent-in-function", e, "v.extent() inside @pk.function")
            self.expr(func.value)
        elif pk_name is not None:
            if pk_name in ("atomic_add", "atomic_increment") and self.kind == "function":
                self.add("atomic-in-function", e, f"pk.{pk_name} inside @pk.function (upstream: not supported "
                         "for translation): use pk.atomic_fetch_add")
            if pk_name.startswith("atomic_"):
                view, *rest = e.args or [None]
                if isinstance(view, ast.Name):
                    self.expr(view)
                if rest and isinstance(rest[0], ast.List):
                    for idx in rest[0].elts:
                        self.expr(idx)
                    rest = rest[1:]
                for arg in rest:
                    self.expr(arg)
                return
            if pk_name == "printf":
                for arg in e.args[1:]:
                    self.expr(arg)
                return
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "math":
            if func.attr not in MATH_FUNCTIONS:
                self.add("builtin", e, f"math.{func.attr} is not translated upstream")
        else:
            self.add("builtin", e, f"call of `{ast.unparse(func)}`")
        for arg in e.args:
            if self._is_subview(arg):
                self.add("inline-subview", arg, "subview passed inline: assign it to a name first")
                continue
            self.expr(arg)

    def _subscript(self, e: ast.Subscript) -> None:
        if isinstance(e.slice, ast.Tuple):
            if any(isinstance(p, ast.Slice) for p in e.slice.elts):
                self.add("inline-subview", e, "subview inside an expression")
            else:
                self.add("view-indexing", e, f"`{ast.unparse(e)}`: index as v[i][j]")
            for p in e.slice.elts:
                self.expr(p)
        elif isinstance(e.slice, ast.Slice):
            self.add("inline-subview", e, "slice inside an expression")
        else:
            self.expr(e.slice)
        base = e.value
        if isinstance(base, ast.Subscript):
            self._subscript(base)
        else:
            self.expr(base)


def _root_name(node) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


# NumPy functions that make host arrays (np.sqrt(x) and the like also take scalars, so they are not listed).
_NUMPY_ARRAYS = frozenset("""empty zeros ones full empty_like zeros_like ones_like full_like array asarray
    ascontiguousarray asfortranarray copy arange linspace eye identity frombuffer fromfunction""".split())


class _CudaRules:
    """The Cuda-space rules: policies name pk.Cuda, workunits get device arrays only (§4, §7)."""

    def __init__(self, checker: _Checker):
        self.c = checker
        self.alias = checker.alias
        self.numpy = {a.asname or a.name for node in checker.tree.body if isinstance(node, ast.Import)
                      for a in node.names if a.name == "numpy"}
        self.workunits = {name for name, (kind, _) in checker.units.items() if kind == "workunit"}
        self.violations: list = []

    def add(self, rule: str, node, message: str) -> None:
        self.violations.append(Violation(rule, getattr(node, "lineno", 0), getattr(node, "col_offset", 0), message))

    def _pk_call(self, node) -> str | None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == self.alias:
            return node.func.attr
        return None

    def _is_cuda(self, node) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "Cuda" and _root_name(node) == self.alias

    def _numpy_array_call(self, node) -> bool:
        """``np.<f>(...)`` that makes a host array (``np.random.<f>`` included)."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and _root_name(node.func) in self.numpy):
            return False
        return node.func.attr in _NUMPY_ARRAYS or ast.unparse(node.func).split(".")[1:2] == ["random"]

    def run(self) -> list:
        default_cuda = False
        for node in ast.walk(self.c.tree):
            call = self._pk_call(node)
            if call == "set_default_space":
                if node.args and self._is_cuda(node.args[0]):
                    default_cuda = default_cuda or any(node is getattr(stmt, "value", None) for stmt in self.c.tree.body)
                else:
                    self.add("cuda-policy-space", node, "pk.set_default_space to a space other than pk.Cuda")
            elif call in ("array", "View", "zeros"):
                self.add("cuda-host-view", node, f"pk.{call}(...) wraps or allocates host memory: "
                                                 "pass CuPy arrays to Cuda workunits")
        for fn in ast.walk(self.c.tree):
            if isinstance(fn, ast.FunctionDef) and fn.name not in self.c.units:
                self._caller(fn, default_cuda)
        return self.violations

    def _caller(self, fn: ast.FunctionDef, default_cuda: bool) -> None:
        params = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
        bound: dict = {}  # name -> values assigned to it in this function
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    names = target.elts if isinstance(target, ast.Tuple) else [target]
                    values = node.value.elts if isinstance(node.value, ast.Tuple) and isinstance(target, ast.Tuple) \
                        and len(node.value.elts) == len(names) else [node.value] * len(names)
                    for name, value in zip(names, values):
                        if isinstance(name, ast.Name):
                            bound.setdefault(name.id, []).append(value)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
                bound.setdefault(node.target.id, []).append(node.value)
        for node in ast.walk(fn):
            if self._pk_call(node) not in _DISPATCH_LEADING:
                continue
            positions = [i for i, a in enumerate(node.args) if isinstance(a, ast.Name) and a.id in self.workunits]
            if not positions:
                continue
            policy = node.args[positions[-1] - 1] if positions[-1] > 0 else None
            if not default_cuda and not (self._pk_call(policy) in ("RangePolicy", "TeamPolicy")
                                         and policy.args and self._is_cuda(policy.args[0])):
                shown = ast.unparse(policy) if policy is not None else "no policy"
                self.add("cuda-policy-space", node, f"{fn.name}: policy `{shown}` runs in the default space, "
                                                    "not pk.Cuda: write pk.RangePolicy(pk.Cuda, begin, end)")
            for keyword in node.keywords:
                why = self._numpy_argument(keyword.value, params, bound)
                if why:
                    self.add("cuda-numpy-argument", keyword.value,
                             f"{fn.name}: {keyword.arg}={ast.unparse(keyword.value)} {why}")

    def _numpy_argument(self, value, params: set, bound: dict) -> str | None:
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "view":
            value = value.func.value  # a.view(np.uint8): the same memory as a
        if self._numpy_array_call(value):
            return "is a NumPy array, which upstream does not move to the device"
        if not isinstance(value, ast.Name):
            return None
        if any(self._numpy_array_call(v) for v in bound.get(value.id, ())):
            return "is assigned a NumPy array, which upstream does not move to the device"
        if value.id in params and value.id not in bound:
            return "passes the caller's argument unconverted: a NumPy array would stay on the host"
        return None
