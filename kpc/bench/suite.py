"""Time a corpus kernel under Numba and kpc targets across sizes.

A benchmark entry names a corpus file, an entry kernel, a dtype and a list of
size assignments (the file's ``KPC_CASES`` says how to make inputs of any
size). Each size is checked for agreement first (a fast wrong answer is not a
result), then timed with ``kpc.bench.timing.interleave``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from kpc.bench.report import Row
from kpc.bench.timing import interleave
from kpc.check.compare import compare_outcomes
from kpc.check.inputs import make_inputs
from kpc.check.runner import import_path, numba_threads
from kpc.check.spec import load_cases


@dataclass
class Entry:
    """One kernel of the suite; ``size_key`` names the size shown on the x axis."""

    path: str
    kernel: str
    sizes: list
    size_key: str = "n"
    dtype: str = "float64"
    label: str = ""
    bytes_per_call: str | None = None  # size expression of bytes moved, for bandwidth figures
    extra: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.label or self.kernel


def _bandwidth(entry: Entry, sizes: dict, seconds: float) -> float | None:
    if entry.bytes_per_call is None:
        return None
    from kpc.check.spec import eval_size

    return eval_size(entry.bytes_per_call, sizes) / seconds / 1e9


def run_entry(entry: Entry, targets: dict, repeats: int = 7, budget_s: float = 20.0,
              log=print, device_arrays: bool = False) -> list:
    """Rows of ``entry`` for every size; ``targets`` maps a target name to its drop-in module.

    ``device_arrays``: time the targets on CuPy copies of the array arguments (made once,
    outside the timing; each call waits for the device), so a ``--space cuda`` build is
    timed without host-device copies; agreement is still checked on NumPy arguments.
    """
    case = load_cases(entry.path).cases[entry.kernel]
    reference = getattr(import_path(entry.path), entry.kernel)
    rows = []
    for sizes in entry.sizes:
        inputs = make_inputs(case, entry.dtype, sizes, "C") if entry.dtype in case.dtypes else None
        if inputs is None:
            raise ValueError(f"{entry.kernel}: dtype {entry.dtype} not declared in KPC_CASES")
        rtol, atol = case.tolerance(entry.dtype)
        with numba_threads(1 if case.serial_reference else None):  # Numba's prange scatter races
            expected = inputs.call(reference)
        contenders = {"numba": _bind(reference, inputs.args())}
        for name, module in targets.items():
            fn = getattr(module, entry.kernel)
            with np.errstate(all="ignore"):
                actual = inputs.call(fn)
            mismatch = compare_outcomes(expected, actual, rtol=rtol, atol=atol, scale=inputs.magnitude())
            if mismatch is not None:
                raise AssertionError(f"{entry.name} at {sizes}: {name} disagrees with Numba: {mismatch}")
            contenders[name] = _bind_device(fn, inputs.args()) if device_arrays else _bind(fn, inputs.args())
        started = time.perf_counter()
        timings = interleave(contenders, repeats=repeats, budget_s=budget_s)
        extra = {"sizes": dict(sizes), "dtype": entry.dtype}
        for name, timing in timings.items():
            gbs = _bandwidth(entry, sizes, timing.best)
            if gbs is not None:
                extra[f"{name}_GBps_best"] = gbs
        row = Row(entry.name, int(sizes[entry.size_key]), timings, extra=extra)
        rows.append(row)
        speedups = ", ".join(f"{t} {row.speedup(t):.2f}× (median {row.speedup(t, 'median'):.2f}×)"
                             for t in row.targets())
        log(f"{entry.name:<24} {entry.size_key}={sizes[entry.size_key]:<10} numba best "
            f"{timings['numba'].best * 1e3:.4g} ms; {speedups} [{time.perf_counter() - started:.1f} s]")
    return rows


def _bind(fn, args):
    return lambda: fn(*args)


def _bind_device(fn, args):
    import cupy

    device_args = tuple(cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
    synchronize = cupy.cuda.runtime.deviceSynchronize

    def call():
        fn(*device_args)
        synchronize()
    return call
