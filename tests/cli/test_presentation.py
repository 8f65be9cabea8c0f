"""Colours only on a terminal without NO_COLOR; the diagnostic keeps its text when painted."""

from __future__ import annotations

import io

from kpc.cli.common import Progress, use_color
from kpc.report import paint_diagnostic

DIAGNOSTIC = "m.py:3:10: error: unsupported construct 'list' in kernel 'f'\n    xs = [1, 2]\n         ^~~~~~\n  hint: x"


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_colour_only_on_a_terminal_without_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(FakeTerminal()) and not use_color(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(FakeTerminal())


def test_painted_diagnostic_keeps_the_text():
    painted = paint_diagnostic(DIAGNOSTIC, True)
    assert "\033[31;1merror\033[0m" in painted and "\033[32m         ^~~~~~\033[0m" in painted
    assert paint_diagnostic(DIAGNOSTIC, False) == DIAGNOSTIC
    assert __import__("re").sub(r"\033\[[0-9;]*m", "", painted) == DIAGNOSTIC


def test_progress_plain_lines_off_a_terminal():
    stream = io.StringIO()
    progress = Progress(2, stream)
    progress.start("a.py", "building")
    progress.start("b.py", "building")
    progress.finish("b.py", "built")
    progress.finish("a.py", "built")
    progress.close()
    lines = stream.getvalue().splitlines()
    assert lines[:3] == ["kpc: [1/2] building a.py ...", "kpc: [2/2] building b.py ...", lines[2]]
    assert lines[2].startswith("kpc: [1/2] b.py: built (") and lines[3].startswith("kpc: [2/2] a.py: built (")


def test_progress_bar_on_a_terminal():
    stream = FakeTerminal()
    progress = Progress(1, stream)
    progress.start("a.py", "building")
    progress.finish("a.py", "built")
    progress.close()
    assert "[########################] 1/1" in stream.getvalue() and "\r\033[K" in stream.getvalue()
