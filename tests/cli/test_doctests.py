"""The examples in the docstrings of the CLI's modules (and of the runtime pieces a drop-in
module calls, and of the frontend's ufunc, gufunc and stencil writers) run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["kpc.report", "kpc.build_file", "kpc.pipeline", "kpc.compile_setup", "kpc.cli.bench",
                                  "kpc.runtime.dispatch", "kpc.runtime.fallback", "kpc.backend.kokkos.dropin",
                                  "kpc.runtime.placement", "kpc.ir.python_source", "kpc.runtime.kokkos",
                                  "kpc.runtime.rank_layout", "kpc.runtime.kokkos_session",
                                  "kpc.frontend.ufuncs", "kpc.frontend.gufuncs", "kpc.frontend.stencils",
                                  "kpc.frontend.scope", "kpc.runtime.ufunc"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
