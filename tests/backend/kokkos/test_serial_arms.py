"""The cost guard's serial arm of a region calls a copy of the region's lambda and updates a local
copy of a scan's or reduction's accumulator: the launch in the other arm takes the addresses of
the lambda and of the accumulator, and through them GCC reloaded and stored them around every
store into an array of the same type (a row's running sum in `integral_image` went through
memory at each element: 1.9 us against Numba's 0.9 us a call). The corpus runs these arms
differentially (tests/corpus/prefix_sum.py, reduce_sum_prod.py)."""

from __future__ import annotations

from pathlib import Path

from kpc.api import load_module
from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
from kpc.passes.manager import PassContext, run_pipeline

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def cpp(path: Path, signature: str) -> str:
    module = load_module(path, signatures=[signature])
    run_pipeline(module, PassContext(target="kokkos"))
    return emit_translation_unit([Specialization(module, [signature.split("(")[0]])], space="openmp",
                                 source=str(path)).source


def serial_arm(text: str) -> str:
    return text.split("if (kpc::run_serially", 1)[1].split("} else {", 1)[0]


def test_a_scan_runs_serially_through_a_local_total():
    arm = serial_arm(cpp(CORPUS / "prefix_sum.py", "inclusive_scan(float64[::1], float64[::1])"))
    assert "auto kpc_serial = kpc_body;" in arm
    assert "auto kpc_local1 = kpc_total1;" in arm and "kpc_total1 = kpc_local1;" in arm
    assert "kpc_serial(i, kpc_local1, true);" in arm, arm


def test_a_for_region_runs_serially_through_a_copy_of_its_lambda():
    arm = serial_arm(cpp(CORPUS / "stream_triad.py", "stream_copy(float64[::1], float64[::1])"))
    assert "auto kpc_serial = kpc_body;" in arm and "kpc_serial(i);" in arm, arm
    assert "kpc_local" not in arm  # nothing to accumulate
