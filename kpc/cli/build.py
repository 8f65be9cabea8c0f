"""``kpc build``: translate the Numba kernels of Python files to drop-in Kokkos C++ or PyKokkos modules."""

from __future__ import annotations

import argparse
import os
import sys

from kpc.cli.common import TARGETS, Progress, add_space_argument, default_jobs, print_diagnostic, use_color


class _DumpIrAction(argparse.Action):
    """``--dump-ir`` alone: after the whole pipeline; ``--dump-ir PASS``: after that pass.

    A value that names an existing file rather than a pass is a FILE that followed
    ``--dump-ir`` (``kpc build --dump-ir m.py``), so it goes back to the file list."""

    def __call__(self, parser, namespace, value, option_string=None):
        if value is not None and value.endswith(".py") and os.path.exists(value):
            namespace.late_files = getattr(namespace, "late_files", []) + [value]
            value = None
        setattr(namespace, self.dest, value or "all")


def add_build_command(subparsers) -> None:
    parser = subparsers.add_parser(
        "build",
        help="translate the Numba kernels of Python files to Kokkos C++ or PyKokkos",
        description=(
            "Translate the @njit kernels of each FILE for the target and write OUT/<stem>.py, a drop-in "
            "module with the same functions (import it instead of the original), and OUT/<stem>.kpc.json, "
            "the build report (per kernel: translated / kept as Numba / failed, dispatch, policy, "
            "reductions, cache hit or miss, build time), also printed as a table. Kernels kpc cannot "
            "translate stay Numba in the output unless --strict. With signatures (--signature or eager "
            "@njit('...')) the kokkos target compiles ahead of time; otherwise on first call."
        ),
        epilog=("exit status: 0 built; 1 a diagnostic in a FILE (syntax error, ...), an unwritable OUT, a "
                "failed build, or with --strict any kernel kept as Numba; 2 bad arguments"),
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="Python files with @njit kernels (at least one)")
    parser.add_argument("--target", choices=TARGETS, default="kokkos",
                        help="kokkos: Kokkos C++ + pybind11, compiled into the build cache; pykokkos: "
                             "PyKokkos Python (default: kokkos)")
    parser.add_argument("-o", "--out", metavar="DIR", default="kpc_out",
                        help="output directory for <stem>.py and <stem>.kpc.json (default: ./kpc_out)")
    add_space_argument(parser)
    parser.add_argument("--signature", action="append", default=[], metavar="SIG",
                        help="argument types of a kernel, Numba's grammar: 'f(float64[:], int64)'; "
                             "repeatable; the kokkos target compiles these ahead of time")
    parser.add_argument("--dump-ir", nargs="?", const="all", default=None, metavar="PASS", action=_DumpIrAction,
                        help="print each file's IR after PASS (default: after the whole pipeline); "
                             "write --dump-ir=PASS or put it after the files")
    parser.add_argument("--explain", action="store_true",
                        help="print each loop's decision (parallel_for/reduce/scan or serial) and why")
    parser.add_argument("--strict", action="store_true",
                        help="fail (exit 1) when a kernel would be kept as Numba or fails to build")
    parser.add_argument("--no-auto-parallel", dest="auto_parallel", action="store_false",
                        help="parallelize only prange loops, never plain range loops")
    parser.add_argument("-j", "--jobs", type=int, default=default_jobs(), metavar="N",
                        help=f"build up to N files at a time (default: {default_jobs()}, the CPU count up to 4)")
    parser.add_argument("--check-pykokkos", action="store_true",
                        help="pykokkos target: check the output against upstream PyKokkos's rules and print "
                             "every violation (exit 1 if any); with --space cuda, the Cuda-space rules too")
    parser.add_argument("--json", action="store_true", help="print the build reports as JSON instead of tables")
    parser.set_defaults(run=run_build)


def run_build(args: argparse.Namespace) -> int:
    from kpc.build_file import OutputError, prepare_output

    files = list(args.files) + list(getattr(args, "late_files", []))
    if not files:
        print("kpc build: error: give at least one FILE", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("kpc build: error: -j must be at least 1", file=sys.stderr)
        return 2
    if args.target == "kokkos" and args.space == "cuda":
        from kpc.runtime.kokkos import KokkosNotFound, find_kokkos

        try:
            install = find_kokkos()
        except KokkosNotFound as error:
            print(f"kpc build: error: {error}", file=sys.stderr)
            return 2
        if "Cuda" not in install.backends:
            print(f"kpc build: error: --space cuda needs a Kokkos built with CUDA; the Kokkos {install.version} "
                  f"at {install.root} has {', '.join(install.backends)} (scripts/cuda/kokkos_cuda_install.sh "
                  "builds one; point KOKKOS_ROOT at it)", file=sys.stderr)
            return 2
    if args.check_pykokkos and args.target != "pykokkos":
        print("kpc build: error: --check-pykokkos needs --target pykokkos", file=sys.stderr)
        return 2
    signatures, status = _signatures_by_file(files, args.signature)
    if status:
        return status
    args.signatures_by_file = signatures
    files = [path for path in files if _readable(path, args)]
    status = 0 if len(files) == len(signatures) else 1
    try:
        prepare_output(args.out)
    except OutputError as error:
        print(f"kpc build: error: {error}", file=sys.stderr)
        return 1
    for path in files:
        if args.dump_ir is not None or args.explain:
            status = max(status, _print_ir(path, args))
    if status == 2 or not files:
        return status

    from kpc.report import display_path

    reports = _build_all(files, args)
    color = use_color(sys.stdout)
    for path in files:
        outcome = reports[path]
        if isinstance(outcome, BaseException):
            print_diagnostic(outcome)
            status = 1
            continue
        if args.json:
            print(outcome.to_json())
        else:
            print(outcome.format_table(color=color))
            print(f"  report: {display_path(outcome.report_path)}")
        if args.check_pykokkos and outcome.violations:
            status = 1
        if not outcome.ok(strict=args.strict):
            status = 1
    return status


def _readable(path: str, args) -> bool:
    """Whether the frontend reads ``path`` (else its diagnostic is printed: a syntax error, ...)."""
    from kpc.api import load_module
    from kpc.ir.diagnostics import KpcError

    try:
        load_module(path, signatures=args.signatures_by_file[path], strict=args.strict)
    except KpcError as error:
        print_diagnostic(error)
        return False
    return True


def _signatures_by_file(files, signatures) -> tuple:
    """``({path: [signature]}, status)``: each ``--signature`` goes to the files that have that kernel
    (one file: all of them, and the frontend names a wrong one)."""
    from kpc.api import load_module
    from kpc.ir.diagnostics import KpcError
    from kpc.ir.signature import SignatureError, parse_named_signature

    if len(files) == 1 or not signatures:
        return {path: list(signatures) for path in files}, 0
    by_file = {path: [] for path in files}
    for text in signatures:
        try:
            name = parse_named_signature(text).name
        except SignatureError as error:
            print(f"kpc build: error: bad --signature {text!r}: {error}", file=sys.stderr)
            return {}, 1
        matched = False
        for path in files:
            try:
                module = load_module(path)
            except KpcError as error:
                print_diagnostic(error)
                return {}, 1
            if name in module.functions or name in module.rejected:
                by_file[path].append(text)
                matched = True
        if not matched:
            print(f"kpc build: error: --signature {text!r} names no kernel of {', '.join(files)}", file=sys.stderr)
            return {}, 1
    return by_file, 0


def _print_ir(path: str, args) -> int:
    from kpc.api import load_module
    from kpc.ir.diagnostics import KpcError
    from kpc.ir.printer import format_module
    from kpc.ir.verifier import verify
    from kpc.passes.manager import PassContext, UnknownPass, pipeline, run_pipeline
    from kpc.pipeline import explain_decisions

    after = None if args.dump_ir in (None, "all") else args.dump_ir
    names = pipeline(args.target)
    if after is not None and after != "parse" and after not in names:
        print(f"kpc build: error: no pass {after!r} in the {args.target} pipeline (passes: parse, "
              f"{', '.join(names)})", file=sys.stderr)
        return 2
    try:
        if args.dump_ir is not None:
            module = load_module(path, signatures=args.signatures_by_file[path])
            if after != "parse":
                run_pipeline(module, PassContext(target=args.target, auto_parallel=args.auto_parallel, verify=True),
                             after=after, verifier=verify)
            print(f"== IR of {path} after {after or 'the ' + args.target + ' pipeline'}")
            sys.stdout.write(format_module(module))
        if args.explain:
            decided = explain_decisions(path, args.signatures_by_file[path], args.target, args.auto_parallel)
            print(f"== decisions for {path} ({args.target})")
            print(decided)
    except KpcError as error:
        print_diagnostic(error)
        return 1
    except UnknownPass as error:
        print(f"kpc build: error: {error.args[0]}", file=sys.stderr)
        return 2
    return 0


def _build_all(files, args) -> dict:
    """path -> BuildReport, or the exception that stopped that file (a KpcError, ...)."""
    from concurrent.futures import ThreadPoolExecutor

    from kpc.build_file import build

    progress = Progress(len(files))
    what = "building" if args.target == "kokkos" else "translating"

    def one(path):
        progress.start(path, what)
        try:
            report = build(path, target=args.target, out=args.out, space=args.space,
                           signatures=args.signatures_by_file[path] or None, strict=args.strict,
                           auto_parallel=args.auto_parallel)
        except Exception as error:  # shown after the batch, with the file's diagnostic
            progress.finish(path, "error")
            return error
        progress.finish(path, "built" if report.ok() else "failed")
        return report

    try:
        with ThreadPoolExecutor(max_workers=min(args.jobs, len(files))) as pool:
            results = list(pool.map(one, files))
    finally:
        progress.close()
    return dict(zip(files, results))
