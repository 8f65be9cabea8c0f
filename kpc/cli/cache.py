"""``kpc cache``: list, inspect, clear or prepare the build cache of compiled Kokkos modules."""

from __future__ import annotations

import argparse
import sys

from kpc.cli.common import SPACES, print_diagnostic


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
    parser.add_argument("--space", choices=SPACES, default="openmp",
                        help="prepare: the execution space of the modules to come (default: openmp; cuda: "
                             "their host builds)")
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
