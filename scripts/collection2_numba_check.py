"""Run a collection's files under plain Numba only: every KPC_CASES kernel on its generated inputs.

Checks that each file imports, that every listed kernel compiles under Numba for every selected
variant (a variant whose call raises a Numba typing error is a problem; other exceptions, such as a
ValueError the kernel raises on purpose, are listed), that two Numba runs agree (no races, no stray
writes), and prints the time of one call at each kernel's largest size (best of 3 after a warm-up
call, C layout, first dtype).

    python scripts/collection2_numba_check.py examples/collection2/*.py
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback


def check_path(path: str) -> list[tuple[str, str, float | None]]:
    """(kernel, status, milliseconds at the largest size) for every listed kernel of ``path``."""
    from kpc.check.inputs import make_inputs
    from kpc.check.runner import check_file, default_selection, import_path
    from kpc.check.spec import load_cases

    cases = load_cases(path).cases
    module = import_path(path, name=f"numba_check_{os.path.basename(path)[:-3]}")
    report = check_file(path, module, target="numba")
    failed = {}
    for failure in report.failures:
        failed.setdefault(failure.kernel, f"{failure.variant}: {failure.message}"[:200])
    rows = []
    for name, case in cases.items():
        func = getattr(module, name)
        raised = {}
        for variant in default_selection(case):
            try:
                make_inputs(case, variant.dtype, variant.sizes, variant.layout).call(func)
            except Exception as error:  # the kernel's own exception, or Numba's typing error
                raised.setdefault(type(error).__name__, variant)
        if any(kind in ("TypingError", "LoweringError", "UnsupportedError") for kind in raised):
            rows.append((name, f"FAIL Numba does not compile it: {raised}", None))
            continue
        if name in failed:
            rows.append((name, "FAIL " + failed[name], None))
            continue
        note = f"ok (raises {', '.join(sorted(raised))} on some inputs)" if raised else "ok"
        inputs = make_inputs(case, case.dtypes[0], case.sizes[-1], "C")
        best = float("inf")
        inputs.call(func)
        for _ in range(3):
            args = inputs.args()
            start = time.perf_counter()
            func(*args)
            best = min(best, time.perf_counter() - start)
        rows.append((name, note, best * 1e3))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    options = parser.parse_args(argv)
    bad = 0
    for path in options.files:
        try:
            rows = check_path(path)
        except Exception:  # a file that does not import or whose cases do not read
            bad += 1
            print(f"{os.path.basename(path)}: ERROR\n{traceback.format_exc(limit=3)}")
            continue
        for name, status, ms in rows:
            bad += not status.startswith("ok")
            timing = f"{ms:9.2f} ms" if ms is not None else " " * 12
            print(f"{os.path.basename(path):34s} {name:28s} {timing}  {status}")
    print(f"{len(options.files)} files, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
