"""The IR's call graph library (networkx, ~0.3 s to import) stays out of what generated modules import.

A drop-in module built by ``kpc build`` imports ``kpc.runtime`` only; the IR (and networkx)
are imported when a new signature has to be compiled, never on import or on a cache hit.
The CLI module imports it only for the commands that parse a module (``kpc ir``, ``kpc build``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DROPIN_TEMPLATE = os.path.join(ROOT, "kpc", "backend", "kokkos", "templates", "dropin.py.j2")


def imported_modules(statement: str) -> set:
    """The modules ``python -X importtime -c statement`` imports."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", statement], capture_output=True,
                            text=True, check=True, cwd=ROOT)
    return {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")}


def test_the_dropin_modules_imports_do_not_import_networkx_or_the_ir():
    with open(DROPIN_TEMPLATE, encoding="utf-8") as handle:
        kpc_imports = re.findall(r"^from (kpc[\w.]*) import", handle.read(), re.MULTILINE)
    # The package itself (its compiler() hook imports kpc.api only when called) and the runtime.
    assert kpc_imports and all(name == "kpc" or name.startswith("kpc.runtime") for name in kpc_imports)
    modules = imported_modules("; ".join(f"import {name}" for name in kpc_imports))
    assert set(kpc_imports) <= modules
    assert "networkx" not in modules
    assert not {m for m in modules if m.startswith(("kpc.ir", "kpc.frontend", "kpc.passes", "kpc.api"))}


def test_the_cli_module_imports_networkx_only_when_a_command_needs_it():
    assert "networkx" not in imported_modules("import kpc.cli")
    assert "networkx" in imported_modules("import kpc.ir.module")
