"""The Kokkos emitter prints the host forms that choose-host-forms recorded (``ParallelInfo.host_form``)
and decides none itself: without the decision a copy or a reduction keeps the plain launch, and
the CUDA space keeps it whatever the IR says."""

from __future__ import annotations

from pathlib import Path

from kpc.api import load_module
from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
from kpc.ir import nodes as n
from kpc.passes.manager import PassContext, run_pipeline

HERE = Path(__file__).resolve().parent
STREAM = HERE.parents[1] / "corpus" / "stream_triad.py"
REDUCE = HERE / "reduce_kernels.py"


def cpp(path: Path, signature: str, space: str = "openmp", host_form=None) -> str:
    """The C++ of one kernel after the kokkos pipeline; ``host_form`` (when given) overrides the
    recorded decision of every region."""
    module = load_module(path, signatures=[signature])
    run_pipeline(module, PassContext(target="kokkos"))
    regions = [s for f in module.functions.values() for s in n.walk(f) if isinstance(s, n.For) and s.parallel]
    assert regions
    if host_form is not None:
        for region in regions:
            region.parallel.host_form = host_form
    return emit_translation_unit([Specialization(module, [signature.split("(")[0]])], space=space,
                                 source=str(path)).source


def test_the_element_copy_is_the_recorded_decision():
    signature = "stream_copy(float64[::1], float64[::1])"
    assert "std::memmove(" in cpp(STREAM, signature)
    assert "std::memmove(" not in cpp(STREAM, signature, host_form="")
    assert "std::memmove(" not in cpp(STREAM, signature, space="cuda", host_form="element-copy")


def test_the_chunked_reduction_is_the_recorded_decision():
    signature = "stats(float64[::1])"
    assert "kpc::reduce_chunk<" in cpp(REDUCE, signature) and "kpc_l3" in cpp(REDUCE, signature)
    plain = cpp(REDUCE, signature, host_form="")
    assert "kpc::reduce_chunk<" not in plain and "kpc_l3" not in plain
    assert "kpc_chunk" not in cpp(REDUCE, signature, space="cuda", host_form="chunked-reduce")
