"""Run generated kernels beside Numba in a child process, one JSON line per event.

``python -m kpc.fuzz.worker SOURCE DROPIN KERNEL...`` calls each kernel of the generated
module ``SOURCE`` (Numba, the reference) and of kpc's drop-in module ``DROPIN`` on the
inputs of every variant ``kpc check`` would run, and prints ``{"kernel", "event": "start"}``
before and ``{"kernel", "event": "result", "status", ...}`` after each kernel. It runs apart
from the fuzzer so that a compiled kernel that crashes the process (a segfault) costs only
that kernel: the parent sees a ``start`` without a ``result`` and restarts a worker on the
rest. A mismatch is also run as plain Python (``py_func``), which says whether kpc or
Numba departs from Python's semantics.

Statuses: ``ok``; ``mismatch`` (values, or which exception: both raising the same type
agree); ``crash`` (kpc's module raised something that is not a language exception, such as
a ``TypeError`` of its dispatch); ``invalid`` (Numba could not compile the kernel, or failed
in its own runtime: a generated kernel that is not valid, a fuzzer bug).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import warnings

# The cost guard runs small regions serially; generated inputs are small, so lower its
# threshold (read when a compiled module is first loaded) to take the parallel paths too.
os.environ.setdefault("KPC_SERIAL_THRESHOLD", "16")
os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("NUMBA_NUM_THREADS", "2")

import numpy as np  # noqa: E402

from kpc.check.compare import compare_outcomes  # noqa: E402
from kpc.check.inputs import make_inputs  # noqa: E402
from kpc.check.runner import default_selection, import_path  # noqa: E402
from kpc.check.spec import load_cases  # noqa: E402

PYTHON_SECONDS = 30
# Exceptions a kernel raises by the language's rules: kpc raising one where Numba returned is a
# semantic mismatch; any other exception of kpc's module is a crash.
SEMANTIC_EXCEPTIONS = ("ZeroDivisionError", "ValueError", "IndexError", "OverflowError", "FloatingPointError")
# Numba failing to compile a generated kernel (a fuzzer bug), or failing inside its own runtime:
# a helper that raises inside a prange body comes back as "SystemError: ... returned a result
# with an exception set", where Python raises; neither is a reference to compare kpc with.
NUMBA_FAILURES = ("TypingError", "UnsupportedError", "LoweringError", "NumbaError", "SystemError")
NUMBA_FAILURE_PREFIXES = ("Failed in nopython mode",)


def check_kernel(case, reference, target, python) -> dict:
    """Compare one kernel on every selected variant; the first problem found, or ``ok``.

    Raising is part of the result: both sides raising the same exception type match, one
    raising where the other returns is a mismatch (``ZeroDivisionError`` against inf)."""
    runs = 0
    raised = set()
    for variant in default_selection(case):
        inputs = make_inputs(case, variant.dtype, variant.sizes, variant.layout)
        rtol, atol = case.tolerance(variant.dtype)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            expected = inputs.outcome(getattr(reference, case.kernel))
        if expected.exception_type in NUMBA_FAILURES or expected.raised.startswith(NUMBA_FAILURE_PREFIXES):
            return {"status": "invalid", "variant": variant.label, "message": expected.raised}
        with np.errstate(all="ignore"):
            actual = inputs.outcome(getattr(target, case.kernel))
        if actual.raised and not expected.raised and actual.exception_type not in SEMANTIC_EXCEPTIONS:
            return {"status": "crash", "variant": variant.label, "message": actual.raised}
        runs += 1
        if expected.raised:
            raised.add(expected.exception_type)
        mismatch = compare_outcomes(expected, actual, rtol=rtol, atol=atol, scale=inputs.magnitude())
        if mismatch is None and actual.stray_writes:
            mismatch = f"stray writes: {', '.join(actual.stray_writes)}"
        if mismatch is not None:
            result = {"status": "mismatch", "variant": variant.label, "message": str(mismatch)}
            result["python"] = python_verdict(inputs, getattr(python, case.kernel), expected, actual, rtol, atol)
            return result
    return {"status": "ok", "runs": runs, "raised": sorted(raised)}


def python_verdict(inputs, function, expected, actual, rtol, atol) -> str:
    """Which side plain Python agrees with: ``"kpc"``, ``"numba"``, ``"neither"``, ``"both"``, or
    why it could not say."""
    def expire(signum, frame):
        raise TimeoutError(f"plain Python ran over {PYTHON_SECONDS} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(PYTHON_SECONDS)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            python = inputs.outcome(function)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if python.exception_type == "TimeoutError":
        return f"unknown ({python.raised})"
    scale = inputs.magnitude()
    kpc_ok = compare_outcomes(python, actual, rtol=rtol, atol=atol, scale=scale, check_dtype=False) is None
    numba_ok = compare_outcomes(python, expected, rtol=rtol, atol=atol, scale=scale, check_dtype=False) is None
    return {(True, True): "both", (True, False): "kpc", (False, True): "numba", (False, False): "neither"}[
        (kpc_ok, numba_ok)]


def main(argv=None) -> int:
    source, dropin, *kernels = argv if argv is not None else sys.argv[1:]
    cases = load_cases(source).cases
    reference = import_path(source)
    python = import_path(source, jit=False)
    target = import_path(dropin, name=f"kpc_fuzz_target_{os.getpid()}")
    for kernel in kernels:
        print(json.dumps({"kernel": kernel, "event": "start"}), flush=True)
        result = check_kernel(cases[kernel], reference, target, python)
        print(json.dumps({"kernel": kernel, "event": "result", **result}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
