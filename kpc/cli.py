"""The ``kpc`` command line.

Each subcommand is a pair of functions: ``add_<name>_command(subparsers)`` declares
its arguments and sets ``run=<function>``; the run function takes the parsed
arguments and returns the exit status. To add a subcommand, write that pair and
list its ``add_...`` function in ``SUBCOMMANDS``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import threading
import time
from importlib import metadata
from typing import Optional, Sequence

from kpc import __version__


def add_doctor_command(subparsers) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check the environment: Python packages, Kokkos, C++ compiler, cache",
        description=(
            "Print what kpc will build with: Python, numba and numpy versions; the Kokkos "
            "install found (where, how, version, backends, C++ standard); the C++ compiler and its "
            "flags; what kpc knows this Kokkos and compiler cannot do or need; the cache directory. "
            "Exits 1 with a fix when something is missing."
        ),
    )
    parser.set_defaults(run=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    from kpc.runtime.cache_dir import cache_root
    from kpc.runtime.kokkos import KokkosNotFound, find_kokkos, known_limits
    from kpc.runtime.toolchain import ToolchainError, toolchain_cache_file, toolchain_for

    problems = []
    print(f"kpc {__version__}")
    print(f"Python      {platform.python_version()} ({sys.executable})")
    for package in ("numba", "numpy", "pybind11"):
        try:
            version = metadata.version(package)
        except metadata.PackageNotFoundError:
            version = "MISSING"
            problems.append(f"{package} is not installed: pip install {package}")
        print(f"{package:<11} {version}")

    print(f"Cache dir   {cache_root()}")

    try:
        install = find_kokkos()
    except KokkosNotFound as error:
        print("Kokkos      NOT FOUND")
        problems.append(str(error))
        return _report(problems)
    print(install.describe())

    try:
        toolchain = toolchain_for(install)
    except ToolchainError as error:
        print("Compiler    UNKNOWN (toolchain probe failed)")
        problems.append(str(error))
        return _report(problems)
    print(f"Compiler    {toolchain.compiler} ({toolchain.compiler_id} {toolchain.compiler_version})")
    print(f"  compile     {' '.join(toolchain.compile_flags())}")
    print(f"  link        {' '.join(toolchain.link_flags)}")
    print(f"  probed by   {toolchain.cmake}; cached in {toolchain_cache_file(install)}")
    limits = known_limits(install, toolchain.compiler_id, toolchain.compiler_version)
    for index, limit in enumerate(limits or [f"{install.summary()}: none known to kpc"]):
        print(f"{'Limits' if index == 0 else '':<11} {limit}")
    return _report(problems)


def _report(problems: Sequence[str]) -> int:
    if not problems:
        print("\nAll good: kpc can build Kokkos modules here.")
        return 0
    print()
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    return 1


def add_ir_command(subparsers) -> None:
    parser = subparsers.add_parser(
        "ir",
        help="print the typed kernel IR of a module (after any pass)",
        description=(
            "Parse the Numba kernels of MODULE (read, never run), run the target's pass pipeline up "
            "to --after (default: infer-view-dims, i.e. typed IR with view ranks; 'parse' = the "
            "frontend's untyped IR) and print the IR as text or JSON. Kernels kpc cannot translate "
            "are listed as 'rejected' (they stay Numba) unless --strict. Exit 0 on success, 1 on a "
            "diagnostic (printed to stderr with file:line:col)."
        ),
    )
    parser.add_argument("module", nargs="?", help="the Python file with @njit kernels")
    parser.add_argument("--signature", action="append", default=[], metavar="SIG",
                        help="argument types of a kernel, Numba's grammar: 'name(float64[:, :], int64)' "
                             "(optionally '-> float64'); repeatable. Kernels without one use their eager "
                             "signature, else generic types (recorded as assumptions)")
    parser.add_argument("--function", metavar="NAME", help="print only this function")
    parser.add_argument("--after", metavar="PASS", default="infer-view-dims",
                        help="stop after this pass of the pipeline ('parse': no pass at all; "
                             "default: infer-view-dims)")
    parser.add_argument("--target", choices=("kokkos", "pykokkos"), default="kokkos",
                        help="whose pipeline to run (default: kokkos)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--passes", action="store_true", help="print the target's pipeline and exit")
    parser.add_argument("--strict", action="store_true",
                        help="fail on the first kernel that cannot be translated")
    parser.add_argument("--explain", action="store_true", help="show why each loop is parallel or serial")
    parser.set_defaults(run=run_ir)


def run_ir(args: argparse.Namespace) -> int:
    from kpc.api import load_module
    from kpc.ir.diagnostics import KpcError
    from kpc.ir.printer import format_function, format_module
    from kpc.ir.serialize import to_dict, to_json
    from kpc.ir.verifier import verify
    from kpc.passes.manager import PASSES, PassContext, UnknownPass, pipeline, run_pipeline

    names = pipeline(args.target)
    if args.passes:
        from kpc.passes.manager import _load_all

        _load_all()
        for name in names:
            print(name if name in PASSES else f"{name}   (not implemented yet)")
        return 0
    if args.module is None:
        print("kpc ir: error: give a module (or --passes)", file=sys.stderr)
        return 1
    if args.after != "parse" and args.after not in names:
        print(f"kpc ir: error: no pass {args.after!r} in the {args.target} pipeline "
              f"(passes: parse, {', '.join(names)})", file=sys.stderr)
        return 1
    ctx = PassContext(target=args.target, verify=True)
    try:
        module = load_module(args.module, signatures=args.signature, strict=args.strict)
        if args.after != "parse":
            run_pipeline(module, ctx, after=args.after, verifier=verify)
    except KpcError as error:
        print(error, file=sys.stderr)
        return 1
    except UnknownPass as error:
        print(f"kpc ir: error: {error.args[0]}", file=sys.stderr)
        return 1
    for warning in ctx.warnings:
        print(warning, file=sys.stderr)
    if args.strict and module.rejected:
        print(next(iter(module.rejected.values())).diagnostic, file=sys.stderr)
        return 1
    if args.function is not None:
        if args.function in module.rejected:
            print(module.rejected[args.function].diagnostic, file=sys.stderr)
            return 1
        if args.function not in module.functions:
            known = ", ".join(module.functions) or "none"
            print(f"kpc ir: error: no kernel {args.function!r} in {args.module} (kernels: {known})",
                  file=sys.stderr)
            return 1
    if args.format == "json":
        if args.function is None:
            print(to_json(module, indent=1))
        else:
            data = to_dict(module)
            data["functions"] = [f for f in data["functions"] if f["name"] == args.function]
            print(json.dumps(data, indent=1))
    elif args.function is None:
        sys.stdout.write(format_module(module, show_decisions=args.explain))
    else:
        print(format_function(module.functions[args.function], show_decisions=args.explain))
    return 0


def add_cache_command(subparsers) -> None:
    parser = subparsers.add_parser(
        "cache",
        help="list, inspect or clear the build cache of compiled Kokkos modules",
        description=(
            "The build cache ($KPC_CACHE_DIR, default ~/.cache/kpc) holds one folder per compiled "
            "module: generated C++, the extension, and a manifest with its checksum. "
            "'ls' lists entries, and the argument-type signatures that ran as Numba at a call "
            "because kpc could not type or compile them ('numba' lines), 'info KEY' shows one entry "
            "(a key prefix is enough) and verifies it, "
            "'clear [KEY]' removes one entry or all of them (all: with the precompiled headers, kpc's "
            "support library and Numba's cache of the user files kpc imported). "
            "'prepare' builds now, for this toolchain, what the first compiled module would build "
            "beside its own compile (kpc's support library, about 9 s on 2 cores, and the precompiled "
            "header): run it once after installing, and first calls compile only their module."
        ),
    )
    parser.add_argument("action", choices=("ls", "info", "clear", "prepare"))
    parser.add_argument("key", nargs="?", default="", help="a cache key or a prefix of one")
    parser.add_argument("--space", choices=("openmp", "serial"), default="openmp",
                        help="prepare: the execution space of the modules to come (default: openmp)")
    parser.add_argument("--fastmath", action="store_true",
                        help="prepare: for modules whose functions all have fastmath=True (other flags)")
    parser.set_defaults(run=run_cache)


def run_cache(args: argparse.Namespace) -> int:
    from kpc.runtime.cache import BuildCache, format_entry, format_listing

    if args.action == "prepare":
        return _prepare(args)
    cache = BuildCache()
    if args.action == "ls":
        print(format_listing(cache))
        return 0
    if args.action == "clear":
        removed = cache.clear(args.key)
        print(f"removed {removed} entr{'y' if removed == 1 else 'ies'} from {cache.root}")
        return 0
    found = cache.find(args.key) if args.key else []
    if len(found) != 1:
        what = "no entry" if not found else f"{len(found)} entries"
        print(f"error: {what} with a key starting with {args.key!r} in {cache.root}", file=sys.stderr)
        return 1
    print(format_entry(*found[0]))
    return 0


def _prepare(args: argparse.Namespace) -> int:
    from kpc.api import prepare_toolchain

    try:
        done = prepare_toolchain(args.space, args.fastmath)
    except RuntimeError as error:  # no Kokkos for the space, or the compiler failed
        print_diagnostic(f"error: kpc cache prepare: {error}")
        return 1
    print(f"support library: {done['support']}")
    print(f"precompiled header: {done['pch'] or 'none (KPC_PCH=0, or not a GCC toolchain)'}")
    print(f"ready in {done['seconds']:.1f} s")
    return 0


# --------------------------------------------------------------------------- presentation helpers


def use_color(stream=None) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    stream = stream if stream is not None else sys.stderr
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def print_diagnostic(error, prefix: str = "") -> None:
    """A ``KpcError`` (or any message) on stderr, coloured on a terminal."""
    from kpc.report import paint_diagnostic

    print(prefix + paint_diagnostic(str(error), use_color()), file=sys.stderr)


class Progress:
    """Progress of a batch of builds on stderr: a bar redrawn in place on a terminal, plain
    ``kpc: [i/n] ...`` lines otherwise (logs, CI)."""

    def __init__(self, total: int, stream=None):
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.live = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.done = 0
        self.started = 0
        self.running: dict = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker = None
        if self.live:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    def start(self, name: str, what: str) -> None:
        with self._lock:
            self.running[name] = (what, time.monotonic())
            self.started += 1
            if not self.live:
                print(f"kpc: [{self.started}/{self.total}] {what} {name} ...", file=self.stream, flush=True)

    def finish(self, name: str, outcome: str) -> None:
        with self._lock:
            what, since = self.running.pop(name, ("", time.monotonic()))
            self.done += 1
            line = f"kpc: [{self.done}/{self.total}] {name}: {outcome} ({time.monotonic() - since:.1f} s)"
            if self.live:
                self.stream.write("\r\033[K" + line + "\n")
                self._draw()
            else:
                print(line, file=self.stream, flush=True)

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            with self._lock:
                self.stream.write("\r\033[K")
                self.stream.flush()

    def _tick(self) -> None:
        while not self._stop.wait(0.25):
            with self._lock:
                self._draw()

    def _draw(self) -> None:
        width = 24
        filled = width * self.done // max(1, self.total)
        now = time.monotonic()
        busy = ", ".join(f"{what} {name} {now - since:.0f} s" for name, (what, since) in self.running.items())
        self.stream.write(f"\r\033[K[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {busy}")
        self.stream.flush()


def _default_jobs() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def _space_argument(parser) -> None:
    parser.add_argument("--space", choices=("openmp", "serial", "cuda"), default=None,
                        help="execution space (default: openmp for the kokkos target; for the pykokkos "
                             "target, PyKokkos's own default space, chosen when the output runs). "
                             "pykokkos + cuda: policies name pk.Cuda and the callers pass CuPy arrays "
                             "(the output needs cupy)")


# --------------------------------------------------------------------------- kpc build


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
    parser.add_argument("--target", choices=("kokkos", "pykokkos"), default="kokkos",
                        help="kokkos: Kokkos C++ + pybind11, compiled into the build cache; pykokkos: "
                             "PyKokkos Python (default: kokkos)")
    parser.add_argument("-o", "--out", metavar="DIR", default="kpc_out",
                        help="output directory for <stem>.py and <stem>.kpc.json (default: ./kpc_out)")
    _space_argument(parser)
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
    parser.add_argument("-j", "--jobs", type=int, default=_default_jobs(), metavar="N",
                        help=f"build up to N files at a time (default: {_default_jobs()}, the CPU count up to 4)")
    parser.add_argument("--check-pykokkos", action="store_true",
                        help="pykokkos target: check the output against upstream PyKokkos's rules and print "
                             "every violation (exit 1 if any); with --space cuda, the Cuda-space rules too")
    parser.add_argument("--json", action="store_true", help="print the build reports as JSON instead of tables")
    parser.set_defaults(run=run_build)


def run_build(args: argparse.Namespace) -> int:
    from kpc.driver import OutputError, prepare_output

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
    from kpc.ir.signature import SignatureError, parse_signature

    if len(files) == 1 or not signatures:
        return {path: list(signatures) for path in files}, 0
    by_file = {path: [] for path in files}
    for text in signatures:
        try:
            name = parse_signature(text).name
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
    from kpc.passes.explain import explain
    from kpc.passes.manager import PassContext, UnknownPass, pipeline, run_pipeline

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
            module = load_module(path, signatures=args.signatures_by_file[path])
            run_pipeline(module, PassContext(target=args.target, auto_parallel=args.auto_parallel))
            print(f"== decisions for {path} ({args.target})")
            print(explain(module))
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

    from kpc.driver import build

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


# --------------------------------------------------------------------------- kpc check

EXIT_TARGET_UNAVAILABLE = 3


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
    parser.add_argument("--target", choices=("kokkos", "pykokkos"), default="kokkos",
                        help="which kpc output to check against Numba (default: kokkos)")
    _space_argument(parser)
    parser.add_argument("--kernel", action="append", metavar="NAME",
                        help="check only this kernel (repeatable; default: every kernel in KPC_CASES)")
    parser.add_argument("--arrays", choices=("numpy", "cupy", "both"), default="numpy",
                        help="array arguments the build is called with: cupy = CuPy copies of the inputs "
                             "(needs --space cuda; writes and returns are compared on the host), both = "
                             "NumPy then CuPy (default: numpy)")
    parser.set_defaults(run=run_check)


def run_check(args: argparse.Namespace) -> int:
    import tempfile

    from kpc.check.runner import check_file, import_path
    from kpc.check.spec import CaseSpecError, load_cases
    from kpc.driver import build
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


def case_signatures(path, kernels=None) -> list:
    """Numba signature strings of every input variant ``check_file`` runs, so one ahead-of-time
    build covers them (the same selection as ``kpc.check.runner.default_selection``)."""
    from kpc.check.inputs import make_inputs
    from kpc.check.runner import default_selection
    from kpc.check.spec import load_cases
    from kpc.runtime.dispatch import format_type, typeof

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


# --------------------------------------------------------------------------- kpc bench


def parse_sizes(texts) -> list:
    """Size assignments from ``--sizes`` values: ``n=1000,n=10000`` is two runs; a repeated name
    starts the next assignment, so ``n=10,m=5,n=100,m=50`` is two runs of two names each.

    >>> parse_sizes(["n=1000,n=10000"])
    [{'n': 1000}, {'n': 10000}]
    >>> parse_sizes(["n=10,m=5,n=100,m=50", "n=7,m=1"])
    [{'n': 10, 'm': 5}, {'n': 100, 'm': 50}, {'n': 7, 'm': 1}]
    """
    runs = []
    for text in texts:
        current: dict = {}
        for item in text.split(","):
            name, sep, value = item.strip().partition("=")
            if not sep or not name.strip().isidentifier():
                raise ValueError(f"bad size {item!r}: expected NAME=INTEGER, e.g. n=1000")
            try:
                number = int(float(value)) if "e" in value.lower() else int(value)
            except ValueError:
                raise ValueError(f"bad size {item!r}: {value!r} is not an integer") from None
            if number < 0:
                raise ValueError(f"bad size {item!r}: sizes are not negative")
            if name.strip() in current:
                runs.append(current)
                current = {}
            current[name.strip()] = number
        if current:
            runs.append(current)
    return runs


def add_bench_command(subparsers) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="time a file's kernels under Numba and a kpc target across sizes",
        description=(
            "Build FILE for the target, then for each kernel of its KPC_CASES (or --kernel) and each size "
            "check that the target agrees with Numba and time both, alternating runs; write "
            "results.json, results.md and results.png to --out and print the table. Speed-up = Numba "
            "time / kpc time (above 1: kpc is faster), from best-of-n and from medians."
        ),
        epilog="exit status: 0 done; 1 a build error, a disagreement with Numba or bad sizes; 2 bad arguments",
    )
    parser.add_argument("file", metavar="FILE", help="a Python file with @njit kernels and a KPC_CASES block")
    parser.add_argument("--kernel", action="append", metavar="NAME",
                        help="time only this kernel (repeatable; default: every kernel in KPC_CASES)")
    parser.add_argument("--sizes", action="append", metavar="NAME=N,...",
                        help="sizes to time, e.g. --sizes n=1000,n=10000 (two runs); a repeated name starts "
                             "a new run: n=10,m=5,n=100,m=50 (default: the sizes in KPC_CASES)")
    parser.add_argument("--target", choices=("kokkos", "pykokkos", "all"), default="kokkos",
                        help="the kpc target timed against Numba; all: the Kokkos C++ and the PyKokkos "
                             "targets, both in the same interleaved runs as Numba (default: kokkos)")
    _space_argument(parser)
    parser.add_argument("--dtype", metavar="DTYPE", help="element type (default: each kernel's first KPC_CASES dtype)")
    parser.add_argument("--repeats", type=int, default=7, metavar="N", help="timed runs per contender (default: 7)")
    parser.add_argument("--budget", type=float, default=20.0, metavar="SECONDS",
                        help="stop timing a size after this long, keeping at least 3 runs (default: 20)")
    parser.add_argument("--arrays", choices=("numpy", "cupy"), default="numpy",
                        help="array arguments the kpc target is timed on: cupy = device arrays made once "
                             "before timing, so --space cuda runs without host-device copies (agreement "
                             "with Numba is still checked on NumPy arrays; default: numpy)")
    parser.add_argument("--bytes", metavar="EXPR", default=None,
                        help="bytes one call moves, as a size expression (e.g. '24 * n' for a triad): "
                             "adds GB/s columns to results.json")
    parser.add_argument("--out", metavar="DIR", default="kpc_bench",
                        help="where results.json, results.md and results.png go (default: ./kpc_bench)")
    parser.set_defaults(run=run_bench)


def run_bench(args: argparse.Namespace) -> int:
    import tempfile

    from kpc.bench.report import to_markdown, write
    from kpc.bench.suite import Entry, run_entry
    from kpc.check.inputs import make_inputs
    from kpc.check.runner import import_path
    from kpc.check.spec import CaseSpecError, load_cases
    from kpc.driver import OutputError, build, prepare_output
    from kpc.ir.diagnostics import KpcError
    from kpc.runtime.dispatch import format_type, typeof

    if args.repeats < 1:
        print("kpc bench: error: --repeats must be at least 1", file=sys.stderr)
        return 2
    if args.arrays == "cupy" and args.space != "cuda":
        print("kpc bench: error: --arrays cupy needs --space cuda", file=sys.stderr)
        return 2
    if not os.path.isfile(args.file):
        print(f"kpc bench: error: no such file: {args.file}", file=sys.stderr)
        return 1
    if args.arrays == "cupy":
        try:
            import cupy  # noqa: F401
        except Exception as error:
            print(f"kpc bench: error: --arrays cupy: importing cupy failed ({type(error).__name__}: {error})",
                  file=sys.stderr)
            return 1
    targets = ["kokkos", "pykokkos"] if args.target == "all" else [args.target]
    if "pykokkos" in targets:
        try:
            import pykokkos  # noqa: F401
        except Exception as error:
            print(f"kpc bench: cannot time the pykokkos target here: importing pykokkos failed "
                  f"({type(error).__name__}: {error}); nothing was timed.", file=sys.stderr)
            return EXIT_TARGET_UNAVAILABLE
    try:
        cases = load_cases(args.file).cases
        sizes = parse_sizes(args.sizes) if args.sizes else None
    except (CaseSpecError, ValueError) as error:
        print(f"kpc bench: error: {error}", file=sys.stderr)
        return 1
    kernels = args.kernel or list(cases)
    unknown = [k for k in kernels if k not in cases]
    if unknown or not kernels:
        print(f"kpc bench: error: no case for {', '.join(unknown) or 'any kernel'} in {args.file} "
              f"(cases: {', '.join(cases) or 'none'})", file=sys.stderr)
        return 1
    try:
        out = prepare_output(args.out)
    except OutputError as error:
        print(f"kpc bench: error: {error}", file=sys.stderr)
        return 1

    entries, signatures = [], []
    for kernel in kernels:
        case = cases[kernel]
        dtype = args.dtype or case.dtypes[0]
        if dtype not in case.dtypes:
            print(f"kpc bench: error: {kernel} is not meant for {dtype} (KPC_CASES dtypes: "
                  f"{', '.join(case.dtypes)})", file=sys.stderr)
            return 1
        runs = sizes or [s for s in case.sizes if all(v > 0 for v in s.values())] or list(case.sizes)
        missing = [name for name in case.sizes[0] if any(name not in run for run in runs)]
        if missing:
            print(f"kpc bench: error: {kernel} needs sizes for {', '.join(missing)} (e.g. --sizes "
                  f"{','.join(f'{m}=1000' for m in case.sizes[0])})", file=sys.stderr)
            return 1
        key = "n" if "n" in runs[0] else next(iter(runs[0]))
        entries.append(Entry(os.path.abspath(args.file), kernel, runs, size_key=key, dtype=dtype,
                             bytes_per_call=args.bytes))
        inputs = make_inputs(case, dtype, runs[0], "C")
        signatures.append(f"{kernel}({', '.join(format_type(typeof(a)) for a in inputs.args())})")

    with tempfile.TemporaryDirectory(prefix="kpc-bench-") as build_dir:
        modules, kept = {}, set()
        for target in targets:
            try:
                report = build(args.file, target=target, out=os.path.join(build_dir, target), space=args.space,
                               signatures=signatures, write_report=False)
            except KpcError as error:
                print_diagnostic(error)
                return 1
            if not report.ok():
                print(report.format_table(color=use_color(sys.stdout)))
                return 1
            kept |= {k.name for k in report.kernels if k.status == "numba"}
            modules[target] = import_path(report.output, name=f"kpc_bench_{target}_{os.getpid()}_"
                                                              f"{os.path.splitext(os.path.basename(args.file))[0]}")
        rows = []
        try:
            for entry in entries:
                rows += run_entry(entry, modules, repeats=args.repeats, budget_s=args.budget,
                                  log=lambda line: print(line, file=sys.stderr),
                                  device_arrays=args.arrays == "cupy")
        except AssertionError as error:
            print(f"kpc bench: error: {error}", file=sys.stderr)
            return 1
    meta = {"source": os.path.abspath(args.file), "target": args.target, "space": args.space,
            "arrays": args.arrays, "bytes_per_call": args.bytes, "repeats": args.repeats,
            "kept_as_numba": sorted(kept)}
    paths = write(rows, meta, out)
    print(to_markdown(rows), end="")
    print(f"results: {paths['json']}, {paths['md']}, {paths['png']}")
    return 0


# --------------------------------------------------------------------------- kpc fuzz


def add_fuzz_command(subparsers) -> None:
    parser = subparsers.add_parser(
        "fuzz",
        help="generate random Numba kernels, build them through kpc and compare with Numba",
        description=(
            "Generate --kernels random race-free Numba kernels (loops, prange, reductions, if/else, "
            "break/continue, math functions, / // and % by divisors that may be zero, helper calls, NumPy "
            "expressions that broadcast operands of ranks 1..3 with size-1 extents) in modules of "
            "--batch kernels, build each module once with the Kokkos target, run every translated kernel "
            "beside Numba on generated inputs and print 'N kernels: M matched, K kept as Numba (reasons), "
            "X mismatches, Y crashes'. A kernel raising (ZeroDivisionError, broadcasting's ValueError) "
            "matches when Numba raises the same exception type. The same --seed generates the same kernels. "
            "Each mismatching or crashing kernel is written to DIR/repro/<kernel>.py, a standalone file with "
            "its KPC_CASES that `kpc check` replays. Several campaigns may run at once with one "
            "KPC_CACHE_DIR, each with its own --out."
        ),
        epilog="exit status: 0 no mismatch and no crash; 1 otherwise; 2 bad arguments",
    )
    parser.add_argument("--kernels", type=int, default=100, metavar="N", help="kernels to generate (default: 100)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default: 0)")
    parser.add_argument("--batch", type=int, default=25, metavar="K",
                        help="kernels per generated module, so per C++ compile (default: 25)")
    parser.add_argument("--out", metavar="DIR", default="kpc_fuzz",
                        help="modules, builds, reproducers and summary.json go here (default: ./kpc_fuzz)")
    parser.add_argument("--space", choices=("openmp", "serial"), default="openmp",
                        help="Kokkos execution space the kernels run in (default: openmp)")
    parser.add_argument("--no-numpy", action="store_true", help="generate no NumPy array expressions")
    parser.add_argument("--no-division-by-zero", action="store_true",
                        help="divide only by divisors that cannot be zero (no ZeroDivisionError, inf or nan)")
    parser.add_argument("--no-broadcast", action="store_true",
                        help="NumPy expressions over equally shaped operands only (no size-1 extents, no ranks mix)")
    parser.set_defaults(run=run_fuzz)


def run_fuzz(args: argparse.Namespace) -> int:
    from kpc.fuzz.campaign import run_campaign
    from kpc.fuzz.expressions import FuzzOptions

    if args.kernels < 1 or args.batch < 1 or args.seed < 0:
        print("kpc fuzz: error: --kernels and --batch must be at least 1, --seed at least 0 "
              "(it is part of the kernels' names)", file=sys.stderr)
        return 2
    options = FuzzOptions(numpy=not args.no_numpy, float_division_by_zero=not args.no_division_by_zero,
                          broadcast_size_one=not args.no_broadcast)
    tally = run_campaign(args.kernels, args.seed, args.batch, args.out, options, space=args.space,
                         log=lambda line: print(line, file=sys.stderr))
    for failure in tally.failures:
        print(f"{failure['status']}: {failure['kernel']}: {failure['message'].splitlines()[0][:200]}\n"
              f"  reproducer: {failure['reproducer']}")
    print(tally.line())
    return 0 if not (tally.mismatches or tally.crashes) else 1


SUBCOMMANDS = (add_doctor_command, add_ir_command, add_cache_command, add_build_command, add_check_command,
               add_bench_command, add_fuzz_command)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kpc",
        description="Compile Numba kernels (@numba.njit) to Kokkos: C++ with pybind11, or PyKokkos Python.",
    )
    parser.add_argument("--version", action="version", version=f"kpc {__version__}")
    subparsers = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    for add_command in SUBCOMMANDS:
        add_command(subparsers)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help()
        return 2
    try:
        return args.run(args)
    except BrokenPipeError:  # `kpc cache ls | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        print("kpc: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
