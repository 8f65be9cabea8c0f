"""The golden PyKokkos modules of the seed kernels: which ones, where they live, and their text.

Built through the real pipeline with the float64 signatures of their ``KPC_CASES``: ``<stem>.py``
in PyKokkos's default space, ``<stem>.cuda.py`` in the Cuda space (CuPy arrays). The tests compare;
``scripts/regen_goldens.py`` writes.
"""

from __future__ import annotations

import os
import shutil

from kpc.api import build_pykokkos
from pykokkos_corpus_builds import signatures_for

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden")
CORPUS = os.path.normpath(os.path.join(HERE, "..", "..", "corpus"))
KERNELS = ["sum2d", "sum3d", "lennard_jones", "star", "star2", "np_logreg"]
CUDA_KERNELS = ["sum2d", "lennard_jones", "star", "np_logreg"]
CASES = [(stem, None) for stem in KERNELS] + [(stem, "Cuda") for stem in CUDA_KERNELS]


def golden_path(stem: str, space: str | None) -> str:
    return os.path.join(GOLDEN, f"{stem}.{space.lower()}.py" if space else f"{stem}.py")


def render_golden(stem: str, space: str | None) -> str:
    """The PyKokkos module kpc writes for ``stem`` in ``space``, as its golden file holds it."""
    # Build into a scratch folder next to the golden one, so that relative paths in the text match.
    scratch = os.path.join(GOLDEN, f".build-{os.getpid()}-{stem}-{space}")
    source = os.path.join(CORPUS, f"{stem}.py")
    try:
        text = build_pykokkos(source, scratch, signatures=signatures_for(source, "float64"), space=space).source
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    # The fallback path of the Numba source is absolute (machine-specific): pin it as a placeholder.
    return text.replace(repr(source), "'<absolute path of the source at build time>'")
