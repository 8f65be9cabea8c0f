"""``kpc ir``: print a module's kernel IR after any pass of a target's pipeline, as text or JSON."""

from __future__ import annotations

import argparse
import json
import sys

from kpc.cli.common import TARGETS


def add_ir_command(subparsers) -> None:
    parser = subparsers.add_parser(
        "ir",
        help="print the typed kernel IR of a module (after any pass)",
        description=(
            "Parse the Numba kernels of MODULE (read, never run), run the target's pass pipeline up "
            "to --after (default: infer-view-dims, i.e. typed IR with view ranks; with --explain, "
            "the whole pipeline, whose decisions it shows; 'parse' = the frontend's untyped IR) and "
            "print the IR as text or JSON. Kernels kpc cannot translate "
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
    parser.add_argument("--after", metavar="PASS", default=None,
                        help="stop after this pass of the pipeline ('parse': no pass at all; "
                             "default: infer-view-dims, or with --explain the whole pipeline)")
    parser.add_argument("--target", choices=TARGETS, default="kokkos",
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
    if args.after is None:  # --explain: every decision (schedules, host forms, placement)
        args.after = names[-1] if args.explain else "infer-view-dims"
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
