"""ARCHITECTURE.md's layering, checked on every import in kpc's sources (function-level
imports included): frontend → ir → passes → backend → runtime, never upward."""

import ast
import pathlib

import pytest

import kpc

ROOT = pathlib.Path(kpc.__file__).parent

# what each layer may import of kpc, besides the package's own ``kpc.__version__``
ALLOWED = {
    "ir": {"ir"},
    "frontend": {"frontend", "ir"},
    "passes": {"passes", "ir"},
    "backend": {"backend", "passes", "ir"},
    "runtime": {"runtime"},
}


def _kpc_imports(path: pathlib.Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "kpc":
                modules = [f"kpc.{alias.name}" for alias in node.names if alias.name != "__version__"]
            else:
                modules = [node.module]
        else:
            continue
        for module in modules:
            if module == "kpc" or module.startswith("kpc."):
                yield node.lineno, module


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_lower_layers(layer):
    wrong = []
    for path in sorted((ROOT / layer).rglob("*.py")):
        for line, module in _kpc_imports(path):
            top = module.split(".")[1] if "." in module else ""
            if top not in ALLOWED[layer]:
                wrong.append(f"{path.relative_to(ROOT.parent)}:{line}: imports {module}")
    assert not wrong, "\n".join(wrong)



def test_generated_modules_import_no_compiler_layer():
    """The backends' templates write modules that import the runtime and the package, never
    the compiler's modules (the drop-in module asks ``kpc.compiler()`` when it must compile)."""
    wrong = []
    for path in sorted((ROOT / "backend").rglob("*.j2")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(f"kpc.{layer}" in line for layer in ("api", "driver", "cli", "frontend", "passes", "backend")):
                wrong.append(f"{path.relative_to(ROOT.parent)}:{number}: {line.strip()}")
    assert not wrong, "\n".join(wrong)
