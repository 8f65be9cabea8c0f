"""Helpers for the frontend, IR and typing tests: the repository root, typing a module."""

from __future__ import annotations

import os
import textwrap

from kpc.api import load_module
from kpc.ir.verifier import verify
from kpc.passes.manager import PassContext, run_pipeline

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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
