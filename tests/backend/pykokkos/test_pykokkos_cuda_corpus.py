"""Every corpus file built for the PyKokkos Cuda space keeps every contract rule, Cuda rules included.

Cuda output is not run here (no GPU, no CuPy): the contract checker and the goldens
(``golden/*.cuda.py``) are what pins it. Each build is compared with the default-space build
of the same file and dtype: the Cuda space keeps no more kernels as Numba.
"""

from __future__ import annotations

import os

import pytest

from pykokkos_corpus_builds import dtypes_of, signatures_for
from kpc.api import build_pykokkos
from kpc.check import corpus_files

CORPUS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "corpus"))
CASES = [(path, dtype) for path in corpus_files(CORPUS) for dtype in dtypes_of(path)]


@pytest.mark.parametrize("path, dtype", CASES, ids=[f"{p.stem}-{d}" for p, d in CASES])
def test_cuda_build_keeps_the_contract(path, dtype, tmp_path):
    signatures = signatures_for(path, dtype)
    cuda = build_pykokkos(path, tmp_path / "cuda", signatures=signatures, space="Cuda")
    assert cuda.violations == [], "\n".join(str(v) for v in cuda.violations)
    host = build_pykokkos(path, tmp_path / "host", signatures=signatures)
    kept = {k.name for k in cuda.kept_as_numba}
    assert kept == {k.name for k in host.kept_as_numba}, [str(k) for k in cuda.kept_as_numba]
    translated = [k for k in cuda.kernels if k.status == "translated" and k.role != "device"]
    if translated:
        assert "pk.RangePolicy(pk.Cuda, " in cuda.source or "pk.parallel_" not in cuda.source
        assert "np.ascontiguousarray" not in cuda.source
