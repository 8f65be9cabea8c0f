"""The examples in the docstrings of the PyKokkos device-code lowering run as written."""

import doctest

import pytest

from kpc.backend.pykokkos import device_expressions, device_statements


@pytest.mark.parametrize("module", [device_expressions, device_statements], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0
