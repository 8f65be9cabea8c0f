"""The corpus kernels (tests/corpus) through the frontend and lower-numpy: no array-level node
left, and the lowered IR computes what NumPy computes on the cases each file declares in
``KPC_CASES``; a kernel without array expressions comes out of lower-numpy unchanged.

Each file is typed by the real frontend with the argument types of its ``KPC_CASES`` (first
dtype, third size or the last); the kokkos pipeline runs up to lower-numpy with the IR
verifier after each pass. A kernel kpc rejects or fails on is a failure; one that Numba itself
rejects with those arguments is a skip that says so.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import math
import re
from pathlib import Path

import numpy as np
import pytest

from kpc.api import load_module
from kpc.ir import nodes as n
from kpc.ir.printer import format_function
from kpc.ir.verifier import verify
from kpc.passes.lower_numpy import array_level_nodes
from kpc.passes.manager import PassContext, run_pipeline
from lower_numpy_eval import run

CORPUS = Path(__file__).resolve().parents[1] / "corpus"

# Kernels kpc keeps as Numba, and the construct its diagnostic names (as EXPECTED_FALLBACKS in
# tests/corpus/test_corpus_kokkos.py): any other rejection is a failure.
KEPT_AS_NUMBA: dict = {}


def _cases(path: Path) -> dict:
    tree = ast.parse(path.read_text())
    return next((ast.literal_eval(s.value) for s in tree.body if isinstance(s, ast.Assign)
                 and getattr(s.targets[0], "id", "") == "KPC_CASES"), {})


def corpus_cases():
    for path in sorted(CORPUS.glob("*.py")):
        for name, case in _cases(path).items():
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


@functools.lru_cache(maxsize=None)
def lowered_file(path: Path):
    """The file's module lowered through lower-numpy, each kernel's arguments, and the printed
    IR and NumPy use of each function before lower-numpy."""
    rng = np.random.default_rng(11)
    typed = {name: _types_and_args(case, rng) for name, case in _cases(path).items()}
    signatures = [f"{name}({', '.join(types.values())})" for name, (types, _) in typed.items()]
    module = load_module(path, signatures=signatures)
    ctx = PassContext(target="kokkos", verify=True)
    run_pipeline(module, ctx, after="infer-view-dims", verifier=verify)
    run_pipeline(module, ctx, names=["inline-array-calls"], verifier=verify)  # kernels returning arrays
    before = {name: (format_function(f), _uses_numpy(f)) for name, f in module.functions.items()}
    run_pipeline(module, ctx, names=["lower-numpy"], verifier=verify)
    return module, typed, before


def _uses_numpy(function) -> bool:
    return bool(array_level_nodes(function)) or any(
        isinstance(x, n.Call) and x.kind == "numpy" for x in n.walk(function))


def _numba_objects(path: Path) -> dict:
    """Names of the file's @stencil / @vectorize / @guvectorize functions -> their decorator."""
    found = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                text = ast.unparse(decorator)
                for kind in ("guvectorize", "vectorize", "stencil"):
                    if kind in text:
                        found[node.name] = kind
                        break
    return found


def _numba_module(path: Path):
    spec = importlib.util.spec_from_file_location(f"numba_ref_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _python_kernels(path: Path) -> dict:
    """The file's functions as plain Python (decorators dropped): what NumPy computes."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            node.decorator_list = []
    namespace = {"np": np, "math": math, "prange": range}
    exec(compile(ast.unparse(tree), str(path), "exec"), namespace)
    return namespace


def numba_rejection(path: Path, name: str, args) -> str | None:
    """Numba's error when it cannot compile ``name`` for ``args``, else None."""
    from numba.core.errors import NumbaError

    spec = importlib.util.spec_from_file_location(f"numba_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        getattr(module, name)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    except NumbaError as error:
        return str(error).splitlines()[0]
    return None


@pytest.mark.parametrize("path, name, case", list(corpus_cases()))
def test_corpus_kernel_lowers_and_matches_numpy(path, name, case):
    module, typed, before = lowered_file(path)
    types, args = typed[name]
    if (path.stem, name) in KEPT_AS_NUMBA:
        assert f"'{KEPT_AS_NUMBA[path.stem, name]}'" in module.rejected[name].diagnostic.message
        return
    if name in module.rejected:
        reason = numba_rejection(path, name, args)
        if reason is not None:
            pytest.skip(f"Numba rejects {name}({', '.join(types.values())}): {reason}")
        pytest.fail(f"kpc rejected {name}, which Numba compiles: {module.rejected[name].diagnostic.message}")
    objects = _numba_objects(path)
    if objects.get(name) == "stencil":  # its kernels are written under other names (kpc.frontend.stencils)
        generated = [f for f in module.functions if f.startswith("_kpc_stencil_") and f.endswith(f"_{name}")]
        assert generated and all(array_level_nodes(module.functions[f]) == [] for f in generated), generated
        return
    function = module.functions[name]
    assert array_level_nodes(function) == []
    if objects.get(name) == "vectorize":  # a scalar body (tests/backend/test_vectorize.py runs it on arrays)
        assert "vectorize" in function.options
        return
    text, uses_numpy = before[name]
    if not uses_numpy:
        assert format_function(function) == text, "a kernel without array expressions is unchanged"
        return
    theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    # (without the suffix of a helper's typed copy: _kpc_parfor_stencil_at_k_2)
    calls = {re.sub(r"_\d+$", "", x.func) for x in n.walk(function) if isinstance(x, n.Call)}
    # a kernel calling a stencil or ufunc: plain Python cannot run those on arrays, Numba can
    calls_objects = any(call == o or call.endswith(f"_{o}") for call in calls for o in objects)
    reference = getattr(_numba_module(path), name) if calls_objects else _python_kernels(path)[name]
    expected = reference(*theirs)
    got = run(function, *mine, functions=module.functions)
    # the reference interpreter computes in Python floats (double precision)
    rtol = 1e-5 if "float32" in str(types) else 1e-9
    _close(got, expected, rtol)
    for a, b in zip(mine, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12)


def _close(got, expected, rtol):
    if isinstance(expected, tuple):
        for g, e in zip(got, expected):
            _close(g, e, rtol)
    elif expected is not None:
        kind = complex if np.iscomplexobj(expected) or np.iscomplexobj(got) else float
        np.testing.assert_allclose(np.asarray(got, dtype=kind), np.asarray(expected, dtype=kind),
                                   rtol=rtol, atol=1e-12)
