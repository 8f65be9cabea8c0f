"""The Python API of kpc: load a module's kernels as IR (and, from the other layers, build them).

>>> import textwrap, tempfile, os
>>> src = textwrap.dedent('''
...     from numba import njit
...     @njit
...     def add(a, b):
...         return a + b
... ''')
>>> with tempfile.TemporaryDirectory() as d:
...     path = os.path.join(d, "m.py")
...     _ = open(path, "w").write(src)
...     module = load_module(path, signatures=["add(f8, i8)"])
>>> [(p.name, str(p.type)) for p in module.functions["add"].params]
[('a', 'f64'), ('b', 'i64')]
"""

from __future__ import annotations

import os

from kpc.frontend import parse_module
from kpc.ir.diagnostics import KpcError
from kpc.ir.module import Module
from kpc.ir.nodes import Loc


def load_module(path, signatures=None, strict: bool = False, source: str | None = None) -> Module:
    """Parse the Numba kernels of the Python file ``path`` into an untyped IR ``Module``.

    The file is read, never imported or run. ``signatures`` gives kernels argument
    types (``["name(float64[:, :], int64)"]`` or ``{"name": "f8(f8[:, :], i8)"}``);
    others keep their eager ``@njit("...")`` signature, or stay generic. Kernels kpc
    cannot translate are listed in ``Module.rejected`` with their diagnostic; with
    ``strict=True`` the first one raises ``KpcError`` instead. ``source``: the text, if
    already read. Run ``kpc.passes.manager.run_pipeline`` on the result to type it.
    """
    path = os.fspath(path)
    if source is None:
        try:
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
        except FileNotFoundError:
            raise KpcError.at(Loc(path, 0, 0), f"no such file: {path}", "file") from None
        except IsADirectoryError:
            raise KpcError.at(Loc(path, 0, 0), f"{path} is a directory, not a Python file", "file") from None
        except UnicodeDecodeError as err:
            raise KpcError.at(Loc(path, 0, 0), f"{path} is not UTF-8 text: {err.reason}", "file") from None
    return parse_module(source, path, signatures=signatures, strict=strict)
