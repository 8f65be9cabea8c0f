"""The effects analysis of the PyKokkos target: its docstring examples run (a parameter written
through a name that swapped with it is written, so a converted copy of it is copied back)."""

import doctest

from kpc.backend.pykokkos import effects


def test_docstring_examples():
    result = doctest.testmod(effects)
    assert result.attempted >= 4 and result.failed == 0
