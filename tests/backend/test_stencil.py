"""``@stencil`` kernels of ``tests/corpus/stencils.py`` called from Python through the drop-in module
against Numba's: a new array (Numba's border), ``out=`` (its border kept, or set to ``cval``), arrays
of other ranks and layouts; ``KPC_STRICT=1``: every call runs kpc's kernels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from corpus_dropin import assert_same, dropin_and_numba

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "stencils.py"
rng = np.random.default_rng(5)


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    yield from dropin_and_numba(CORPUS, tmp_path_factory.mktemp("stencils"))


CALLS = [
    ("jacobi", (rng.random((9, 7)),)),
    ("jacobi", (rng.random((12, 9))[::3, 1:],)),
    ("jacobi", (np.asfortranarray(rng.random((6, 8))),)),
    ("jacobi", (np.arange(30).reshape(5, 6),)),
    ("centred_diff", (rng.random(11),)),
    ("moving_average", (rng.random(3),)),         # shorter than the neighbourhood: all border
    ("weighted3", (rng.random(10), np.array([0.2, 0.5, 0.3]))),
    ("laplacian3d", (rng.random((5, 6, 7)),)),
    ("upwind", (rng.random((6, 5)), rng.random((6, 5)) - 0.5)),
]


@pytest.mark.compile
@pytest.mark.parametrize("name,args", CALLS, ids=[f"{n}-{k}" for k, (n, _) in enumerate(CALLS)])
def test_call_matches_numba(modules, name, args):
    dropin, numba_module = modules
    assert_same(getattr(dropin, name)(*args), getattr(numba_module, name)(*args))


@pytest.mark.compile
@pytest.mark.parametrize("name,args", [CALLS[0], CALLS[4], CALLS[7]], ids=["2d", "1d-cval", "3d"])
def test_out_matches_numba(modules, name, args):
    dropin, numba_module = modules
    mine, theirs = np.full(args[0].shape, 7.0), np.full(args[0].shape, 7.0)
    assert getattr(dropin, name)(*args, out=mine) is mine
    getattr(numba_module, name)(*args, out=theirs)
    assert_same(mine, theirs)


@pytest.mark.compile
def test_zero_divisor_follows_numbas_error_model(modules):
    """A stencil inside an ``@njit(parallel=True)`` kernel is a parfor in Numba (error_model='numpy':
    inf, nan); called from Python it raises ZeroDivisionError, in both."""
    dropin, numba_module = modules
    a = np.array([[1, 0, 2, 3], [0, 1, 0, 1], [1, 1, 1, 1]])
    with np.errstate(all="ignore"):
        assert_same(dropin.ratios(a), numba_module.ratios(a))
    assert np.isinf(dropin.ratios(a)).any() and np.isnan(dropin.ratios(a)).any()
    for module in (dropin, numba_module):
        with pytest.raises(ZeroDivisionError):
            module.neighbour_ratio(a)
