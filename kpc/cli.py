"""The ``kpc`` command line.

Each subcommand is a pair of functions: ``add_<name>_command(subparsers)`` declares
its arguments and sets ``run=<function>``; the run function takes the parsed
arguments and returns the exit status. To add a subcommand, write that pair and
list its ``add_...`` function in ``SUBCOMMANDS``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from importlib import metadata
from typing import Optional, Sequence

from kpc import __version__


def add_doctor_command(subparsers) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check the environment: Python packages, Kokkos, C++ compiler, cache",
        description=(
            "Print what kpc will build with: Python, numba and numpy versions; the Kokkos "
            "install found (where, how, version, backends); the C++ compiler and its flags; "
            "the cache directory. Exits 1 with a fix when something is missing."
        ),
    )
    parser.set_defaults(run=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    from kpc.runtime.cache_dir import cache_root
    from kpc.runtime.kokkos import KokkosNotFound, find_kokkos
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
            "'ls' lists entries, 'info KEY' shows one (a key prefix is enough) and verifies it, "
            "'clear [KEY]' removes one entry or all of them."
        ),
    )
    parser.add_argument("action", choices=("ls", "info", "clear"))
    parser.add_argument("key", nargs="?", default="", help="a cache key or a prefix of one")
    parser.set_defaults(run=run_cache)


def run_cache(args: argparse.Namespace) -> int:
    from kpc.runtime.cache import BuildCache, format_entry, format_listing

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


SUBCOMMANDS = (add_doctor_command, add_ir_command, add_cache_command)


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
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
