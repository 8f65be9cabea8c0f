"""Build ``heat_kernels.py`` with kpc (both examples' kernels, so both share one cache entry) and
import the drop-in module; the signatures compile it ahead of time, as a batch job should."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIGNATURES = ["heat_step(float64[:, ::1], float64[:, ::1], float64)", "smooth_energy(float64[:, :])"]


def build(space: str, out: Path) -> None:
    import kpc

    kpc.build(HERE / "heat_kernels.py", out=out, space=space, signatures=SIGNATURES, write_report=False)


def load(out: Path):
    """The drop-in module in ``out`` (put first on ``sys.path``)."""
    sys.path.insert(0, str(out))
    import heat_kernels

    return heat_kernels
