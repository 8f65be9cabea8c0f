"""GPU tests: skipped unless ``nvidia-smi`` sees a GPU and the Kokkos found (``KOKKOS_ROOT``)
has the CUDA backend. ``scripts/cuda/gpu_check.sh`` runs them on the GPU machine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kpc.runtime.device_arrays import gpu_available, has_cuda
from kpc.runtime.kokkos import KokkosNotFound, find_kokkos

REPO = Path(__file__).resolve().parent.parent.parent


def _skip_reason():
    try:
        install = find_kokkos()
    except KokkosNotFound as error:
        return f"no Kokkos: {error}"
    if not has_cuda(install):
        return f"the Kokkos at {install.root} has no CUDA backend ({', '.join(install.backends)})"
    if not gpu_available():
        return "nvidia-smi sees no GPU"
    return None


SKIP_REASON = _skip_reason()


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).resolve().parent
    for item in items:
        if Path(str(item.fspath)).resolve().parent == here:
            item.add_marker(pytest.mark.gpu)
            if SKIP_REASON:
                item.add_marker(pytest.mark.skip(reason=SKIP_REASON))


@pytest.fixture(scope="session", autouse=True)
def kpc_cache_dir():
    if not os.environ.get("KPC_CACHE_DIR"):
        os.environ["KPC_CACHE_DIR"] = str(REPO / ".kpc-cache")
    return os.environ["KPC_CACHE_DIR"]
