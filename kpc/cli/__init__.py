"""The ``kpc`` command line.

Each subcommand is a module of this package with a pair of functions:
``add_<name>_command(subparsers)`` declares its arguments and sets ``run=<function>``;
the run function takes the parsed arguments and returns the exit status. What the
subcommands share (target and space choices, diagnostics, progress) is in
``kpc.cli.common``. To add a subcommand, write its module and list its ``add_...``
function in ``SUBCOMMANDS``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from kpc import __version__
from kpc.cli.bench import add_bench_command
from kpc.cli.build import add_build_command
from kpc.cli.cache import add_cache_command
from kpc.cli.check import add_check_command
from kpc.cli.doctor import add_doctor_command
from kpc.cli.fuzz import add_fuzz_command
from kpc.cli.ir import add_ir_command

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
