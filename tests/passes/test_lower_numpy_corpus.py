"""The corpus kernels (tests/corpus) through lower-numpy: no array-level node left, and the
lowered IR computes what NumPy computes on the cases each file declares in ``KPC_CASES``.

Kernels are typed by the test builder (``lower_numpy_source``) from their ``KPC_CASES``
argument ranks and first dtype; kernels that call other kernels, or use syntax the
builder does not know, are left to the frontend-based tests.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from kpc.ir.printer import format_function
from kpc.passes.lower_numpy import array_level_nodes, lower_function
from lower_numpy_eval import run
from lower_numpy_source import typed_function

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def corpus_cases():
    for path in sorted(CORPUS.glob("*.py")):
        tree = ast.parse(path.read_text())
        cases = next((ast.literal_eval(s.value) for s in tree.body if isinstance(s, ast.Assign)
                      and getattr(s.targets[0], "id", "") == "KPC_CASES"), {})
        for name, case in cases.items():
            yield pytest.param(path, name, case, id=f"{path.stem}:{name}")


def _size(expr, sizes):
    return expr if isinstance(expr, (int, float)) else eval(str(expr), {}, dict(sizes))


def _types_and_args(case, rng):
    dtype = case.get("dtypes", ["float64"])[0]
    sizes = case["sizes"][min(2, len(case["sizes"]) - 1)]
    types, args = {}, []
    for name, spec in case["args"].items():
        if isinstance(spec, (tuple, list)):
            spec = {"kind": "array", "shape": tuple(spec)}
        if spec["kind"] in ("array", "index"):
            shape = tuple(_size(e, sizes) for e in spec["shape"])
            if spec["kind"] == "index":
                high = _size(spec["high"], sizes)
                value = rng.integers(_size(spec.get("low", 0), sizes), max(high, 1), size=shape)
                kind = spec.get("dtype", "int64")
            else:
                kind = spec.get("dtype", "case")
                kind = dtype if kind == "case" else kind
                low, high = spec.get("low", -1.0), spec.get("high", 1.0)
                value = rng.uniform(low, high, size=shape)
                value = value.astype(kind) if not kind.startswith("int") else rng.integers(-9, 10, size=shape)
                if spec.get("values") == "sorted":
                    value = np.sort(value, axis=-1)
            types[name] = f"{kind}[{', '.join(':' for _ in shape)}]"
            args.append(np.ascontiguousarray(value))
        else:
            value = _size(spec["value"], sizes)
            kind = spec.get("dtype")
            kind = dtype if kind == "case" else kind
            if kind is None:
                kind = {int: "int64", complex: "complex128"}.get(type(value), "float64")
            types[name] = kind
            args.append(np.dtype(kind).type(value).item())
    return types, args


def _is_ufunc(path: Path, name: str) -> bool:
    tree = ast.parse(path.read_text())
    fdef = next(s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == name)
    return any("vectorize" in ast.unparse(d) for d in fdef.decorator_list)


def _function_source(path: Path, name: str) -> str:
    tree = ast.parse(path.read_text())
    fdef = next(s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == name)
    fdef.decorator_list = []
    return ast.unparse(fdef)


@pytest.mark.parametrize("path, name, case", list(corpus_cases()))
def test_corpus_kernel_lowers_and_matches_numpy(path, name, case):
    rng = np.random.default_rng(11)
    types, args = _types_and_args(case, rng)
    source = _function_source(path, name)
    if _is_ufunc(path, name):
        pytest.skip("a @vectorize ufunc: its body is scalar (tests/backend/test_vectorize.py)")
    try:
        function = typed_function(source, **types)
    except (NotImplementedError, KeyError, AttributeError, StopIteration, TypeError, IndexError) as error:
        pytest.skip(f"the test builder does not type this kernel ({type(error).__name__}: {error})")
    kernels = {s.name for s in ast.parse(path.read_text()).body if isinstance(s, ast.FunctionDef)}
    if any(getattr(node, "kind", "") == "kernel" or getattr(node, "func", None) in kernels
           for node in _walk(function)):
        pytest.skip("calls another kernel")
    if not array_level_nodes(function) and not any(
            getattr(node, "kind", "") == "numpy" for node in _walk(function)):
        before = format_function(function)
        lower_function(function)
        assert format_function(function) == before, "a kernel without array expressions is unchanged"
        return
    lower_function(function)
    assert array_level_nodes(function) == []
    namespace = {"np": np, "math": math, "prange": range}
    exec(source, namespace)
    theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = namespace[name](*theirs)
    got = run(function, *mine)
    # the reference interpreter computes in Python floats (double precision)
    rtol = 1e-5 if "float32" in case.get("dtypes", []) or "float32" in str(case["args"]) else 1e-9
    _close(got, expected, rtol)
    for a, b in zip(mine, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12)


def _walk(function):
    from kpc.ir.nodes import walk

    return walk(function)


def _close(got, expected, rtol):
    if isinstance(expected, tuple):
        for g, e in zip(got, expected):
            _close(g, e, rtol)
    elif expected is not None:
        kind = complex if np.iscomplexobj(expected) or np.iscomplexobj(got) else float
        np.testing.assert_allclose(np.asarray(got, dtype=kind), np.asarray(expected, dtype=kind),
                                   rtol=rtol, atol=1e-12)
