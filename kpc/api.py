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
from dataclasses import dataclass

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


# --------------------------------------------------------------------------- PyKokkos target


@dataclass
class PyKokkosBuild:
    """What ``build_pykokkos`` wrote: the module text and path, and per jitted function what happened.

    ``kernels``: one ``KernelReport`` per function (``translated`` or kept as ``numba`` with
    the construct and line that stopped it); ``violations``: what the PyKokkos contract
    checker found in the output (empty for every corpus kernel); ``warnings``: pipeline
    warnings (races in ``prange``, ...).
    """

    source: str
    output: str
    kernels: list
    violations: list
    warnings: list

    @property
    def kept_as_numba(self) -> list:
        return [k for k in self.kernels if k.status == "numba"]

    def summary(self) -> str:
        lines = [f"{self.output}: {len(self.kernels) - len(self.kept_as_numba)} translated, "
                 f"{len(self.kept_as_numba)} kept as Numba"]
        lines += [f"  {kernel}" for kernel in self.kernels]
        lines += [f"  contract violation {v}" for v in self.violations]
        return "\n".join(lines)


def build_pykokkos(path, out_dir, signatures=None, space: str | None = None,
                   source: str | None = None) -> PyKokkosBuild:
    """Translate the Numba kernels of ``path`` into a PyKokkos module ``<out_dir>/<stem>.py``.

    ``signatures`` as for ``load_module``; ``space``: ``None`` for PyKokkos's default
    execution space, or ``"OpenMP"``, ``"Serial"``, ``"Threads"``. Kernels that cannot be
    translated stay Numba (re-exported from ``path``), listed in the returned report. A
    kernel the frontend or the type passes reject keeps the whole module as Numba, with
    that diagnostic as the reason.
    """
    from kpc.backend.pykokkos import check, emit_module
    from kpc.ir.module import Rejected
    from kpc.passes.manager import PassContext, run_pipeline

    path = os.fspath(path)
    module = load_module(path, signatures=signatures, source=source)
    ctx = PassContext(target="pykokkos")
    try:
        run_pipeline(module, ctx)
    except KpcError as error:
        for name, function in list(module.functions.items()):
            module.rejected[name] = Rejected(name, error.diagnostic, function.loc)
        module.functions.clear()
        module.rebuild_callgraph()
    stem = os.path.splitext(os.path.basename(path))[0]
    output = os.path.join(os.fspath(out_dir), f"{stem}.py")
    result = emit_module(module, output, space=space)
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    temporary = f"{output}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(result.source)
    os.replace(temporary, output)
    return PyKokkosBuild(result.source, output, result.kernels, check(result.source), list(ctx.warnings))


def check_pykokkos(path) -> list:
    """Contract violations of the PyKokkos module at ``path`` (what ``--check-pykokkos`` prints)."""
    from kpc.backend.pykokkos import check

    with open(os.fspath(path), encoding="utf-8") as handle:
        return check(handle.read())
