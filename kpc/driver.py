"""The old import path of ``kpc.build_file``, kept while kpc/cli/{build,bench,check}.py and kpc/fuzz import it."""

from kpc.build_file import OutputError, build, prepare_output  # noqa: F401
