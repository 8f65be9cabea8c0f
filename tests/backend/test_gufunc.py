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
    ("per_unit", (np.array([[1.0, -1.0, 0.0]]), 0.0)),                  # a zero divisor: inf, -inf, nan
]


@pytest.mark.compile
@pytest.mark.parametrize("name,args", CALLS, ids=[f"{n}-{k}" for k, (n, _) in enumerate(CALLS)])
def test_call_matches_numba(modules, name, args):
    dropin, numba_module = modules
    with np.errstate(all="ignore"):
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


@pytest.mark.compile
def test_repeated_calls_take_their_plan_and_match_numba(modules):
    """The second call of the same argument types, shapes and strides runs the plan the first one
    left (``kpc.runtime.gufunc._Plan``): new values each time, outputs allocated, given
    positionally or as ``out=``, a scalar output without loop dimensions, two outputs."""
    dropin, numba_module = modules
    calls = [
        ("scaled", lambda: (rng.random((5, 9)), float(rng.random())), {}),
        ("scaled", lambda: (rng.random((5, 9)), int(rng.integers(1, 9)), np.empty((5, 9))), {}),
        ("norm2", lambda: (rng.random(7),), {}),
        ("norm2", lambda: (rng.random((2, 3, 7)),), {"out": np.empty((2, 3))}),
        ("matvec", lambda: (rng.random((4, 3, 2)), rng.random((4, 2))), {}),
        ("diff_and_distance", lambda: (rng.random((3, 5)), rng.random((3, 5))), {}),
    ]
    for name, make, keywords in calls:
        function = getattr(dropin, name)
        for _ in range(3):
            args = make()
            theirs = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
            their_keywords = {k: v.copy() for k, v in keywords.items()}
            assert_same(function(*args, **keywords), getattr(numba_module, name)(*theirs, **their_keywords))
            for mine, want in zip(list(args) + list(keywords.values()), list(theirs) + list(their_keywords.values())):
                if isinstance(mine, np.ndarray):
                    assert_same(mine, want)
        assert function._plans, name
    x = rng.random((5, 9))
    plan_count = len(dropin.scaled._plans)
    assert_same(dropin.scaled(x[:, ::2], 2.0), numba_module.scaled(x[:, ::2], 2.0))   # strided: a copy, no plan
    assert_same(dropin.scaled(x[:, ::2], 2.0), numba_module.scaled(x[:, ::2], 2.0))
    assert len(dropin.scaled._plans) == plan_count


@pytest.mark.compile
def test_writable_args_are_written_back_like_numba(modules):
    """``writable_args=("x",)``: the function's writes to ``x`` reach the caller's array, whether
    the loop ran on it in place (C-contiguous rows) or on a contiguous copy (strided, Fortran)."""
    dropin, numba_module = modules
    base = rng.random((6, 10))
    for make in (lambda: base.copy(), lambda: base.copy()[:, ::2], lambda: np.asfortranarray(base)):
        mine, theirs = make(), make()
        assert_same(dropin.center_inplace(mine), numba_module.center_inplace(theirs))
        assert_same(mine, theirs)
        assert abs(mine.sum(axis=-1)).max() < 1e-12
