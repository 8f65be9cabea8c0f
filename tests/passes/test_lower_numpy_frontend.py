"""The corpus through the real frontend: ``load_module`` with the signatures of ``KPC_CASES``,
the kokkos pipeline up to lower-numpy (IR verifier after each pass), then no array-level
node left and, for kernels that use NumPy arrays, the lowered IR run by the reference
interpreter equals NumPy's result."""

from __future__ import annotations

import ast
import math

import numpy as np
import pytest

from kpc.api import load_module
from kpc.ir import nodes as n
from kpc.ir.verifier import verify
from kpc.passes.lower_numpy import array_level_nodes
from kpc.passes.manager import PassContext, run_pipeline
from lower_numpy_eval import run
from test_lower_numpy_corpus import CORPUS, _close, _types_and_args


def corpus_files():
    for path in sorted(CORPUS.glob("*.py")):
        tree = ast.parse(path.read_text())
        cases = next((ast.literal_eval(s.value) for s in tree.body if isinstance(s, ast.Assign)
                      and getattr(s.targets[0], "id", "") == "KPC_CASES"), {})
        if cases:
            yield pytest.param(path, cases, id=path.stem)


def _uses_numpy(function) -> bool:
    return bool(array_level_nodes(function)) or any(
        isinstance(x, n.Call) and x.kind == "numpy" for x in n.walk(function))


@pytest.mark.parametrize("path, cases", list(corpus_files()))
def test_corpus_file_through_frontend(path, cases):
    rng = np.random.default_rng(3)
    typed = {name: _types_and_args(case, rng) for name, case in cases.items()}
    signatures = [f"{name}({', '.join(types.values())})" for name, (types, _) in typed.items()]
    try:
        module = load_module(path, signatures=signatures)
    except Exception as error:  # the frontend's own acceptance is tested elsewhere
        pytest.skip(f"frontend: {str(error).splitlines()[0]}")
    ctx = PassContext(target="kokkos", verify=True)
    run_pipeline(module, ctx, after="infer-view-dims", verifier=verify)
    run_pipeline(module, ctx, names=["inline-array-calls"], verifier=verify)  # kernels returning arrays
    before = {name: _uses_numpy(f) for name, f in module.functions.items()}
    run_pipeline(module, ctx, names=["lower-numpy"], verifier=verify)
    namespace = {"np": np, "math": math, "prange": range}
    exec(compile(_strip_decorators(path.read_text()), str(path), "exec"), namespace)
    checked = []
    for name, (types, args) in typed.items():
        if name in module.rejected:
            assert "lower-numpy" not in module.rejected[name].diagnostic.message
            continue
        if name not in module.functions:
            continue  # a @stencil: kernels of other names (kpc.frontend.stencils)
        function = module.functions[name]
        assert array_level_nodes(function) == [], name
        if not before[name] or "vectorize" in function.options:
            continue
        if any(isinstance(node, n.Call) and node.kind == "kernel" for node in n.walk(function)):
            continue  # the IR interpreter runs one function (calls returning arrays are inlined)
        checked.append(name)
        mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        expected = namespace[name](*theirs)
        got = run(function, *mine)
        rtol = 1e-5 if "float32" in str(types) else 1e-9
        _close(got, expected, rtol)
        for a, b in zip(mine, theirs):
            if isinstance(a, np.ndarray):
                np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12)
    if path.stem.startswith("np_"):
        assert checked, "a NumPy corpus file whose kernels were all left unchecked"


def _strip_decorators(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            node.decorator_list = []
    return ast.unparse(tree)
