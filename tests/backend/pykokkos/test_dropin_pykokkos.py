"""The PyKokkos module is the whole source module: every top-level name that is not a translated
kernel (plain functions, constants, classes, imports, kernels kept as Numba, ``__all__``) is the
source module's own object, imported from it on first use.

The module runs here under the contract interpreter (upstream PyKokkos is not installable here);
what is checked is Python-level: names, identities, and that the translated kernel is the module's.
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np
import pytest

from contract_interpreter import ContractInterpreter
from kpc.api import build_pykokkos
from kpc.backend.pykokkos import check

SOURCE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "dropin_whole_module.py")


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    out = tmp_path_factory.mktemp("pk_whole")
    build = build_pykokkos(SOURCE, out, signatures=["total(float64[::1])"])
    assert check(build.source) == []
    module = ContractInterpreter().load(build.output, name="dropin_whole_module_pk")
    sys.modules[module.__name__] = module  # importable by name, as after ``sys.path.insert(0, out)``
    return build, module, module._load_numba_source()


def test_kernels_are_translated_or_kept(whole):
    build, module, source = whole
    assert [(r.name, r.status) for r in build.kernels] == [("total", "translated"), ("with_list", "numba")]
    assert module.total is not source.total and module.total.__module__ == module.__name__
    assert module.with_list is source.with_list and module.with_list(3) == 3
    assert module.total(np.arange(4.0)) == 15.0


def test_every_top_level_name_of_the_source_is_there_with_the_same_value(whole):
    _, module, source = whole
    for name in ("SCALE", "LABELS", "_CALLS", "Particle", "describe", "main", "pi", "np", "njit", "dataclass",
                 "__version__"):
        assert getattr(module, name) is getattr(source, name), name
    assert module.pi is math.pi and module.np is np and module.SCALE == 2.5
    assert module.Particle(2.0, 1.0).charge == 1.0
    assert module.describe([1]) == "1 values, scale 2.5"
    assert module.main() == 15.0 and source._CALLS == ["main"]


def test_all_doc_dir_and_star_import_follow_the_source(whole):
    _, module, source = whole
    assert module.__all__ == source.__all__
    assert module.__doc__.rstrip().endswith(source.__doc__)
    assert {"SCALE", "LABELS", "Particle", "describe", "total", "with_list"} <= set(dir(module))
    namespace = {}
    exec(f"from {module.__name__} import *", namespace)
    assert sorted(n for n in namespace if n != "__builtins__") == sorted(source.__all__)
    assert namespace["total"] is module.total


def test_missing_names_and_dunder_probes_raise_attribute_error(whole):
    _, module, _ = whole
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        module.nothing_here
    assert not hasattr(module, "__path__")
