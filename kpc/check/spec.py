"""Read and validate the ``KPC_CASES`` block of a corpus file, without importing it.

Every kernel file in ``tests/corpus`` carries one module-level assignment
``KPC_CASES = {...}`` that says how to call its *entry* kernels (the ones a
user calls from Python; helpers are not listed).  The value must be a plain
literal: it is read with ``ast.parse`` + ``ast.literal_eval``, so the file is
never imported (and Numba never runs) just to learn its cases.

Schema (``KPC_CASES`` maps kernel name -> case)::

    KPC_CASES = {
        "potential": {
            # required: one entry per parameter, in signature order (the names
            # are checked against the function's ``def`` in the same file)
            "args": {
                "cluster": {"kind": "array", "shape": ("n", 3), "values": "lattice"},
            },
            # optional, default ["float64"]: the element types the kernel is
            # meant for; array parameters with dtype "case" follow this
            "dtypes": ["float64", "float32"],
            # required: size assignments, one run each; every name used in a
            # shape or value expression must be set in every assignment
            "sizes": [{"n": 0}, {"n": 1}, {"n": 7}, {"n": 100}],
            # optional, default []: array parameters the kernel writes
            # (compared after the call, like return values)
            "writes": [],
            # optional, default ["C"]: memory layouts that make sense for the
            # array arguments; the harness produces them (see kpc.check.inputs)
            "layouts": ["C", "F", "strided"],
            # optional: float tolerance overrides, one number for every dtype or
            # a dict by case dtype; defaults in kpc.check.compare.default_rtol
            "rtol": {"float32": 1e-4},
            "atol": 1e-9,
            # optional, default False: the kernel's prange loop scatters into an
            # array (``hist[idx[i]] += 1``), which races under Numba's threads,
            # so the Numba reference must run with one thread
            "serial_reference": False,
        },
    }

Parameters (values of ``"args"``):

``("n", "m+2")``
    Shorthand for ``{"kind": "array", "shape": ("n", "m+2")}``.
``{"kind": "array", "shape": SHAPE, ...}``
    A NumPy array.  ``"dtype"``: ``"case"`` (default: the case dtype) or a
    dtype name (``"float64"``, ``"int64"``, ``"bool"``, ...).  ``"low"`` /
    ``"high"``: value range, uniform in ``[low, high)`` (defaults: ``[-1, 1)``
    for floats, integers in ``[-9, 10)``).  ``"values"``: ``"uniform"``
    (default), ``"sorted"`` (uniform, sorted along the last axis), ``"nan"``
    (uniform with about one float element in eight NaN, and the first one) or
    ``"lattice"`` (shape ``(n, d)``: points on a jittered cubic lattice of
    ``"spacing"`` (default 1.0), no two closer than 0.8 spacing).
``{"kind": "index", "shape": SHAPE, "high": EXPR, "low": EXPR}``
    An integer array (``"dtype"`` default ``"int64"``) with values in
    ``[low, high)``, ``low`` defaulting to 0: data-dependent indices.
``{"kind": "scalar", "value": VALUE, "dtype": ...}``
    A scalar.  ``VALUE`` is a number or a size expression (``"n"``,
    ``"n // 2"``).  ``"dtype"`` omitted: a Python ``int`` or ``float`` as
    written; ``"case"`` or a dtype name: a NumPy scalar of that type.

A SHAPE is a tuple of non-negative integers and size expressions.  A size
expression is a string made of names bound in the size assignment, integer
literals, ``+ - * // %`` and parentheses; names in size assignments may
also serve as scalar values (``{"n": 33, "steps": 5}``), and only shapes
must come out non-negative.

Benchmark sizes do not belong here: benchmarks choose their own.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Union

import numpy as np

from kpc.check.compare import default_rtol
from kpc.ir import python_source

LAYOUTS = ("C", "F", "strided")
DTYPES = (
    "float64", "float32", "int64", "int32", "int16", "int8",
    "uint64", "uint32", "uint16", "uint8", "bool", "complex128", "complex64",
)
VALUE_KINDS = ("uniform", "sorted", "lattice", "nan")
CASE_KEYS = ("args", "dtypes", "sizes", "writes", "layouts", "rtol", "atol", "serial_reference")
PARAM_KEYS = {
    "array": ("kind", "shape", "dtype", "low", "high", "values", "spacing"),
    "index": ("kind", "shape", "dtype", "low", "high"),
    "scalar": ("kind", "value", "dtype"),
}

SizeExpr = Union[int, str]


class CaseSpecError(ValueError):
    """A ``KPC_CASES`` block that cannot be read; the message names the file and key."""


@dataclass(frozen=True)
class ArrayParam:
    name: str
    shape: tuple[SizeExpr, ...]
    dtype: str = "case"
    low: float | None = None
    high: float | None = None
    values: str = "uniform"
    spacing: float = 1.0


@dataclass(frozen=True)
class IndexParam:
    name: str
    shape: tuple[SizeExpr, ...]
    high: SizeExpr
    low: SizeExpr = 0
    dtype: str = "int64"


@dataclass(frozen=True)
class ScalarParam:
    name: str
    value: SizeExpr | float
    dtype: str | None = None


Param = Union[ArrayParam, IndexParam, ScalarParam]


@dataclass(frozen=True)
class KernelCase:
    """How to call one entry kernel: parameters, dtypes, sizes, outputs, layouts."""

    path: Path
    kernel: str
    params: tuple[Param, ...]
    sizes: tuple[Mapping[str, int], ...]
    dtypes: tuple[str, ...] = ("float64",)
    writes: tuple[str, ...] = ()
    layouts: tuple[str, ...] = ("C",)
    rtol: Mapping[str, float] = field(default_factory=dict)
    atol: Mapping[str, float] = field(default_factory=dict)
    serial_reference: bool = False

    @property
    def arrays(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if not isinstance(p, ScalarParam))

    def tolerance(self, dtype: str) -> tuple[float | None, float | None]:
        """``(rtol, atol)`` to compare results of this case run with ``dtype``.

        ``rtol`` is the case's override or the default for a float case dtype;
        for an integer case dtype it is ``None`` (float results, such as a mean
        of integers, then get the default of their own dtype).  ``atol`` is the
        override or ``None`` (``compare`` scales it from the data).
        """
        rtol = self.rtol.get(dtype)
        if rtol is None:
            rtol = default_rtol(dtype) or None
        return rtol, self.atol.get(dtype)


@dataclass(frozen=True)
class CorpusFile:
    path: Path
    cases: Mapping[str, KernelCase]


_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


def size_names(expr: SizeExpr) -> set[str]:
    """Names a size expression refers to: ``size_names("n+2*m") == {"n", "m"}``."""
    if isinstance(expr, int):
        return set()
    return {node.id for node in ast.walk(_parse_size(expr)) if isinstance(node, ast.Name)}


def eval_size(expr: SizeExpr, sizes: Mapping[str, int]) -> int:
    """Evaluate a size expression: ``eval_size("n+2", {"n": 5}) == 7``."""
    if isinstance(expr, int):
        return expr
    return _eval_node(_parse_size(expr).body, sizes)


def _parse_size(expr: str) -> ast.Expression:
    tree = python_source.parse(expr.strip(), mode="eval")
    for node in ast.walk(tree):
        allowed = (ast.Expression, ast.Name, ast.Load, ast.BinOp, ast.UnaryOp, ast.USub, ast.UAdd)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            continue
        if isinstance(node, tuple(_BINOPS)) or isinstance(node, allowed):
            continue
        raise ValueError(f"{expr!r} is not a size expression (names, integers, + - * // %)")
    return tree


def _eval_node(node: ast.AST, sizes: Mapping[str, int]) -> int:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return sizes[node.id]
    if isinstance(node, ast.UnaryOp):
        value = _eval_node(node.operand, sizes)
        return -value if isinstance(node.op, ast.USub) else value
    return _BINOPS[type(node.op)](_eval_node(node.left, sizes), _eval_node(node.right, sizes))


def load_cases(path: str | Path) -> CorpusFile:
    """Read ``KPC_CASES`` from a kernel file statically and validate it."""
    path = Path(path)
    try:
        tree = python_source.parse(path.read_text(), filename=str(path))
    except SyntaxError as exc:
        raise CaseSpecError(f"{path}: cannot parse: {exc}") from exc
    functions = {
        node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    raw = _read_block(path, tree)
    if not isinstance(raw, dict) or not raw:
        raise CaseSpecError(f"{path}: KPC_CASES must be a non-empty dict of kernel name -> case")
    cases = {}
    for kernel, body in raw.items():
        where = f"{path}: KPC_CASES[{kernel!r}]"
        if not isinstance(kernel, str):
            raise CaseSpecError(f"{where}: kernel names must be strings")
        if kernel not in functions:
            raise CaseSpecError(f"{where}: no top-level function {kernel!r} in this file")
        cases[kernel] = _read_case(path, where, kernel, body, functions[kernel])
    return CorpusFile(path=path, cases=cases)


def corpus_files(directory: str | Path) -> list[Path]:
    """The kernel files of a corpus directory: ``*.py`` except tests (``test_*``),
    private helpers (``_*``) and ``conftest.py``."""
    return sorted(
        p for p in Path(directory).glob("*.py")
        if not p.name.startswith(("test_", "_")) and p.name != "conftest.py"
    )


def _read_block(path: Path, tree: ast.Module) -> object:
    blocks = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "KPC_CASES" for t in node.targets
        ):
            blocks.append(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "KPC_CASES":
            blocks.append(node)
    if not blocks:
        raise CaseSpecError(f"{path}: no module-level KPC_CASES = {{...}} assignment")
    if len(blocks) > 1:
        raise CaseSpecError(f"{path}: KPC_CASES is assigned {len(blocks)} times (lines "
                            f"{', '.join(str(b.lineno) for b in blocks)}); keep one block")
    try:
        return ast.literal_eval(blocks[0].value)
    except ValueError as exc:
        raise CaseSpecError(
            f"{path}:{blocks[0].lineno}: KPC_CASES must be a plain literal (no names or calls): {exc}"
        ) from exc


def _read_case(path: Path, where: str, kernel: str, body: object, func: ast.FunctionDef) -> KernelCase:
    if not isinstance(body, dict):
        raise CaseSpecError(f"{where}: a case must be a dict, got {type(body).__name__}")
    unknown = set(body) - set(CASE_KEYS)
    if unknown:
        raise CaseSpecError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {list(CASE_KEYS)}")
    for key in ("args", "sizes"):
        if key not in body:
            raise CaseSpecError(f"{where}: missing required key {key!r}")

    args = body["args"]
    if not isinstance(args, dict):
        raise CaseSpecError(f"{where}['args']: must be a dict of parameter name -> parameter")
    _check_signature(where, func, list(args))
    params = tuple(_read_param(f"{where}['args'][{name!r}]", name, spec) for name, spec in args.items())

    dtypes = tuple(_str_list(where, body, "dtypes", ["float64"]))
    for dt in dtypes:
        if dt not in DTYPES:
            raise CaseSpecError(f"{where}['dtypes']: unknown dtype {dt!r}; known: {list(DTYPES)}")
    if not dtypes:
        raise CaseSpecError(f"{where}['dtypes']: must not be empty")

    sizes = _read_sizes(where, body["sizes"])
    _check_expressions(where, params, sizes)

    writes = tuple(_str_list(where, body, "writes", []))
    array_names = {p.name for p in params if not isinstance(p, ScalarParam)}
    for name in writes:
        if name not in array_names:
            raise CaseSpecError(f"{where}['writes']: {name!r} is not an array parameter of {kernel}")

    layouts = tuple(_str_list(where, body, "layouts", ["C"]))
    for layout in layouts:
        if layout not in LAYOUTS:
            raise CaseSpecError(f"{where}['layouts']: unknown layout {layout!r}; known: {list(LAYOUTS)}")
    if "C" not in layouts:
        raise CaseSpecError(f"{where}['layouts']: must include 'C'")

    serial_reference = body.get("serial_reference", False)
    if not isinstance(serial_reference, bool):
        raise CaseSpecError(f"{where}['serial_reference']: must be True or False")

    return KernelCase(
        path=path,
        kernel=kernel,
        params=params,
        sizes=sizes,
        dtypes=dtypes,
        writes=writes,
        layouts=layouts,
        rtol=_read_tolerance(where, body, "rtol", dtypes),
        atol=_read_tolerance(where, body, "atol", dtypes),
        serial_reference=serial_reference,
    )


def _check_signature(where: str, func: ast.FunctionDef, names: list[str]) -> None:
    a = func.args
    if a.vararg or a.kwarg or a.kwonlyargs:
        raise CaseSpecError(f"{where}: entry kernels take positional parameters only")
    params = [arg.arg for arg in a.posonlyargs + a.args]
    required = params[: len(params) - len(a.defaults)]
    if names != params[: len(names)] or len(names) < len(required):
        raise CaseSpecError(
            f"{where}['args']: parameters {names} do not match the signature "
            f"{func.name}({', '.join(params)}) (line {func.lineno}); list them in order"
        )


def _read_param(where: str, name: str, spec: object) -> Param:
    if isinstance(spec, (tuple, list)):
        spec = {"kind": "array", "shape": spec}
    if not isinstance(spec, dict):
        raise CaseSpecError(f"{where}: a parameter is a shape tuple or a dict with a 'kind'")
    kind = spec.get("kind")
    if kind not in PARAM_KEYS:
        raise CaseSpecError(f"{where}: 'kind' must be one of {list(PARAM_KEYS)}, got {kind!r}")
    unknown = set(spec) - set(PARAM_KEYS[kind])
    if unknown:
        raise CaseSpecError(f"{where}: unknown key(s) {sorted(unknown)} for kind {kind!r}; "
                            f"allowed: {list(PARAM_KEYS[kind])}")
    if kind == "scalar":
        if "value" not in spec:
            raise CaseSpecError(f"{where}: a scalar needs a 'value'")
        value = spec["value"]
        if isinstance(value, bool) or not isinstance(value, (int, float, complex, str)):
            raise CaseSpecError(f"{where}['value']: a number or a size expression, got {value!r}")
        if isinstance(value, str):
            _check_size_expr(f"{where}['value']", value)
        dtype = spec.get("dtype")
        if dtype is not None and dtype != "case" and dtype not in DTYPES:
            raise CaseSpecError(f"{where}['dtype']: unknown dtype {dtype!r}")
        return ScalarParam(name=name, value=value, dtype=dtype)

    shape = _read_shape(f"{where}['shape']", spec.get("shape"))
    dtype = spec.get("dtype", "case" if kind == "array" else "int64")
    if dtype != "case" and dtype not in DTYPES:
        raise CaseSpecError(f"{where}['dtype']: unknown dtype {dtype!r}")
    if kind == "index":
        if "high" not in spec:
            raise CaseSpecError(f"{where}: an index array needs 'high' (exclusive upper bound)")
        if dtype == "case" or not np.issubdtype(np.dtype(dtype), np.integer):
            raise CaseSpecError(f"{where}['dtype']: index arrays have an integer dtype, got {dtype!r}")
        for key in ("low", "high"):
            if key in spec:
                _check_size_expr(f"{where}[{key!r}]", spec[key])
        return IndexParam(name=name, shape=shape, high=spec["high"], low=spec.get("low", 0), dtype=dtype)

    values = spec.get("values", "uniform")
    if values not in VALUE_KINDS:
        raise CaseSpecError(f"{where}['values']: one of {list(VALUE_KINDS)}, got {values!r}")
    if values == "lattice" and len(shape) != 2:
        raise CaseSpecError(f"{where}: 'lattice' values need a 2-D shape (points, dimensions)")
    for key in ("low", "high", "spacing"):
        if key in spec and (isinstance(spec[key], bool) or not isinstance(spec[key], (int, float))):
            raise CaseSpecError(f"{where}[{key!r}]: must be a number, got {spec[key]!r}")
    low, high = spec.get("low"), spec.get("high")
    if low is not None and high is not None and not low < high:
        raise CaseSpecError(f"{where}: 'low' ({low}) must be below 'high' ({high})")
    return ArrayParam(
        name=name, shape=shape, dtype=dtype, low=low, high=high,
        values=values, spacing=float(spec.get("spacing", 1.0)),
    )


def _read_shape(where: str, shape: object) -> tuple[SizeExpr, ...]:
    if not isinstance(shape, (tuple, list)) or not shape:
        raise CaseSpecError(f"{where}: a shape is a non-empty tuple of sizes, got {shape!r}")
    for dim in shape:
        _check_size_expr(where, dim)
    return tuple(shape)


def _check_size_expr(where: str, expr: object) -> None:
    if isinstance(expr, bool) or not isinstance(expr, (int, str)):
        raise CaseSpecError(f"{where}: {expr!r} is neither an integer nor a size expression")
    if isinstance(expr, str):
        try:
            _parse_size(expr)
        except (SyntaxError, ValueError) as exc:
            raise CaseSpecError(f"{where}: {expr!r} is not a size expression "
                                f"(names, integers, + - * // %): {exc}") from None


def _read_sizes(where: str, sizes: object) -> tuple[Mapping[str, int], ...]:
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise CaseSpecError(f"{where}['sizes']: a non-empty list of {{name: int}} dicts")
    out = []
    for k, assignment in enumerate(sizes):
        if not isinstance(assignment, dict) or not all(
            isinstance(n, str) and type(v) is int for n, v in assignment.items()
        ):
            raise CaseSpecError(f"{where}['sizes'][{k}]: a dict of name -> int, got {assignment!r}")
        out.append(dict(assignment))
    return tuple(out)


def _check_expressions(where: str, params: tuple[Param, ...], sizes: tuple[Mapping[str, int], ...]) -> None:
    for param in params:
        pwhere = f"{where}['args'][{param.name!r}]"
        exprs: list[tuple[str, SizeExpr, bool]] = []
        if isinstance(param, ScalarParam):
            if isinstance(param.value, str):
                exprs.append(("value", param.value, False))
        else:
            exprs += [("shape", dim, True) for dim in param.shape]
            if isinstance(param, IndexParam):
                exprs += [("low", param.low, False), ("high", param.high, False)]
        for k, assignment in enumerate(sizes):
            for key, expr, must_be_size in exprs:
                missing = size_names(expr) - set(assignment)
                if missing:
                    raise CaseSpecError(f"{pwhere}[{key!r}]: {expr!r} uses {sorted(missing)}, "
                                        f"not set in sizes[{k}] = {assignment}")
                value = eval_size(expr, assignment)
                if must_be_size and value < 0:
                    raise CaseSpecError(f"{pwhere}['shape']: {expr!r} is {value} < 0 for sizes[{k}] = {assignment}")
            if isinstance(param, IndexParam):
                low, high = eval_size(param.low, assignment), eval_size(param.high, assignment)
                count = int(np.prod([eval_size(d, assignment) for d in param.shape]))
                if count and not low < high:
                    raise CaseSpecError(f"{pwhere}: empty index range [{low}, {high}) for sizes[{k}] = {assignment}")


def _str_list(where: str, body: dict, key: str, default: list[str]) -> list[str]:
    value = body.get(key, default)
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise CaseSpecError(f"{where}[{key!r}]: must be a list of strings, got {value!r}")
    if len(set(value)) != len(value):
        raise CaseSpecError(f"{where}[{key!r}]: duplicate entries in {value!r}")
    return list(value)


def _read_tolerance(where: str, body: dict, key: str, dtypes: tuple[str, ...]) -> dict[str, float]:
    if key not in body:
        return {}
    value = body[key]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return {dt: float(value) for dt in dtypes}
    if isinstance(value, dict):
        out = {}
        for dt, tol in value.items():
            if dt not in dtypes:
                raise CaseSpecError(f"{where}[{key!r}]: {dt!r} is not one of this case's dtypes {list(dtypes)}")
            if isinstance(tol, bool) or not isinstance(tol, (int, float)) or tol < 0:
                raise CaseSpecError(f"{where}[{key!r}][{dt!r}]: must be a non-negative number")
            out[dt] = float(tol)
        return out
    raise CaseSpecError(f"{where}[{key!r}]: a number or a dict of dtype -> number, got {value!r}")
