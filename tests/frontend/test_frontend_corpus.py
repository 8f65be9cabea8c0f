"""Every module of the shared kernel corpus (tests/corpus) parses and types, generic and eager:
each kernel is either typed (and passes the verifier, JSON round trip included) or listed as
rejected with a located diagnostic; nothing crashes."""

from __future__ import annotations

import glob
import os

import pytest

from kpc.api import load_module
from kpc.check.spec import ArrayParam, IndexParam, load_cases
from kpc.ir.printer import format_module
from kpc.ir.serialize import from_json, to_json
from kpc.ir.types import ArrayType

from frontend_support import ROOT, typed

CORPUS = sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "corpus", "*.py"))
                if not os.path.basename(p).startswith(("test_", "conftest", "_")))


@pytest.mark.skipif(not CORPUS, reason="the corpus is not there")
@pytest.mark.parametrize("path", CORPUS, ids=[os.path.basename(p) for p in CORPUS])
def test_corpus_module_types_or_rejects_with_a_location(path):
    module = typed(load_module(path))
    assert module.functions, f"no kernel of {path} translates"
    for name, rejected in module.rejected.items():
        assert rejected.diagnostic.loc.line > 0, f"{name}: {rejected.diagnostic}"
        assert rejected.diagnostic.construct
    assert format_module(from_json(to_json(module))) == format_module(module)


def _case_type(param, dtype: str) -> str:
    """The signature type of one ``KPC_CASES`` parameter for the case dtype ``dtype``."""
    if isinstance(param, (ArrayParam, IndexParam)):
        element = dtype if param.dtype == "case" else param.dtype
        return f"{element}[{', '.join(':' for _ in param.shape)}]"
    if param.dtype is None:
        return "float64" if isinstance(param.value, float) else "int64"
    return dtype if param.dtype == "case" else param.dtype


def _case_signatures(path, kernels, dtype: str) -> list:
    return [f"{case.kernel}({', '.join(_case_type(p, dtype) for p in case.params)})"
            for case in load_cases(path).cases.values() if dtype in case.dtypes and case.kernel in kernels]


# Entry kernels that generic typing (no signatures: the PyKokkos target, the build's pre-check)
# once rejected although they type with the signatures of their cases.
GENERIC_TYPING_FIXED = [
    ("np_logreg.py", "logistic_regression"),  # np.dot(X, w) nested in an element-wise np.dot operand
    ("np_matmul.py", "project_back"),         # np.dot(A.T, np.dot(A, x))
    ("np_outer.py", "rank1_update"),          # A += alpha * np.outer(x, y): A only updated in place
]


# Kernels whose generic typing fails by design: an array used as an index (values[order]) is
# guessed a float64 array; a helper that needs only a least rank (x @ W, s[i].max()) makes its
# arguments' guess that rank; each call's types decide (typed at each call on both targets).
# (np_selection.median_of_ties: its parameter's only use is ``np.floor(x * 5.0)``, and the guess
# does not carry back the rank its result's slices need; array_rebind.helpers_rebind: a helper
# reached through ``h = x @ w``.)
TYPED_AT_EACH_CALL = {("guessed_types.py", "gather_sum"), ("helper_least_ranks.py", "norm_mlp"),
                      ("helper_least_ranks.py", "causal_scores"), ("np_selection.py", "median_of_ties"),
                      ("array_rebind.py", "helpers_rebind")}


@pytest.mark.skipif(not CORPUS, reason="the corpus is not there")
@pytest.mark.parametrize("path", CORPUS, ids=[os.path.basename(p) for p in CORPUS])
def test_every_case_kernel_typed_with_its_signatures_also_types_without(path):
    generic = load_module(path)
    kernels = set(generic.functions)
    typed(generic, "pykokkos")
    cases = load_cases(path).cases
    for dtype in sorted({d for case in cases.values() for d in case.dtypes}):
        eager = typed(load_module(path, signatures=_case_signatures(path, kernels, dtype)))
        for kernel in cases:
            if (os.path.basename(path), kernel) in TYPED_AT_EACH_CALL:
                assert generic.rejected[kernel].guessed  # rejected under guessed types only
            elif kernel in eager.functions:
                assert kernel not in generic.rejected, \
                    f"{kernel} ({dtype} signature types) fails generic typing: {generic.rejected[kernel].diagnostic}"


@pytest.mark.parametrize("name, kernel", GENERIC_TYPING_FIXED, ids=[k for _, k in GENERIC_TYPING_FIXED])
def test_generic_ranks_of_product_and_update_kernels_are_those_of_their_cases(name, kernel):
    path = os.path.join(ROOT, "tests", "corpus", name)
    function = typed(load_module(path), "pykokkos").functions[kernel]
    case = load_cases(path).cases[kernel]
    ranks = [p.type.ndim if isinstance(p.type, ArrayType) else 0 for p in function.params]
    assert ranks == [len(p.shape) if isinstance(p, (ArrayParam, IndexParam)) else 0 for p in case.params]
    assert len(function.assumptions) == len(function.params)


def test_sum_of_squares_iterating_its_array_translates():
    module = typed(load_module(os.path.join(ROOT, "tests", "corpus", "typed_signatures.py")))
    assert not module.rejected
    assert str(module.functions["sum_of_squares"].locals["v"]) == "i64"
