"""Self-check of the differential corpus: every case runs under Numba and as plain Python.

For each kernel file in this folder and each entry kernel of its ``KPC_CASES``:
the spec parses, its inputs are generated deterministically, and the kernel
compiled by Numba agrees (through ``kpc.check.compare_outcomes``) with the
same module imported with the JIT disabled, where the kernel and its helpers
run as plain Python on NumPy (their ``py_func``).  That shows each corpus
kernel is meaningful, deterministic and correctly described (its ``writes``
list included) before kpc targets are compared against Numba.

Numba compilation dominates the run time (up to ~10 s for one signature of a
kernel with array expressions in a ``prange``), so by default each kernel runs
its first dtype in C layout plus one more (dtype, layout) pair, picked by a
stable hash of the kernel name, each on every size; ``KPC_CORPUS_FULL=1`` runs
every pair.  With pytest-xdist, ``--dist loadgroup`` lets one worker compile
each file.  Kernels that use ``np.dot``/``@`` are skipped when SciPy (which
Numba needs for BLAS) is not installed.
"""

from __future__ import annotations

import importlib.util
import os
import warnings
import zlib
from pathlib import Path

import numba
import numpy as np
import pytest

from kpc.check import compare_outcomes, corpus_files, load_cases, make_inputs, variants
from kpc.check.compare import Outcome
from kpc.check.runner import import_path, numba_threads

CORPUS = Path(__file__).parent
FILES = corpus_files(CORPUS)
FULL = os.environ.get("KPC_CORPUS_FULL") == "1"
HAVE_SCIPY = importlib.util.find_spec("scipy") is not None


def run_numba(case, inputs):
    kernel = getattr(import_path(case.path, jit=True), case.kernel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numba.NumbaPerformanceWarning)
        with numba_threads(1 if case.serial_reference else None):
            return outcome(inputs, kernel)


def run_python(case, inputs, divide: str = "ignore"):
    kernel = getattr(import_path(case.path, jit=False), case.kernel)
    with np.errstate(all="ignore", divide=divide):
        return outcome(inputs, kernel)


def divides_by_zero_as_numba(case, inputs, by_numba, by_python) -> bool:
    """Numba raises ZeroDivisionError where plain Python, dividing NumPy scalars, follows NumPy's
    error model (inf and a flag, no exception): the same division by zero, when the Python run
    with NumPy's divide errors raised stops there too."""
    if by_numba.exception_type != "ZeroDivisionError" or by_python.raised:
        return False
    return run_python(case, inputs, divide="raise").exception_type == "FloatingPointError"


def outcome(inputs, kernel):
    """``inputs.call(kernel)``, with an exception the kernel raises as its outcome (Numba must raise
    what Python raises); Numba failing to compile the kernel propagates."""
    try:
        return inputs.call(kernel)
    except (numba.TypingError, ImportError):
        raise
    except Exception as error:  # the kernel's own raise, compared by type
        return Outcome(returned=None, raised=f"{type(error).__name__}: {error}")


def selected_runs(case):
    """(dtype, layout) pairs of the self-check, each run on every size."""
    pairs = [(dt, layout) for dt in case.dtypes for layout in case.layouts]
    if FULL:
        return pairs
    first = (case.dtypes[0], "C")
    others = [p for p in pairs if p != first and (p[0] == case.dtypes[0] or p[1] == "C")]
    if not others:
        return [first]
    return [first, others[zlib.crc32(case.kernel.encode()) % len(others)]]


def _case_params():
    params = []
    for path in FILES:
        for kernel, case in load_cases(path).cases.items():
            for dtype, layout in selected_runs(case):
                params.append(pytest.param(
                    path, kernel, dtype, layout,
                    id=f"{path.stem}::{kernel}-{dtype}-{layout}",
                    marks=pytest.mark.xdist_group(path.stem),
                ))
    return params


def test_corpus_is_large_enough():
    kernels = sum(len(load_cases(p).cases) for p in FILES)
    assert len(FILES) >= 32 and kernels >= len(FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_spec_parses_and_inputs_are_deterministic(path):
    for case in load_cases(path).cases.values():
        for variant in variants(case):
            first = make_inputs(case, variant.dtype, variant.sizes, variant.layout)
            second = make_inputs(case, variant.dtype, variant.sizes, variant.layout)
            for a, b in zip(first.args(), second.args()):
                assert type(a) is type(b)
                if isinstance(a, np.ndarray):
                    assert a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides
                    assert np.array_equal(a, b, equal_nan=True)
                    assert not np.shares_memory(a, b)
                else:
                    assert a == b


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_entry_kernels_are_numba_dispatchers(path):
    module = import_path(path, jit=True)
    for kernel in load_cases(path).cases:
        # @vectorize makes a NumPy ufunc (with signatures) or a DUFunc (without); @stencil a StencilFunc;
        # @guvectorize a NumPy ufunc or a GUFunc
        assert isinstance(getattr(module, kernel), (numba.core.dispatcher.Dispatcher, np.ufunc,
                                                    numba.np.ufunc.dufunc.DUFunc,
                                                    numba.stencils.stencil.StencilFunc,
                                                    numba.np.ufunc.gufunc.GUFunc)), kernel


@pytest.mark.parametrize("path, kernel, dtype, layout", _case_params())
def test_numba_agrees_with_python(path, kernel, dtype, layout):
    case = load_cases(path).cases[kernel]
    rtol, atol = case.tolerance(dtype)
    for sizes in case.sizes:
        inputs = make_inputs(case, dtype, sizes, layout)
        label = f"{path.name}::{kernel} {inputs.variant.label}"
        try:
            by_numba = run_numba(case, inputs)
        except (numba.TypingError, ImportError) as exc:
            if not HAVE_SCIPY and "scipy" in str(exc):
                pytest.skip(f"{label}: Numba needs SciPy for np.dot and @ (BLAS); SciPy is not installed")
            raise
        again = run_numba(case, inputs)
        by_python = run_python(case, inputs)
        if divides_by_zero_as_numba(case, inputs, by_numba, by_python):
            continue
        assert not by_python.stray_writes, f"{label}: {by_python.stray_writes}"
        assert not by_numba.stray_writes, f"{label}: {by_numba.stray_writes}"
        mismatch = compare_outcomes(by_numba, again, rtol=rtol, atol=atol)
        assert mismatch is None, f"{label}: Numba is not deterministic: {mismatch}"
        mismatch = compare_outcomes(
            by_python, by_numba, rtol=rtol, atol=atol, scale=inputs.magnitude(), check_dtype=False
        )
        assert mismatch is None, f"{label}: {mismatch}"
