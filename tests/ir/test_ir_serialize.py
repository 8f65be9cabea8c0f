"""JSON form of the IR: exact round trip (same printed text, same JSON) for every kind of module."""

from __future__ import annotations

import doctest
import glob
import json
import os
import sys

import pytest

import kpc.ir.serialize as serialize_module
from kpc.api import load_module
from kpc.ir import nodes as n
from kpc.ir.diagnostics import KpcError
from kpc.ir.printer import format_module
from kpc.ir.serialize import IRFormatError, from_json, to_json
from kpc.ir.types import FLOAT32, FLOAT64, INT64

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "frontend"))
from frontend_support import ROOT, typed  # noqa: E402

SOURCES = sorted(glob.glob(os.path.join(ROOT, "tests", "frontend", "sources", "*.py")))


@pytest.mark.parametrize("path", SOURCES, ids=[os.path.basename(p) for p in SOURCES])
def test_round_trip_before_and_after_typing(path):
    module = load_module(os.path.relpath(path, ROOT), source=open(path).read())
    stages = [module]
    try:
        stages.append(typed(load_module(os.path.relpath(path, ROOT), source=open(path).read())))
    except KpcError:
        pass
    for stage in stages:
        text = to_json(stage)
        loaded = from_json(text)
        assert format_module(loaded) == format_module(stage)
        assert to_json(loaded) == text
        assert sorted(loaded.callgraph.edges) == sorted(stage.callgraph.edges)
        assert set(loaded.rejected) == set(stage.rejected)


def test_values_json_has_no_literal_for():
    module = load_module("m.py", source=(
        "import math\nfrom numba import njit\nC = 1 + 2j\n\n@njit\ndef f(x):\n"
        "    return x * C + math.inf, -math.inf, math.nan, (1, 2.5)\n"))
    loaded = from_json(to_json(module))
    values = [g.value for g in n.walk(loaded.functions["f"]) if isinstance(g, (n.GlobalConst, n.Const))]
    assert values[0] == 1 + 2j and values[1] == float("inf")
    assert format_module(loaded) == format_module(module)
    json.loads(to_json(module))  # strict JSON: no bare NaN/Infinity
    assert "NaN" not in to_json(module) and "Infinity" not in to_json(module)


def test_parallel_annotations_and_options_travel():
    module = load_module("m.py", source=(
        "from numba import njit, prange\n\n@njit(parallel=True, fastmath={'nnan'}, locals={'s': 'f4'})\n"
        "def f(a):\n    s = 0.0\n    for i in prange(a.shape[0]):\n        s += a[i]\n    return s\n"))
    loop = module.functions["f"].body[1]
    loop.parallel = n.ParallelInfo(pattern="reduce", reductions=[n.ReductionSpec("s", "sum", FLOAT64)],
                                   schedule="dynamic", captures=["a"], serial_below=1000)
    loaded = from_json(to_json(module))
    info = loaded.functions["f"].body[1].parallel
    assert (info.pattern, info.schedule, info.captures, info.serial_below) == ("reduce", "dynamic", ["a"], 1000)
    assert info.reductions[0].type == FLOAT64
    assert loaded.functions["f"].options == {"parallel": True, "fastmath": ["nnan"], "locals": {"s": FLOAT32}}
    assert format_module(loaded, show_decisions=True) == format_module(module, show_decisions=True)


def test_locations_outside_the_module_file_keep_their_file():
    module = load_module("m.py", source="from numba import njit\n\n@njit\ndef f(x):\n    return x\n")
    module.functions["f"].body[0].loc = n.Loc("other.py", 9, 3)
    loaded = from_json(to_json(module))
    assert loaded.functions["f"].body[0].loc == n.Loc("other.py", 9, 3)
    assert loaded.functions["f"].loc == n.Loc("m.py", 4, 0)


def test_rejected_diagnostics_travel():
    module = load_module("m.py", source="from numba import njit\n\n@njit\ndef f(n):\n    return [n]\n")
    loaded = from_json(to_json(module))
    assert loaded.rejected["f"].diagnostic.format() == module.rejected["f"].diagnostic.format()


def test_types_of_every_kind():
    module = load_module("m.py", source="from numba import njit\n\n@njit\ndef f(a, i):\n    return a[i], a.shape\n",
                         signatures=["f(f4[:, ::1], i8)"])
    typed(module)
    loaded = from_json(to_json(module))
    assert [p.type for p in loaded.functions["f"].params] == [p.type for p in module.functions["f"].params]
    assert loaded.functions["f"].return_type == module.functions["f"].return_type
    assert loaded.functions["f"].params[1].type == INT64


@pytest.mark.parametrize("text", ["not json", '{"kpc_ir": 99}', "[]"])
def test_bad_input_is_rejected(text):
    with pytest.raises(IRFormatError):
        from_json(text)


def test_module_docstring_example():
    result = doctest.testmod(serialize_module)
    assert result.attempted > 0 and result.failed == 0
