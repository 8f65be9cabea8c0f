"""A name that views an array kpc allocated keeps that array alive after the name it came from is
rebound: ``h = _center(h)`` inlines ``x = h`` and then binds ``h`` to a new array, and the old one,
which ``x`` still reads, was freed (c2_11 mlp_norm_forward read freed memory: wrong values in the
first row, or a crash, depending on what the process had allocated before)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kpc.api import build, load_module
from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
from kpc.passes.manager import PassContext, run_pipeline

REBIND = Path(__file__).resolve().parents[2] / "corpus" / "array_rebind.py"
SIGNATURE = "helpers_rebind(float64[:, ::1], float64[:, ::1])"

# Run in a child whose allocator fills freed memory with 0xa5 bytes and never returns blocks to
# the system (so a read of a freed array gives garbage instead of the old values or a crash).
CHILD = """
import sys
import numpy as np
from kpc.check.runner import import_path
built = import_path(sys.argv[1], "kpc_view_lifetimes")
reference = import_path(sys.argv[2], "view_lifetimes_reference")
rng = np.random.default_rng(3)
for n, d, m in ((40, 3, 30), (300, 5, 64)):
    x, w = rng.standard_normal((n, d)), rng.standard_normal((d, m))
    got, want = built.helpers_rebind(x, w), reference.helpers_rebind.py_func(x, w)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12), (n, np.abs(got - want).max())
print("equal")
"""


def test_an_alias_of_a_rebound_array_holds_its_owner():
    module = load_module(REBIND, signatures=[SIGNATURE])
    run_pipeline(module, PassContext(target="kokkos"))
    text = emit_translation_unit([Specialization(module, ["helpers_rebind"])], space="openmp",
                                 source=str(REBIND)).source
    assert "kpc::object kpc_own_x__center0 = kpc_own_h;" in text, text
    assert "kpc::object kpc_own_x__clip_low1 = kpc_own_h;" in text, text


@pytest.mark.compile
def test_helpers_reading_a_rebound_array_read_live_memory(tmp_path):
    path = build(REBIND, tmp_path, signatures=[SIGNATURE], strict=True).module_path
    env = dict(os.environ, MALLOC_PERTURB_="165", MALLOC_MMAP_THRESHOLD_="1000000000", MALLOC_TRIM_THRESHOLD_="1000000000")
    child = subprocess.run([sys.executable, "-c", CHILD, str(path), str(REBIND)], env=env,
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == 0 and child.stdout.strip() == "equal", child.stdout + child.stderr
