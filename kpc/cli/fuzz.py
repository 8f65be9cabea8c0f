"""``kpc fuzz``: generate random Numba kernels, build them with kpc and compare them with Numba."""

from __future__ import annotations

import argparse
import sys

from kpc.cli.common import HOST_SPACES


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
    parser.add_argument("--space", choices=HOST_SPACES, default="openmp",
                        help="Kokkos execution space the kernels run in (default: openmp)")
    parser.add_argument("--no-numpy", action="store_true", help="generate no NumPy array expressions")
    parser.add_argument("--no-division-by-zero", action="store_true",
                        help="divide only by divisors that cannot be zero (no ZeroDivisionError, inf or nan)")
    parser.add_argument("--no-broadcast", action="store_true",
                        help="NumPy expressions over equally shaped operands only (no size-1 extents, no ranks mix)")
    parser.add_argument("--constructs", choices=("off", "mix", "only"), default="mix",
                        help="kernels of issue 32's constructs (masks, rank rebinding, sorts and quantiles, array "
                             "functions, allocations in prange, double buffers, nested tuples, helpers of two ranks): "
                             "none, one in three (default) or all")
    parser.add_argument("--resume", action="store_true",
                        help="go on from the modules DIR/summary.json counts (a campaign stopped between modules, "
                             "same --seed, --batch, --constructs and --space)")
    parser.set_defaults(run=run_fuzz)


def run_fuzz(args: argparse.Namespace) -> int:
    from kpc.fuzz.campaign import run_campaign
    from kpc.fuzz.expressions import FuzzOptions

    if args.kernels < 1 or args.batch < 1 or args.seed < 0:
        print("kpc fuzz: error: --kernels and --batch must be at least 1, --seed at least 0 "
              "(it is part of the kernels' names)", file=sys.stderr)
        return 2
    options = FuzzOptions(numpy=not args.no_numpy, float_division_by_zero=not args.no_division_by_zero,
                          broadcast_size_one=not args.no_broadcast, constructs=args.constructs)
    tally = run_campaign(args.kernels, args.seed, args.batch, args.out, options, space=args.space,
                         log=lambda line: print(line, file=sys.stderr), resume=args.resume)
    for failure in tally.failures:
        print(f"{failure['status']}: {failure['kernel']}: {failure['message'].splitlines()[0][:200]}\n"
              f"  reproducer: {failure['reproducer']}")
    print(tally.line())
    return 0 if not (tally.mismatches or tally.crashes) else 1
