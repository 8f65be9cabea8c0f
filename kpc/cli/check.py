"""``kpc check``: build a file's kernels and compare them with Numba on its KPC_CASES inputs."""

from __future__ import annotations

import argparse
import os
import sys

from kpc.cli.common import EXIT_TARGET_UNAVAILABLE, TARGETS, add_space_argument, print_diagnostic, use_color


def add_check_command(subparsers) -> None:
    parser = subparsers.add_parser(
        "check",
        help="build a file's kernels and compare them with Numba on its KPC_CASES inputs",
        description=(
            "Build FILE for the target into a temporary directory, then call every kernel listed in "
            "the file's KPC_CASES under Numba and under the build on the same generated inputs (every "
            "dtype, sizes and memory layout the cases declare) and compare returns and written arrays. "
            "Prints each mismatch: kernel, variant, first differing index, expected and actual values."
        ),
        epilog=(f"exit status: 0 all agree; 1 a mismatch, a crash, a build error or no KPC_CASES; 2 bad "
                f"arguments; {EXIT_TARGET_UNAVAILABLE} the target cannot run here (pykokkos not "
                "importable): nothing was checked"),
    )
    parser.add_argument("file", metavar="FILE", help="a Python file with @njit kernels and a KPC_CASES block")
    parser.add_argument("--target", choices=TARGETS, default="kokkos",
                        help="which kpc output to check against Numba (default: kokkos)")
    add_space_argument(parser)
    parser.add_argument("--kernel", action="append", metavar="NAME",
                        help="check only this kernel (repeatable; default: every kernel in KPC_CASES)")
    parser.add_argument("--arrays", choices=("numpy", "cupy", "both"), default="numpy",
                        help="array arguments the build is called with: cupy = CuPy copies of the inputs "
                             "(needs --space cuda; writes and returns are compared on the host), both = "
                             "NumPy then CuPy (default: numpy)")
    parser.set_defaults(run=run_check)


def run_check(args: argparse.Namespace) -> int:
    import tempfile

    from kpc.check.runner import case_signatures, check_file, import_path
    from kpc.check.spec import CaseSpecError, load_cases
    from kpc.build_file import build
    from kpc.ir.diagnostics import KpcError

    if not os.path.isfile(args.file):
        print(f"kpc check: error: no such file: {args.file}", file=sys.stderr)
        return 1
    if args.arrays != "numpy":
        if args.space != "cuda":
            print(f"kpc check: error: --arrays {args.arrays} needs --space cuda", file=sys.stderr)
            return 2
        try:
            import cupy  # noqa: F401
        except Exception as error:
            print(f"kpc check: error: --arrays {args.arrays}: importing cupy failed "
                  f"({type(error).__name__}: {error})", file=sys.stderr)
            return 2
    if args.target == "pykokkos":
        try:
            import pykokkos  # noqa: F401
        except Exception as error:  # ImportError, or a PyKokkos install that fails while loading
            print(f"kpc check: cannot check the pykokkos target here: importing pykokkos failed "
                  f"({type(error).__name__}: {error}). Install PyKokkos (https://github.com/kokkos/pykokkos) "
                  f"to run it; nothing was checked.", file=sys.stderr)
            return EXIT_TARGET_UNAVAILABLE
    try:
        cases = load_cases(args.file).cases
    except CaseSpecError as error:
        print(f"kpc check: error: {error}", file=sys.stderr)
        return 1
    if not cases:
        print(f"kpc check: error: {args.file} has no KPC_CASES: kpc check needs inputs to call the kernels "
              "with (see kpc/check/spec.py)", file=sys.stderr)
        return 1
    unknown = sorted(set(args.kernel or []) - set(cases))
    if unknown:
        print(f"kpc check: error: no case for {', '.join(unknown)} in {args.file} "
              f"(cases: {', '.join(cases)})", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="kpc-check-") as out:
        signatures = case_signatures(args.file, args.kernel) if args.target == "kokkos" else None
        try:
            report = build(args.file, target=args.target, out=out, space=args.space, signatures=signatures,
                           write_report=False)
        except KpcError as error:
            print_diagnostic(error)
            return 1
        if not report.ok():
            print(report.format_table(color=use_color(sys.stdout)))
            return 1
        for kernel in report.kernels:
            if kernel.status == "numba" and kernel.name in cases:
                print(f"note: {kernel.name} is kept as Numba by the {args.target} target ({kernel.location}: "
                      f"{kernel.reason}); it is compared with itself")
        module = import_path(report.output, name=f"kpc_check_{args.target}_{os.getpid()}_"
                                                  f"{os.path.splitext(os.path.basename(args.file))[0]}")
        ok = True
        for arrays in (("numpy", "cupy") if args.arrays == "both" else (args.arrays,)):
            result = check_file(args.file, module, target=args.target if arrays == "numpy" else
                                f"{args.target}, CuPy arrays", kernels=args.kernel, arrays=arrays)
            print(result.summary())
            ok = ok and result.ok
    return 0 if ok else 1
