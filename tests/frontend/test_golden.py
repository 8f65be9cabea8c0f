"""Golden IR of the kernels in ``sources/``: the text ``kpc ir`` prints after infer-view-dims.

Each source gives ``golden/<name>.ir`` (eager signatures, else generic types) and, when it
lists ``# golden-signature: name(types)`` lines, ``golden/<name>.typed.ir`` with those
signatures. A module that cannot be typed pins its diagnostic instead. The tests only
compare: regenerate with ``python scripts/regen_goldens.py frontend`` and review the diff by eye.
"""

from __future__ import annotations

import glob
import os

import pytest

from frontend_support import GOLDEN, golden_cases, render_golden


@pytest.mark.parametrize("path, signatures, golden", [pytest.param(*case, id=case[2][:-3]) for case in golden_cases()])
def test_golden_ir(path, signatures, golden):
    text = render_golden(path, signatures)
    golden_path = os.path.join(GOLDEN, golden)
    assert os.path.exists(golden_path), f"missing {golden_path}: run python scripts/regen_goldens.py frontend"
    with open(golden_path, encoding="utf-8") as handle:
        assert text == handle.read(), f"{golden} differs (python scripts/regen_goldens.py frontend to update)"


def test_every_golden_has_a_source():
    expected = {golden for _, _, golden in golden_cases()}
    present = {os.path.basename(p) for p in glob.glob(os.path.join(GOLDEN, "*.ir"))}
    assert present <= expected, f"stale golden files: {sorted(present - expected)}"
