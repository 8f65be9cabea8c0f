"""``@guvectorize`` gufuncs of ``tests/corpus/gufunc_guvectorize.py`` through the drop-in module against
Numba's: outputs allocated by the call, loop dimensions broadcast (a scalar input against rows, a
batch of matrices against one vector), scalar outputs, ``out=``, strided inputs, the loop of the
inputs' dtypes; ``KPC_STRICT=1``: every call runs kpc's kernels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from corpus_dropin import assert_same, dropin_and_numba
from kpc.frontend.gufuncs import LayoutError, parse_layout

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "gufunc_guvectorize.py"
rng = np.random.default_rng(9)


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    yield from dropin_and_numba(CORPUS, tmp_path_factory.mktemp("gufuncs"))


CALLS = [
    ("scaled", (rng.random(9), 2.0)),
    ("scaled", (rng.random((4, 9)), rng.random(4))),                    # a scalar per row
    ("scaled", (rng.random((3, 1, 9)), rng.random((1, 2)))),            # loop dimensions broadcast
    ("scaled", (rng.random((4, 9)).astype(np.float32), np.float32(0.5))),
    ("scaled", (rng.random((4, 9))[:, ::2], 3)),                        # strided, a Python int
    ("norm2", (rng.random(7),)),                                        # a scalar output: a NumPy scalar
    ("norm2", (rng.random((2, 3, 7)),)),
    ("matvec", (rng.random((5, 3, 4)), rng.random(4))),                 # one vector for a batch
    ("diff_and_distance", (rng.random((3, 5)), rng.random(5))),         # two outputs
]


@pytest.mark.compile
@pytest.mark.parametrize("name,args", CALLS, ids=[f"{n}-{k}" for k, (n, _) in enumerate(CALLS)])
def test_call_matches_numba(modules, name, args):
    dropin, numba_module = modules
    assert_same(getattr(dropin, name)(*args), getattr(numba_module, name)(*args))


@pytest.mark.compile
def test_out_matches_numba(modules):
    dropin, numba_module = modules
    x = rng.random((6, 4))
    mine, theirs = np.empty(6), np.empty(6)
    assert dropin.norm2(x, out=mine) is mine
    numba_module.norm2(x, out=theirs)
    assert_same(mine, theirs)
    mine, theirs = np.empty((6, 4), np.float32), np.empty((6, 4), np.float32)  # cast as NumPy casts
    dropin.scaled(x, 2.0, mine)
    numba_module.scaled(x, 2.0, theirs)
    assert_same(mine, theirs)
    with pytest.raises(ValueError):                                      # core sizes that differ
        dropin.matvec(rng.random((3, 4)), rng.random(5))


@pytest.mark.parametrize("text,why", [("(n)->(m)", "not an input dimension"), ("(n),()", "not a gufunc layout"),
                                      ("(n)->(n)->()", "not a gufunc layout"), ("(n;m)->()", "not a gufunc layout")])
def test_layouts_numba_rejects_are_rejected(text, why):
    with pytest.raises(LayoutError, match=why):
        parse_layout(text)
