"""Every module of the shared kernel corpus (tests/corpus) parses and types, generic and eager:
each kernel is either typed (and passes the verifier, JSON round trip included) or listed as
rejected with a located diagnostic; nothing crashes."""

from __future__ import annotations

import glob
import os

import pytest

from kpc.api import load_module
from kpc.ir.printer import format_module
from kpc.ir.serialize import from_json, to_json

from frontend_support import ROOT, typed

CORPUS = sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "corpus", "*.py"))
                if not os.path.basename(p).startswith(("test_", "conftest", "_")))


@pytest.mark.skipif(not CORPUS, reason="the corpus is not there")
@pytest.mark.parametrize("path", CORPUS, ids=[os.path.basename(p) for p in CORPUS])
def test_corpus_module_types_or_rejects_with_a_location(path):
    module = typed(load_module(path))
    assert module.functions, f"no kernel of {path} translates"
    for name, rejected in module.rejected.items():
        assert rejected.diagnostic.loc.line > 0, f"{name}: {rejected.diagnostic}"
        assert rejected.diagnostic.construct
    assert format_module(from_json(to_json(module))) == format_module(module)
