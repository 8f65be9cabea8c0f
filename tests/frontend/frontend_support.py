"""Helpers for the frontend, IR and typing tests: the repository root, typing a module, the golden IR."""

from __future__ import annotations

import glob
import os
import re
import textwrap

from kpc.api import load_module
from kpc.ir.diagnostics import KpcError
from kpc.ir.printer import format_module
from kpc.ir.serialize import from_json, to_json
from kpc.ir.verifier import verify
from kpc.passes.manager import PassContext, run_pipeline

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCES = os.path.join(ROOT, "tests", "frontend", "sources")
GOLDEN = os.path.join(ROOT, "tests", "frontend", "golden")


def typed(module, target: str = "kokkos"):
    """Run infer-types and infer-view-dims over ``module`` with the verifier after each pass."""
    ctx = PassContext(target=target, verify=True)
    run_pipeline(module, ctx, ["infer-types", "infer-view-dims"], verifier=verify)
    return module


def load_source(tmp_path, source: str, signatures=None, strict: bool = False, name: str = "kernels.py"):
    """Write ``source`` (dedented) to ``tmp_path/name`` and parse it with ``load_module``."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return load_module(path, signatures=signatures, strict=strict)


def golden_cases() -> list:
    """``(source path, signatures or None, golden file name)`` of every golden IR file."""
    cases = []
    for path in sorted(glob.glob(os.path.join(SOURCES, "*.py"))):
        stem = os.path.splitext(os.path.basename(path))[0]
        text = open(path, encoding="utf-8").read()
        signatures = re.findall(r"^# golden-signature: (.+)$", text, re.MULTILINE)
        cases.append((path, None, f"{stem}.ir"))
        if signatures:
            cases.append((path, signatures, f"{stem}.typed.ir"))
    return cases


def render_golden(path: str, signatures) -> str:
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
