"""Test helper: Numba source text -> typed IR, through the real frontend, ``infer-types`` and ``infer-view-dims``.

Snippets may leave out the imports: a snippet that starts with an empty line
gets ``from numba import njit, prange; import numpy as np; import math`` on that
line, so line numbers in expected reports are the snippet's own.
"""

from __future__ import annotations

import textwrap

from kpc.frontend import parse_module
from kpc.ir.verifier import verify
from kpc.passes.manager import PassContext, pipeline, run_pipeline

IMPORTS = "from numba import njit, prange; import numpy as np; import math"


def load(source: str, signatures: dict | None = None, path: str = "kernels.py"):
    """The typed IR module of ``source``; ``signatures``: ``{function: "(f8[:, ::1], i8)"}``."""
    source = textwrap.dedent(source)
    if source.startswith("\n"):
        source = IMPORTS + source
    module = parse_module(source, path, signatures=signatures)
    run_pipeline(module, PassContext(), ["infer-types", "infer-view-dims"])
    return module


def run(source: str, signatures: dict | None = None, passes: list | None = None, target: str = "kokkos",
        auto_parallel: bool = True):
    """``(module, ctx)`` after running ``passes`` (default: the target's pipeline after infer-view-dims),
    with the IR verifier after every pass."""
    module = load(source, signatures)
    ctx = PassContext(target=target, auto_parallel=auto_parallel, verify=True)
    if passes is None:
        names = pipeline(target)
        passes = names[names.index("infer-view-dims") + 1:]
    run_pipeline(module, ctx, passes, verifier=verify)
    return module, ctx
