"""The diagnostic format every layer shares: place, source line, caret, construct, hint, notes."""

from __future__ import annotations

import doctest

import kpc.ir.diagnostics as diagnostics_module
from kpc.ir.diagnostics import Diagnostic, KpcError, Note
from kpc.ir.nodes import Loc


def test_format_with_span_hint_and_note():
    source = "x = 1\ny = [x, 2]\n"
    error = KpcError.at(Loc("m.py", 2, 4), "unsupported construct 'list' in kernel 'f'", "list",
                        "use a NumPy array", source, end_col=10,
                        notes=[Note("first assigned here", Loc("m.py", 1, 0))])
    assert str(error) == "\n".join([
        "m.py:2:5: error: unsupported construct 'list' in kernel 'f'",
        "y = [x, 2]",
        "    ^~~~~~",
        "m.py:1:1: note: first assigned here",
        "x = 1",
        "^",
        "  hint: use a NumPy array",
    ])
    assert error.loc == Loc("m.py", 2, 4)
    assert error.diagnostic.construct == "list"


def test_source_line_read_from_the_file(tmp_path):
    path = tmp_path / "k.py"
    path.write_text("a = 1\nb = a +\n")
    error = KpcError.at(Loc(str(path), 2, 6), "syntax error", "syntax")
    assert str(error).splitlines()[1:] == ["b = a +", "      ^"]


def test_no_line_no_quote():
    diagnostic = Diagnostic("no such file: x.py", Loc("x.py", 0, 0))
    assert diagnostic.format() == "x.py: error: no such file: x.py"


def test_module_docstring_example():
    result = doctest.testmod(diagnostics_module)
    assert result.attempted > 0 and result.failed == 0
