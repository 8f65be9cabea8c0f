"""The corpus, differentially, on the Kokkos C++ target: every kernel of every corpus file
against Numba, on OpenMP (2 threads) and on Serial.

Per (corpus file, execution space) the signatures of all selected variants (every
dtype in C layout, every layout with the first dtype: Fortran order and strided
views) are compiled ahead of time into one C++ module through ``kpc.api.build``, so
each (file, signature) is compiled once per run, and not at all on a rerun: the
build cache lives in ``.kpc-cache/`` at the repository root (git-ignored) unless
``KPC_CACHE_DIR`` says otherwise. The Numba reference results are kept there too
(``numba-reference/``, keyed by the kernel file's text, the arguments' bytes and the
Numba and NumPy versions), so a rerun compiles neither C++ nor Numba.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

os.environ.setdefault("OMP_NUM_THREADS", "2")
# The cost guard runs regions below a few thousand iterations serially (cost-guard pass); the
# corpus inputs are small, so lower the threshold for this run (read when a module is
# imported): regions of 64 iterations and more take the parallel path, smaller ones the serial one.
os.environ.setdefault("KPC_SERIAL_THRESHOLD", "64")

from kpc.check.inputs import make_inputs  # noqa: E402
from kpc.check.runner import check_file, default_selection, import_path  # noqa: E402
from kpc.check.spec import corpus_files, load_cases  # noqa: E402
from kpc.runtime.argument_types import format_type, typeof  # noqa: E402

HAVE_SCIPY = importlib.util.find_spec("scipy") is not None
CORPUS = Path(__file__).resolve().parent
REPO = CORPUS.parent.parent

# Kernels of KPC_CASES that stay Numba today, and why; every other one must run as Kokkos C++.
EXPECTED_FALLBACKS: dict = {}

SPACES = ("openmp", "serial")


@pytest.fixture(scope="session", autouse=True)
def kpc_cache_dir():
    """One build cache for the whole run (and the next ones): compile each module once."""
    if not os.environ.get("KPC_CACHE_DIR"):
        os.environ["KPC_CACHE_DIR"] = str(REPO / ".kpc-cache")
    return os.environ["KPC_CACHE_DIR"]


def selected_signatures(path: Path) -> dict:
    """kernel -> Numba signature strings of the variants ``check_file`` will run."""
    signatures: dict = {}
    for kernel, case in load_cases(path).cases.items():
        for variant in default_selection(case):
            inputs = make_inputs(case, variant.dtype, variant.sizes, variant.layout)
            types = ", ".join(format_type(typeof(arg)) for arg in inputs.args())
            text = f"{kernel}({types})"
            if text not in signatures.setdefault(kernel, []):
                signatures[kernel].append(text)
    return signatures


class RememberedReference:
    """The Numba module of a corpus file, whose kernels' results (return value and final
    argument contents) are remembered on disk: a later run with the same file text and the
    same argument bytes gets them back without compiling the kernel."""

    def __init__(self, path: Path, root: Path):
        self.path = path
        self.root = root
        self.digest = hashlib.sha256(path.read_bytes()).hexdigest()

    def __getattr__(self, kernel: str):
        def call(*args):
            record = self.root / self._key(kernel, args)
            try:
                returned, finals = pickle.loads(record.read_bytes())
            except (OSError, pickle.UnpicklingError, EOFError, ValueError):
                returned = getattr(import_path(self.path), kernel)(*args)
                finals = [np.array(a, copy=True) if isinstance(a, np.ndarray) else None for a in args]
                record.parent.mkdir(parents=True, exist_ok=True)
                temporary = record.with_suffix(f".{os.getpid()}.tmp")
                temporary.write_bytes(pickle.dumps((returned, finals)))
                os.replace(temporary, record)
                return returned
            for arg, final in zip(args, finals):
                if final is not None:
                    np.copyto(arg, final)
            return returned
        return call

    def _key(self, kernel: str, args) -> str:
        digest = hashlib.sha256(f"{self.digest}|{kernel}|{numba.__version__}|{np.__version__}".encode())
        for arg in args:
            if isinstance(arg, np.ndarray):
                digest.update(f"{arg.dtype.str}{arg.shape}{arg.strides}".encode())
                digest.update(np.ascontiguousarray(arg).tobytes())
            else:
                digest.update(repr((type(arg).__name__, arg)).encode())
        return digest.hexdigest()[:40] + ".pkl"


def import_dropin(module_path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# Both spaces of a file run in one xdist worker (``--dist loadgroup``), which then compiles
# the Numba reference once.
CASES = [pytest.param(path, space, id=f"{path.name}-{space}", marks=pytest.mark.xdist_group(path.stem))
         for path in corpus_files(CORPUS) for space in SPACES]


@pytest.mark.compile
@pytest.mark.parametrize("path,space", CASES)
def test_corpus_kernel_matches_numba(path, space, tmp_path):
    from kpc.api import build

    signatures = selected_signatures(path)
    result = build(path, tmp_path, signatures=signatures, space=space)
    must = set(load_cases(path).cases) - EXPECTED_FALLBACKS.get(path.name, set())
    fell_back = must & set(result.rejected)
    assert not fell_back, "kept as Numba: " + "\n".join(result.rejected[k] for k in sorted(fell_back))
    module = import_dropin(result.module_path, f"kpc_dropin_{space}_{path.stem}")
    reference = RememberedReference(path, Path(os.environ["KPC_CACHE_DIR"]) / "numba-reference")
    report = check_file(path, module, target=f"kokkos-{space}", reference=reference)
    if not HAVE_SCIPY:
        # Numba's np.dot and @ need SciPy's BLAS: without it the reference itself cannot run.
        report.failures = [f for f in report.failures if "scipy" not in f.message]
    assert report.runs and not report.failures, report.summary() + "\n" + result.report()
