"""Helpers called only from kernels take the index ranges their call sites give them
(``analysis.parameter_intervals``): a stencil-style helper read at ``i - 1`` from a loop that starts
at 1 indexes without Python's negative-index wrap; a helper some call passes a negative index keeps it."""

from __future__ import annotations

import numpy as np

from kpc.runtime.argument_types import typeof

KERNELS = '''
from numba import njit, prange


@njit
def left(a, i):
    return a[i - 1]


@njit
def right(a, i):
    return a[i + 1]


@njit(parallel=True)
def interior(a, out):
    for i in prange(1, a.shape[0] - 1):
        out[i] = left(a, i) + right(a, i)


@njit
def last_two(a, out):
    out[0] = right(a, -3)
'''


def emit(tmp_path, text: str, kernels: list) -> str:
    """The C++ of ``kernels`` of the module ``text``, each taking two float64 vectors."""
    from kpc import pipeline
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit

    source = tmp_path / "kernels.py"
    source.write_text(text)
    f64 = typeof(np.zeros(3))
    entries = {name: (f64, f64) for name in kernels}
    module = pipeline.typed_specialization(str(source), text, entries, True)
    return emit_translation_unit([Specialization(module, list(entries))], space="openmp", source=str(source)).source


def test_helpers_called_with_interior_indices_do_not_wrap(tmp_path):
    text = emit(tmp_path, KERNELS, ["interior", "last_two"])
    lines = text.splitlines()
    body = {line.split("double ")[1].split("(")[0]: next(l.strip() for l in lines[k + 1:] if not l.startswith("#"))
            for k, line in enumerate(lines)
            if line.startswith("KOKKOS_INLINE_FUNCTION double ")}
    assert body["left"] == "return a(i - 1);"  # i >= 1 at its only call
    assert body["right"].startswith("return a(kpc::wrap(i + 1,")  # last_two passes -3: Python's wrap stays


LOOPS = '''
from numba import njit


@njit
def two_sweeps(a, out):
    for i in range(1, a.shape[0] - 1):
        out[i] = a[i - 1]
    for i in range(1, a.shape[0] - 1):
        out[i] += a[i + 1]


@njit
def one_from_behind(a, out):
    for i in range(1, a.shape[0]):
        out[i] = a[i - 1]
    for i in range(-2, 0):
        out[i] = a[i]
'''


def test_a_name_only_loops_assign_takes_the_hull_of_their_ranges(tmp_path):
    text = emit(tmp_path, LOOPS, ["two_sweeps", "one_from_behind"])
    two = text.split("// two_sweeps (", 1)[1].split("\n}\n", 1)[0]
    assert "out(i) = a(i - 1);" in two and "a(i + 1)" in two and "kpc::wrap" not in two  # i >= 1 in both
    behind = text.split("// one_from_behind (", 1)[1].split("\n}\n", 1)[0]
    assert "kpc::wrap(i - 1," in behind  # the second loop's i is negative: Python's wrap stays
