"""Golden IR of the kernels in ``sources/``: the text ``kpc ir`` prints after infer-view-dims.

Each source gives ``golden/<name>.ir`` (eager signatures, else generic types) and, when it
lists ``# golden-signature: name(types)`` lines, ``golden/<name>.typed.ir`` with those
signatures. A module that cannot be typed pins its diagnostic instead. Regenerate with
``KPC_UPDATE_GOLDEN=1 pytest tests/frontend/test_golden.py`` and review the diff by eye.
"""

from __future__ import annotations

import glob
import os
import re

import pytest

from kpc.api import load_module
from kpc.ir.diagnostics import KpcError
from kpc.ir.printer import format_module
from kpc.ir.serialize import from_json, to_json

from frontend_support import ROOT, typed

SOURCES = os.path.join(ROOT, "tests", "frontend", "sources")
GOLDEN = os.path.join(ROOT, "tests", "frontend", "golden")
UPDATE = os.environ.get("KPC_UPDATE_GOLDEN") == "1"


def _cases():
    cases = []
    for path in sorted(glob.glob(os.path.join(SOURCES, "*.py"))):
        stem = os.path.splitext(os.path.basename(path))[0]
        text = open(path, encoding="utf-8").read()
        signatures = re.findall(r"^# golden-signature: (.+)$", text, re.MULTILINE)
        cases.append(pytest.param(path, None, f"{stem}.ir", id=stem))
        if signatures:
            cases.append(pytest.param(path, signatures, f"{stem}.typed.ir", id=f"{stem}.typed"))
    return cases


def render(path: str, signatures) -> str:
    """What the golden file holds: the typed IR, or the diagnostic that stops typing."""
    relative = os.path.relpath(path, ROOT)
    source = open(path, encoding="utf-8").read()
    try:
        module = typed(load_module(relative, signatures=signatures, source=source))
    except KpcError as error:
        return f"error:\n{error}\n"
    text = format_module(module)
    assert format_module(from_json(to_json(module))) == text, "JSON round trip changed the IR"
    return text


@pytest.mark.parametrize("path, signatures, golden", _cases())
def test_golden_ir(path, signatures, golden):
    text = render(path, signatures)
    golden_path = os.path.join(GOLDEN, golden)
    if UPDATE:
        with open(golden_path, "w", encoding="utf-8") as handle:
            handle.write(text)
    assert os.path.exists(golden_path), f"missing {golden_path}: run with KPC_UPDATE_GOLDEN=1"
    with open(golden_path, encoding="utf-8") as handle:
        assert text == handle.read()


def test_every_golden_has_a_source():
    expected = {c.values[2] for c in _cases()}
    present = {os.path.basename(p) for p in glob.glob(os.path.join(GOLDEN, "*.ir"))}
    assert present <= expected, f"stale golden files: {sorted(present - expected)}"
