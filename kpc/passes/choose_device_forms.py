"""Choose the device-space form of Kokkos regions: MDRange regions launch as one flat 1-D range on the GPU."""

from __future__ import annotations

from kpc.ir import nodes as n

from .choose_host_forms import region_pattern
from .manager import Pass, register

FLAT = "flat"


def _note(info: n.ParallelInfo, note: str) -> None:
    if note not in info.reason:
        info.reason = f"{info.reason}; {note}" if info.reason else note


@register
class ChooseDeviceForms(Pass):
    """Set ``device_form = flat`` on MDRange regions: device spaces launch them as a 1-D range.

    Kokkos's CUDA MDRange launches a block per tile of the index space, and its ``parallel_reduce``
    combines the tiles' partial results through a grid too small for the memory system: a sum over
    10^4 x 10^4 doubles took 8.0 ms on an H100 (0.1 TB/s) where the same sum over a 1-D view takes
    0.32 ms. The flat form launches ``t in [0, n_i * n_j)`` the way 1-D regions launch (one thread per
    element, ``kpc::cuda::range_for`` for a ``for``, Kokkos's Range reduction for a ``reduce``) and
    recomputes ``i = t / n_j``, ``j = t - i * n_j`` (32-bit division while the extents fit). The
    last loop still varies fastest, so neighbouring threads read neighbouring elements. The pass
    context names no execution space, so ``device_form`` says what the device launch is allowed to
    be: the Kokkos emitter prints it for CUDA only; host spaces keep the MDRange (OpenMP gives each
    thread whole rows of it, which is what a CPU wants).

    Before::

        func @total(a: f64[:, :]) -> f64   role=entry parallel
          s: f64 = 0.0
          parallel_reduce(sum:s) MDRange2D i: i64 in prange(0, a.shape[0]):
            for j: i64 in range(0, a.shape[1]):
              s += a[i, j]
          return s

    After::

        func @total(a: f64[:, :]) -> f64   role=entry parallel
          s: f64 = 0.0
          parallel_reduce(sum:s) MDRange2D device=flat i: i64 in prange(0, a.shape[0]):
            for j: i64 in range(0, a.shape[1]):
              s += a[i, j]
          return s

    After (report)::

        @total (role entry)
          line 5, i in prange: parallel_reduce (sum: s) [MDRange 2-D]: prange; sum reduction of s; serial below 5462 iterations (~6 operations each); reduction not chunked: an MDRange region; device: one flat 1-D range, indices recomputed
            line 6, j in range: serial: collapsed into the MDRange region of line 5
    """

    name = "choose-device-forms"
    transforms = False

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            for loop in n.walk(function):
                if not isinstance(loop, n.For) or loop.parallel is None:
                    continue
                info = loop.parallel
                info.device_form = ""
                if info.policy == "MDRange" and info.depth > 1 and region_pattern(info) in ("for", "reduce"):
                    info.device_form = FLAT
                    _note(info, "device: one flat 1-D range, indices recomputed")
