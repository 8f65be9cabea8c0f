"""``kpc bench``: time a file's kernels under Numba and a kpc target across sizes."""

from __future__ import annotations

import argparse
import os
import sys

from kpc.cli.common import EXIT_TARGET_UNAVAILABLE, TARGETS, add_space_argument, print_diagnostic, use_color


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
    parser.add_argument("--target", choices=TARGETS + ("all",), default="kokkos",
                        help="the kpc target timed against Numba; all: the Kokkos C++ and the PyKokkos "
                             "targets, both in the same interleaved runs as Numba (default: kokkos)")
    add_space_argument(parser)
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
    from kpc.build_file import OutputError, build, prepare_output
    from kpc.ir.diagnostics import KpcError
    from kpc.runtime.argument_types import format_type, typeof

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
