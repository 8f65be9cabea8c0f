"""Run a corpus file's cases under Numba and under a kpc target, and compare.

``check_file(path, target_module)`` calls every entry kernel of the file's
``KPC_CASES`` on the generated inputs of each selected variant (dtype, sizes,
layout), once through the Numba reference and once through the drop-in module
a kpc target produced, and compares what each returned and wrote (exact for
integers and booleans, a tolerance for floats). Used by ``kpc check``, by the
test suites of each target, and by ``kpc bench`` to validate before timing.
"""

from __future__ import annotations

import importlib.util
import sys
import zlib
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from kpc.check.compare import compare_outcomes
from kpc.check.inputs import Variant, make_inputs, variants
from kpc.check.spec import load_cases
from kpc.runtime.cache_dir import numba_cache_aside

_imported: dict = {}


def import_path(path, name: str | None = None, jit: bool = True):
    """Import a Python file by path under a unique module name (cached per process).

    ``jit=False`` imports it with Numba's JIT disabled: every kernel runs as Python.
    """
    path = Path(path).resolve()
    key = (path, jit, name)
    if key in _imported:
        return _imported[key]
    import numba

    name = name or f"kpc_ref_{'numba' if jit else 'python'}_{path.stem}_{zlib.crc32(str(path).encode()):08x}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    saved = numba.config.DISABLE_JIT
    numba.config.DISABLE_JIT = not jit
    try:
        with numba_cache_aside(name):
            spec.loader.exec_module(module)
    finally:
        numba.config.DISABLE_JIT = saved
    _imported[key] = module
    return module


@contextmanager
def numba_threads(count: int | None):
    """Run Numba's parallel regions on ``count`` threads inside the block (None: unchanged)."""
    if count is None:
        yield
        return
    import numba

    saved = numba.get_num_threads()
    numba.set_num_threads(min(count, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(saved)


@dataclass
class Failure:
    kernel: str
    variant: str
    message: str

    def __str__(self) -> str:
        return f"{self.kernel} [{self.variant}]: {self.message}"


@dataclass
class CheckReport:
    """What ``check_file`` ran: the number of compared runs and every failure."""

    path: str
    target: str
    runs: int = 0
    failures: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures and self.runs > 0

    def summary(self) -> str:
        lines = [f"{self.path} [{self.target}]: {self.runs - len(self.failures)} passed, "
                 f"{len(self.failures)} failed"]
        lines += [f"  FAIL {failure}" for failure in self.failures]
        return "\n".join(lines)


def default_selection(case) -> Iterable[Variant]:
    """Every dtype in C layout and every layout with the first dtype, each on every size."""
    chosen = []
    for variant in variants(case):
        if variant.layout == "C" or variant.dtype == case.dtypes[0]:
            chosen.append(variant)
    return chosen


def case_signatures(path, kernels=None) -> list:
    """Numba signature strings of every input variant ``check_file`` runs, so one ahead-of-time
    build covers them (the same selection as ``default_selection``)."""
    from kpc.runtime.argument_types import format_type, typeof

    signatures = []
    for kernel, case in load_cases(path).cases.items():
        if kernels and kernel not in kernels:
            continue
        for variant in default_selection(case):
            inputs = make_inputs(case, variant.dtype, variant.sizes, variant.layout)
            text = f"{kernel}({', '.join(format_type(typeof(arg)) for arg in inputs.args())})"
            if text not in signatures:
                signatures.append(text)
    return signatures


def check_file(path, target_module, target: str = "target", kernels: Iterable[str] | None = None,
               select: Callable = default_selection, reference=None, arrays: str = "numpy",
               atol_floors: dict | None = None) -> CheckReport:
    """Compare ``target_module``'s kernels against the Numba reference on every selected variant.

    ``arrays="cupy"``: the target is called on CuPy copies of the array arguments (a Cuda-space
    build's device path), and what it writes and returns is compared on the host.
    ``atol_floors``: kernel -> an absolute tolerance used where the case's is smaller (a caller
    that knows a result is rounding noise of reassociated sums says so).
    """
    if arrays not in ("numpy", "cupy"):
        raise ValueError(f"arrays must be 'numpy' or 'cupy', not {arrays!r}")
    cases = load_cases(path).cases
    reference = reference if reference is not None else import_path(path)
    report = CheckReport(str(path), target)
    for kernel, case in cases.items():
        if kernels is not None and kernel not in kernels:
            continue
        expected_fn = getattr(reference, kernel)
        actual_fn = getattr(target_module, kernel)
        if arrays == "cupy":
            actual_fn = on_device(actual_fn)
        for variant in select(case):
            inputs = make_inputs(case, variant.dtype, variant.sizes, variant.layout)
            rtol, atol = case.tolerance(variant.dtype)
            if atol_floors and kernel in atol_floors:
                atol = max(atol or 0.0, atol_floors[kernel])
            report.runs += 1
            # Both sides raising the same exception type agree (Numba's ZeroDivisionError, NumPy's
            # broadcasting ValueError); a target raising where Numba returned is a failure.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with numba_threads(1 if case.serial_reference else None):
                    expected = inputs.outcome(expected_fn)
            with np.errstate(all="ignore"):
                actual = inputs.outcome(actual_fn)
            problems = list(actual.stray_writes)
            mismatch = compare_outcomes(expected, actual, rtol=rtol, atol=atol, scale=inputs.magnitude())
            if mismatch is not None:
                problems.append(str(mismatch))
            if problems:
                report.failures.append(Failure(kernel, variant.label, "; ".join(problems)))
    return report


def on_device(fn: Callable) -> Callable:
    """``fn`` called on CuPy copies of its NumPy array arguments; the arrays it wrote are copied
    back into the host arguments and CuPy arrays it returns come back as NumPy arrays, so the
    outcome compares with Numba's as a host call's does."""
    import cupy

    def to_host(value):
        if isinstance(value, cupy.ndarray):
            return cupy.asnumpy(value)
        if isinstance(value, (tuple, list)):
            return type(value)(to_host(item) for item in value)
        return value

    def call(*args):
        device = [cupy.asarray(arg) if isinstance(arg, np.ndarray) else arg for arg in args]
        try:
            return to_host(fn(*device))
        finally:
            for host, copy in zip(args, device):
                if copy is not host:
                    host[...] = cupy.asnumpy(copy)

    call.__name__ = getattr(fn, "__name__", "kernel")
    return call
