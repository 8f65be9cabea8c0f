"""Python source text to an ``ast`` tree, one parse at a time in a process.

CPython 3.11 keeps the recursion depth of its C-to-Python AST conversion in interpreter-wide
state: two threads parsing at once (kpc builds several files in threads: ``kpc build -j``,
``benchmarks/run.py``) failed a build with ``SystemError: AST constructor recursion depth
mismatch (before=39, after=35)``. Every parse kpc makes goes through ``parse`` and its lock.

>>> parse("x = 1").body[0].targets[0].id
'x'
>>> parse("n + 1", mode="eval").body.op.__class__.__name__
'Add'
"""

from __future__ import annotations

import ast
import threading

_lock = threading.Lock()


def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """``ast.parse(source, filename, mode)``, never concurrently with another thread's."""
    with _lock:
        return ast.parse(source, filename=filename, mode=mode)
