"""CONTRACT INTERPRETER: runs an emitted PyKokkos module on a small pure-Python model of the
semantics that PYKOKKOS_CONTRACT.md documents for upstream PyKokkos.

This is NOT upstream PyKokkos and proves nothing about compiling with it. Upstream is not
installable here; this model gives extra semantic evidence that kpc's output computes
what Numba computes *if* upstream behaves as the contract says. It models:

- workunits and ``@pk.function``s re-compiled from their source with C++ semantics:
  ``a // b`` truncates and is cast to 32-bit int (``(int)(a / b)``), ``a % b`` is C's
  remainder (and an error for floats), ``/`` is true division, ``**`` is ``pow``
  (double), ``float(x)`` rounds to 32-bit float, ``int(x)`` truncates to int32,
  ``math.floor`` & co. return doubles, domain errors give nan/inf;
- annotated locals keep their C++ type on every assignment (``int`` wraps to 32 bits,
  ``pk.int64`` to 64, ``pk.float`` rounds to float32);
- views index like ``Kokkos::View``: ``v[i][j]`` only, a negative or out-of-range index
  raises (undefined behaviour in C++), ``v[i, j]`` raises (rejected upstream), strided or
  bool arrays raise (upstream mis-indexes / copies them), a view parameter's annotated
  rank and dtype must match the array;
- only parameters, locals, ``math``, ``pk`` and the file's ``@pk.function``s are visible
  inside workunits/functions (module-level names raise NameError: "undefined symbol");
- ``pk.parallel_for`` runs iterations in a scrambled order; ``pk.parallel_reduce`` gives
  every iteration a fresh zero accumulator and adds the results (the only join upstream
  has is ``+`` from 0); ``pk.parallel_scan`` runs Kokkos's two passes; keyword arguments
  must match the workunit's parameters exactly; ``pk.RangePolicy`` bounds must be
  Python ``int``.

Not modelled: integer overflow inside expressions (only at assignments/stores), C++
compile errors the static checker does not catch, performance, the compilation cache.
"""

from __future__ import annotations

import ast
import importlib.util
import math
import random
import sys
import types

import numpy as np

_INT_BITS = {"int": 32, "int32": 32, "int8": 8, "int16": 16, "int64": 64}
_UINT_BITS = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}
_VIEW_DTYPE = {"double": np.float64, "float": np.float32, "int8": np.int8, "int16": np.int16,
               "int32": np.int32, "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16,
               "uint32": np.uint32, "uint64": np.uint64}


class ContractViolation(RuntimeError):
    """Something upstream PyKokkos would reject or get wrong, according to the contract."""


# --------------------------------------------------------------------------- C scalar semantics
def _wrap(value: int, bits: int, signed: bool = True) -> int:
    value &= (1 << bits) - 1
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def convert(kind: str, value):
    """C++ conversion of ``value`` to the local/parameter type ``kind``."""
    if kind in ("double", "float64_"):
        return float(value)
    if kind == "float":
        return float(np.float32(value))
    if kind == "bool":
        return bool(value)
    if kind in _INT_BITS or kind in _UINT_BITS:
        if isinstance(value, float) or isinstance(value, np.floating):
            if not math.isfinite(value):
                raise ContractViolation(f"conversion of {value} to an integer (undefined behaviour)")
            value = math.trunc(value)
        value = int(value)
        if kind in _INT_BITS:
            return _wrap(value, _INT_BITS[kind])
        return _wrap(value, _UINT_BITS[kind], signed=False)
    raise ContractViolation(f"unknown type {kind}")


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def c_floordiv(a, b):
    """Upstream ``a // b`` -> ``(int)(a / b)``: truncation, then a 32-bit cast."""
    if _is_int(a) and _is_int(b):
        if b == 0:
            raise ContractViolation("integer division by zero")
        q = abs(int(a)) // abs(int(b))
        return _wrap(q if (a >= 0) == (b >= 0) else -q, 32)
    return convert("int", c_truediv(a, b))


def c_mod(a, b):
    if not (_is_int(a) and _is_int(b)):
        raise ContractViolation("% on doubles does not compile upstream (use fmod)")
    if b == 0:
        raise ContractViolation("integer modulo by zero")
    return int(math.fmod(int(a), int(b))) if abs(int(a)) < 2**53 else int(a) - int(b) * int(int(a) / int(b))


def c_truediv(a, b):
    with np.errstate(all="ignore"):
        return float(np.float64(a) / np.float64(b))


def c_pow(a, b):
    with np.errstate(all="ignore"):
        return float(np.power(np.float64(a), np.float64(b)))


class CMath:
    """``math.f`` as C's ``f``: doubles in, doubles out, nan/inf instead of exceptions."""

    pi, e, tau, inf, nan = math.pi, math.e, math.tau, math.inf, math.nan

    def __getattr__(self, name):
        numpy_name = {"acos": "arccos", "asin": "arcsin", "atan": "arctan", "atan2": "arctan2",
                      "acosh": "arccosh", "asinh": "arcsinh", "atanh": "arctanh", "pow": "power"}.get(name, name)
        if hasattr(np, numpy_name) and name not in ("erf", "erfc", "lgamma", "tgamma"):
            ufunc = getattr(np, numpy_name)

            def call(*args):
                with np.errstate(all="ignore"):
                    result = ufunc(*[np.float64(a) for a in args])
                return bool(result) if isinstance(result, np.bool_) else float(result)
            return call
        if name in ("erf", "erfc", "lgamma"):
            return lambda x: float(getattr(math, name)(x))
        if name == "tgamma":
            return lambda x: float(math.gamma(x))
        raise ContractViolation(f"math.{name} is not translated upstream")


# --------------------------------------------------------------------------- views
class View:
    """A Kokkos view over a C-contiguous NumPy array: ``v[i][j]``, ``v.extent(d)``, subviews."""

    def __init__(self, array: np.ndarray, name: str = "view"):
        self.array = array
        self.name = name

    def extent(self, d):
        return int(self.array.shape[d])

    def _check(self, i, d):
        if isinstance(i, (bool, np.bool_)) or not _is_int(i):
            raise ContractViolation(f"{self.name}: index {i!r} is not an integer")
        if not 0 <= i < self.array.shape[d]:
            raise ContractViolation(f"{self.name}: index {i} out of range [0, {self.array.shape[d]}) "
                                    "(undefined behaviour in C++; Numba wraps negative indices)")
        return int(i)

    def __getitem__(self, key):
        if isinstance(key, tuple):
            if not any(isinstance(k, slice) for k in key):
                raise ContractViolation(f"{self.name}[i, j] is rejected upstream: use {self.name}[i][j]")
            parts = []
            for d, k in enumerate(key):
                if isinstance(k, slice):
                    if k.step is not None or (k.start is None) != (k.stop is None):
                        raise ContractViolation("subview slices are [:] or [lo:hi]")
                    parts.append(k)
                else:
                    parts.append(self._check(k, d))
            return View(self.array[tuple(parts)], f"{self.name}[...]")
        i = self._check(key, 0)
        if self.array.ndim == 1:
            value = self.array[i]
            return _python_scalar(value)
        return _Row(self, i)


class _Row:
    """``v[i]`` of a multi-dimensional view, only valid as the first half of ``v[i][j]``."""

    def __init__(self, view: View, i: int, prefix=()):
        self.view, self.prefix = view, prefix + (i,)

    def __getitem__(self, j):
        j = self.view._check(j, len(self.prefix))
        index = self.prefix + (j,)
        if len(index) == self.view.array.ndim:
            return _python_scalar(self.view.array[index])
        return _Row(self.view, j, self.prefix)


def _python_scalar(value):
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


def _to_dtype(value, dtype):
    if dtype.kind in "iu":
        return convert(dtype.name, value)
    if dtype.kind == "f":
        return float(value) if dtype.itemsize == 8 else float(np.float32(value))
    return value


# --------------------------------------------------------------------------- source transformation
class _Transform(ast.NodeTransformer):
    """Rewrites one unit so that executing it as Python follows the C++ semantics above."""

    def __init__(self, alias: str, acc: str | None):
        self.alias = alias
        self.acc = acc
        self.types: dict = {}

    def kind_of(self, annotation) -> str | None:
        if isinstance(annotation, ast.Name):
            return {"int": "int", "float": "double", "bool": "bool"}.get(annotation.id)
        if isinstance(annotation, ast.Attribute) and isinstance(annotation.value, ast.Name) \
                and annotation.value.id == self.alias:
            if annotation.attr in ("float64", "float32"):
                raise ContractViolation(f"pk.{annotation.attr} annotation breaks the translator")
            return annotation.attr
        if isinstance(annotation, ast.Subscript):
            return self.kind_of(annotation.slice)
        return None

    def _conv(self, kind, value):
        return ast.Call(ast.Name("_convert", ast.Load()), [ast.Constant(kind), value], [])

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        kind = self.kind_of(node.annotation)
        name = node.target.id
        if name in self.types:
            raise ContractViolation(f"redeclaration of '{name}'")
        self.types[name] = kind
        return ast.copy_location(ast.Assign([node.target], self._conv(kind, node.value)), node)

    def visit_Assign(self, node):
        self.generic_visit(node)
        (target,) = node.targets
        if isinstance(target, ast.Name):
            if target.id == self.acc:
                return node
            if target.id in self.types:
                node.value = self._conv(self.types[target.id], node.value)
            return node
        if isinstance(target, ast.Subscript):
            return self._store(target, node.value, node)
        raise ContractViolation(f"assignment to {ast.unparse(target)}")

    def _store(self, target: ast.Subscript, value, node):
        chain, base = [], target
        while isinstance(base, ast.Subscript):
            chain.insert(0, base.slice)
            base = base.value
        if any(isinstance(s, ast.Tuple) for s in chain):
            raise ContractViolation(f"{ast.unparse(target)} = ...: v[i, j] stores are rejected upstream")
        call = ast.Call(ast.Name("_store", ast.Load()), [base, ast.Tuple(chain, ast.Load()), value], [])
        return ast.copy_location(ast.Expr(call), node)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        value = self._binop(node.target if isinstance(node.target, ast.Name) else _load(node.target), node.op,
                            node.value)
        return self.visit_Assign(ast.copy_location(ast.Assign([_store_ctx(node.target)], value), node))

    def _binop(self, left, op, right):
        helper = {ast.FloorDiv: "_c_floordiv", ast.Mod: "_c_mod", ast.Div: "_c_truediv", ast.Pow: "_c_pow"}
        if type(op) in helper:
            return ast.Call(ast.Name(helper[type(op)], ast.Load()), [_load(left), right], [])
        return ast.BinOp(_load(left), op, right)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return ast.copy_location(self._binop(node.left, node.op, node.right), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name):
            if node.func.id == "float":
                node.func = ast.Name("_float32_cast", ast.Load())
            elif node.func.id == "int":
                node.func = ast.Name("_int_cast", ast.Load())
        return node


def _load(node):
    node = ast.parse(ast.unparse(node), mode="eval").body
    return node


def _store_ctx(node):
    node = _load(node)
    node.ctx = ast.Store()
    return node


class _Unit:
    def __init__(self, name, kind, params, returns, function):
        self.name, self.kind, self.params, self.returns, self.function = name, kind, params, returns, function


def _annotation_kind(annotation, alias):
    """(category, detail) of a parameter annotation: ("view", (rank, dtype)), ("acc", kind), ("scalar", kind)."""
    if annotation is None:
        return ("inferred", None)
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Attribute):
        head = annotation.value.attr
        if head == "Acc":
            inner = annotation.slice
            kind = inner.attr if isinstance(inner, ast.Attribute) else {"float": "double", "int": "int"}[inner.id]
            return ("acc", kind)
        if head.startswith("View"):
            dtype = annotation.slice.attr
            if dtype in ("float64", "float32"):
                raise ContractViolation("pk.View..[pk.float64] crashes the translator (KeyError: 'dtype')")
            return ("view", (int(head[4:-1]), _VIEW_DTYPE[dtype]))
    if isinstance(annotation, ast.Name):
        return ("scalar", {"int": "int", "float": "double", "bool": "bool"}[annotation.id])
    if isinstance(annotation, ast.Attribute):
        if annotation.attr in ("float64", "float32"):
            raise ContractViolation(f"pk.{annotation.attr} annotation breaks the translator")
        return ("scalar", annotation.attr)
    raise ContractViolation(f"annotation {ast.unparse(annotation)}")


class ContractInterpreter:
    """Loads an emitted module with the ``pk`` namespace bound to this model (see the module docstring)."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self.units: dict = {}
        self.calls = 0

    # -- the pk namespace the emitted module sees
    def namespace(self) -> types.SimpleNamespace:
        pk = types.SimpleNamespace()
        pk.workunit = lambda f: f
        pk.function = lambda f: f
        pk.OpenMP, pk.Serial, pk.Threads = "OpenMP", "Serial", "Threads"
        pk.RangePolicy = self._range_policy
        pk.parallel_for = self._parallel_for
        pk.parallel_reduce = self._parallel_reduce
        pk.parallel_scan = self._parallel_scan
        pk.double = float
        for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
            setattr(pk, name, name)
        pk.float = "float"
        for name in [f"View{d}D" for d in range(1, 9)] + ["Acc"]:
            setattr(pk, name, _Annotation(name))
        return pk

    def load(self, path: str, name: str | None = None):
        with open(path) as handle:
            source = handle.read()
        tree = ast.parse(source)
        alias = next((a.asname or a.name for node in tree.body if isinstance(node, ast.Import)
                      for a in node.names if a.name == "pykokkos"), "pk")
        env = {"math": CMath(), "__builtins__": {"range": range, "abs": abs, "True": True, "False": False}}
        env.update(_float32_cast=lambda x: float(np.float32(x)), _int_cast=lambda x: convert("int", x),
                   _convert=convert, _c_floordiv=c_floordiv, _c_mod=c_mod, _c_truediv=c_truediv,
                   _c_pow=c_pow, _store=self._store)
        pk_device = types.SimpleNamespace(double=lambda x: float(x))
        for attr in ("atomic_add", "atomic_fetch_add", "atomic_fetch_sub", "atomic_fetch_mul",
                     "atomic_fetch_min", "atomic_fetch_max"):
            setattr(pk_device, attr, self._atomic(attr))
        env[alias] = pk_device
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            kinds = [d.attr for d in node.decorator_list if isinstance(d, ast.Attribute)
                     and isinstance(d.value, ast.Name) and d.value.id == alias]
            if not kinds:
                continue
            self._compile(node, kinds[0], alias, env)
        module_name = name or f"kpc_contract_interpreter_{abs(hash(path)) % 10**8}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        saved = sys.modules.get("pykokkos")
        sys.modules["pykokkos"] = self.namespace()  # only while the emitted module executes its imports
        try:
            spec.loader.exec_module(module)
        finally:
            if saved is None:
                sys.modules.pop("pykokkos", None)
            else:
                sys.modules["pykokkos"] = saved
        per_call = vars(module).get("_kpc_types")
        if per_call is not None:  # modules kpc writes for other argument types run here too
            per_call.load_module = lambda file, module_name: ContractInterpreter().load(file, name=module_name)
        return module

    def _compile(self, fn: ast.FunctionDef, kind: str, alias: str, env: dict) -> None:
        params = [(a.arg, _annotation_kind(a.annotation, alias)) for a in fn.args.args]
        acc = params[1][0] if kind == "workunit" and len(params) > 1 and params[1][1][0] == "acc" else None
        transform = _Transform(alias, acc)
        for name, (category, detail) in params:
            if category in ("scalar", "acc"):
                transform.types[name] = detail if category == "scalar" else None
        body = [transform.visit(stmt) for stmt in fn.body]
        if acc is not None:
            body = [_ReturnAcc(acc).visit(stmt) for stmt in body] + [ast.Return(ast.Name(acc, ast.Load()))]
        new = ast.FunctionDef(fn.name, ast.arguments([], [ast.arg(a.arg) for a in fn.args.args], None, [], [], None, []),
                              body, [], None)
        module = ast.fix_missing_locations(ast.Module([new], []))
        code = compile(module, f"<contract interpreter: {fn.name}>", "exec")
        local: dict = {}
        exec(code, env, local)
        raw = local[fn.name]
        returns = None
        if kind == "function":
            returns = fn.returns
            if returns is None or any(a.annotation is None for a in fn.args.args):
                raise ContractViolation(f"{fn.name}: unannotated @pk.function")
            return_kind = None if isinstance(returns, ast.Constant) else _annotation_kind(returns, alias)[1]

            def device(*args, _raw=raw, _params=params, _return_kind=return_kind, _name=fn.name):
                converted = [self._argument(_name, p, value) for p, value in zip(_params, args)]
                result = _raw(*converted)
                return result if _return_kind is None else convert(_return_kind, result)
            env[fn.name] = device
        self.units[fn.name] = _Unit(fn.name, kind, params, returns, raw)

    def _argument(self, unit: str, param, value):
        name, (category, detail) = param
        if category == "view":
            rank, dtype = detail
            view = value if isinstance(value, View) else self._view(unit, name, value)
            if view.array.ndim != rank or view.array.dtype != dtype:
                raise ContractViolation(f"{unit}: {name} is a {view.array.ndim}-d {view.array.dtype} view, "
                                        f"annotated {rank}-d {np.dtype(dtype).name}")
            return view
        if category in ("scalar", "acc"):
            return convert(detail, value)
        raise ContractViolation(f"{unit}: parameter {name} without annotation (inference not modelled)")

    def _view(self, unit, name, array):
        if not isinstance(array, np.ndarray):
            raise ContractViolation(f"{unit}: {name} is {type(array).__name__}, not an array")
        if array.dtype == np.bool_:
            raise ContractViolation(f"{unit}: {name} is a bool array (upstream copies it to uint8)")
        if not array.flags.c_contiguous:
            raise ContractViolation(f"{unit}: {name} is not C-contiguous (upstream ignores strides)")
        return View(array, name)

    # -- dispatch
    def _range_policy(self, *args):
        if len(args) == 3:
            args = args[1:]
        for bound in args:
            if type(bound) is not int:
                raise ContractViolation(f"RangePolicy bound {bound!r} of type {type(bound).__name__}: "
                                        "upstream accepts Python int only")
        begin, end = args
        if begin > end:
            raise ContractViolation(f"RangePolicy({begin}, {end}): begin > end")
        return range(begin, end)

    def _prepare(self, policy, workunit, kwargs, leading: int):
        indices = policy if isinstance(policy, range) else range(policy)
        unit = self.units.get(getattr(workunit, "__name__", None))
        if unit is None or unit.kind != "workunit":
            raise ContractViolation(f"{workunit!r} is not a @pk.workunit of the module")
        expected = [name for name, _ in unit.params[leading:]]
        if set(kwargs) != set(expected):
            raise ContractViolation(f"{unit.name}: keywords {sorted(kwargs)} != parameters {expected}")
        args = {name: self._argument(unit.name, param, kwargs[name])
                for param in unit.params[leading:] for name in [param[0]]}
        self.calls += 1
        return unit, list(indices), args

    def _parallel_for(self, policy, workunit, **kwargs):
        unit, indices, args = self._prepare(policy, workunit, kwargs, 1)
        self.rng.shuffle(indices)
        for i in indices:
            unit.function(convert("int", i), **args)

    def _acc_kind(self, unit):
        category, kind = unit.params[1][1]
        if category != "acc":
            raise ContractViolation(f"{unit.name}: second parameter is not a pk.Acc")
        return kind

    def _parallel_reduce(self, policy, workunit, **kwargs):
        unit, indices, args = self._prepare(policy, workunit, kwargs, 2)
        kind = self._acc_kind(unit)
        zero = 0 if kind in _INT_BITS else 0.0
        self.rng.shuffle(indices)
        total = zero
        for i in indices:
            total += convert(kind, unit.function(convert("int", i), zero, **args))
        return convert(kind, total)

    def _parallel_scan(self, policy, workunit, **kwargs):
        unit, indices, args = self._prepare(policy, workunit, kwargs, 3)
        kind = self._acc_kind(unit)
        zero = 0 if kind in _INT_BITS else 0.0
        contributions = {i: unit.function(convert("int", i), zero, False, **args) for i in indices}
        prefix = zero
        for i in indices:
            unit.function(convert("int", i), prefix, True, **args)
            prefix = convert(kind, prefix + contributions[i])
        return prefix

    def _store(self, base, index, value):
        if not isinstance(base, View):
            raise ContractViolation(f"store into {base!r}, not a view")
        for d, i in enumerate(index):
            base._check(i, d)
        base.array[tuple(int(i) for i in index)] = _to_dtype(value, base.array.dtype)

    def _atomic(self, name):
        op = name.split("_")[-1]

        def atomic(view, index, value):
            if not isinstance(view, View) or not isinstance(index, list):
                raise ContractViolation(f"pk.{name}(view, [indices], value)")
            key = tuple(view._check(i, d) for d, i in enumerate(index))
            old = _python_scalar(view.array[key])
            new = {"add": lambda: old + value, "sub": lambda: old - value, "mul": lambda: old * value,
                   "min": lambda: min(old, value), "max": lambda: max(old, value)}[op]()
            view.array[key] = _to_dtype(new, view.array.dtype)
            return old
        return atomic


class _Annotation:
    """``pk.View2D[pk.double]`` / ``pk.Acc[...]`` evaluate at def time; the interpreter reads the source."""

    def __init__(self, name):
        self.name = name

    def __getitem__(self, item):
        return (self.name, item)


class _ReturnAcc(ast.NodeTransformer):
    """``return`` in a reduce/scan workunit hands the accumulator back to the dispatcher."""

    def __init__(self, acc):
        self.acc = acc

    def visit_Return(self, node):
        if node.value is not None:
            raise ContractViolation("workunit returns a value")
        return ast.copy_location(ast.Return(ast.Name(self.acc, ast.Load())), node)
