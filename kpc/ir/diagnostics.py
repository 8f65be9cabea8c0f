"""Diagnostics: what kpc says when it cannot translate something, pointing at the user's code.

A ``Diagnostic`` names the place (file:line:col), quotes the source line with a
caret under the construct, names the construct and says what to change. Every
layer raises ``KpcError(diagnostic)``; the CLI prints ``str(error)`` and exits 1.

>>> d = Diagnostic("unsupported construct 'list' in kernel 'f'", Loc("m.py", 3, 9),
...                construct="list", hint="use a NumPy array",
...                source_line="    xs = [1, 2]", end_col=15)
>>> print(d.format())
m.py:3:10: error: unsupported construct 'list' in kernel 'f'
    xs = [1, 2]
         ^~~~~~
  hint: use a NumPy array
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass, field

from .nodes import Loc


@dataclass
class Note:
    """A secondary location of a diagnostic (the other call site, the first assignment)."""

    message: str
    loc: Loc
    source_line: str | None = None


@dataclass
class Diagnostic:
    """One message about the user's code.

    ``construct``: the name of the offending construct (``list comprehension``,
    ``recursion``, ``type conflict``); ``hint``: what to change; ``end_col``: end of
    the underlined span on the same line (0-based, exclusive), -1 for a single caret;
    ``notes``: other places involved.
    """

    message: str
    loc: Loc
    construct: str = ""
    hint: str = ""
    source_line: str | None = None
    end_col: int = -1
    severity: str = "error"
    notes: list = field(default_factory=list)

    def format(self) -> str:
        where = str(self.loc) if self.loc.line > 0 else self.loc.file
        lines = [f"{where}: {self.severity}: {self.message}"]
        lines += _quote(self.loc, self.source_line, self.end_col)
        for note in self.notes:
            lines.append(f"{note.loc}: note: {note.message}")
            lines += _quote(note.loc, note.source_line, -1)
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


def _quote(loc: Loc, source_line: str | None, end_col: int) -> list:
    if source_line is None:
        source_line = source_line_at(loc)
    if not source_line:
        return []
    text = source_line.rstrip("\n").expandtabs(1) if "\t" in source_line else source_line.rstrip("\n")
    width = max(1, end_col - loc.col) if end_col > loc.col else 1
    return [text, " " * loc.col + "^" + "~" * (width - 1)]


def source_line_at(loc: Loc, source: str | None = None) -> str | None:
    """The text of ``loc``'s line, from ``source`` when given, else from the file."""
    if loc.line <= 0:
        return None
    if source is not None:
        lines = source.splitlines()
        return lines[loc.line - 1] if loc.line <= len(lines) else None
    text = linecache.getline(loc.file, loc.line)
    return text.rstrip("\n") or None


class KpcError(Exception):
    """An error in the user's code (or in kpc's understanding of it), carrying a ``Diagnostic``."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic

    @classmethod
    def at(cls, loc: Loc, message: str, construct: str = "", hint: str = "",
           source: str | None = None, end_col: int = -1, notes: list | None = None) -> "KpcError":
        """Build the error for ``loc``, quoting the line from ``source`` (or the file)."""
        diagnostic = Diagnostic(message, loc, construct, hint, source_line_at(loc, source), end_col)
        for note in notes or []:
            if note.source_line is None:
                note.source_line = source_line_at(note.loc, source)
            diagnostic.notes.append(note)
        return cls(diagnostic)

    @property
    def loc(self) -> Loc:
        return self.diagnostic.loc

    def __str__(self) -> str:
        return self.diagnostic.format()
