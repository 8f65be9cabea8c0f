"""The fuzzer's kernels of issue 32's constructs (masks, rank rebinding, sorts and quantiles, array
functions, allocations in prange bodies, double buffers, nested tuple targets, helpers called with
two ranks): every construct is generated as valid Numba, and a small seeded campaign of them built
through the Kokkos target (OpenMP) under KPC_STRICT=1 agrees with Numba everywhere."""

from __future__ import annotations

import ast
import doctest
import os
from pathlib import Path

import pytest

import kpc.fuzz.constructs
from kpc.check.spec import load_cases
from kpc.fuzz.campaign import run_campaign
from kpc.fuzz.constructs import CONSTRUCTS
from kpc.fuzz.expressions import FuzzOptions
from kpc.fuzz.module import generate_module

REPO = Path(__file__).resolve().parent.parent.parent
ONLY = FuzzOptions(constructs="only")
# One module (one C++ compile) of construct kernels; this seed draws every construct.
SEED, KERNELS = 20261132, 36


def test_construct_docstring_examples():
    assert doctest.testmod(kpc.fuzz.constructs).failed == 0


def test_every_construct_is_drawn_and_only_constructs_when_asked(tmp_path):
    module = generate_module(SEED, 0, KERNELS, ONLY)
    assert {k.kind for k in module.kernels} == set(CONSTRUCTS)
    path = tmp_path / "m.py"
    path.write_text(module.source())
    ast.parse(path.read_text())
    assert sorted(load_cases(path).cases) == sorted(k.name for k in module.kernels)
    off = [k.kind for index in range(3) for k in generate_module(SEED, index, 20, FuzzOptions(constructs="off")).kernels]
    assert not set(off) & set(CONSTRUCTS)
    mixed = [k.kind for index in range(3) for k in generate_module(SEED, index, 20).kernels]
    assert set(mixed) & set(CONSTRUCTS) and set(mixed) - set(CONSTRUCTS)


def test_construct_shapes_are_written_as_users_write_them():
    sources = "\n".join(k.source for index in range(6) for k in generate_module(SEED, index, 40, ONLY).kernels)
    for text in ("u, v = v, u", "v[1:-1] = ", ".reshape(", "np.sort(", "np.median(", "np.percentile(",
                 "np.bincount(", "np.convolve(", "np.roll(", "np.nonzero(", "np.diag(", "in prange(",
                 "(a, b), c = ", "for i, (p, q) in enumerate(zip(x, y)):", "] = "):
        assert text in sources, text


@pytest.mark.compile
def test_seeded_construct_campaign_matches_numba_under_strict(tmp_path, monkeypatch):
    monkeypatch.setenv("KPC_STRICT", "1")
    os.environ.setdefault("KPC_CACHE_DIR", str(REPO / ".kpc-cache"))
    tally = run_campaign(KERNELS, SEED, KERNELS, tmp_path, ONLY, log=lambda line: None)
    assert tally.kernels == KERNELS and set(tally.by_kind) == set(CONSTRUCTS)
    assert tally.mismatches == 0 and tally.crashes == 0 and tally.invalid == 0, "\n".join(
        f"{f['status']} {f['kernel']}: {f['message']}\n{Path(f['reproducer']).read_text()}" for f in tally.failures)
    assert tally.matched + sum(tally.kept.values()) == KERNELS, tally.line()
    assert tally.matched >= KERNELS * 3 // 4, tally.line()


def test_a_stopped_campaign_resumes_from_its_summary(tmp_path):
    from kpc.fuzz.campaign import Tally, resumed, write_summary

    done = Tally(kernels=200, matched=190, kept={"r": 10}, by_kind={"mask_read": {"kernels": 200, "matched": 190}})
    module = Tally(kernels=100, matched=99, kept={"r": 1}, by_kind={"mask_read": {"kernels": 100, "kept": 1}})
    done.merge(module)
    assert (done.kernels, done.matched, done.kept) == (300, 289, {"r": 11})
    assert done.by_kind == {"mask_read": {"kernels": 300, "matched": 190, "kept": 1}}
    write_summary(str(tmp_path), 7, 100, "openmp", ONLY, done, done=False)
    tally, index = resumed(str(tmp_path / "summary.json"), 7, 100, "openmp", ONLY)
    assert index == 3 and tally.to_dict() == done.to_dict()
    assert "| mask_read | 300 | 190 | 1 | 0 | 0 |" in (tmp_path / "summary.md").read_text()
    with pytest.raises(ValueError, match="another campaign"):
        resumed(str(tmp_path / "summary.json"), 8, 100, "openmp", ONLY)
