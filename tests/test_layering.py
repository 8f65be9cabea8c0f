"""ARCHITECTURE.md's layering, checked on every import in kpc's sources (function-level
imports included): frontend → ir → passes → backend → runtime, never upward, and no circles."""

import ast
import pathlib

import networkx as nx
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


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph():
    """Module -> the modules of kpc it imports (anywhere in its body, relative imports too):
    ``from pkg import name`` is an edge to ``pkg.name`` where that is a module, else to ``pkg``.
    An import of a package the module sits in is no edge: Python has initialized it first."""
    modules = {_module_name(path): path for path in ROOT.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)

    def known(name: str) -> str:  # the module an imported name belongs to ("" outside kpc)
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    above = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(above + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            else:
                continue
            for target in map(known, targets):
                if target and target != module and not module.startswith(target + "."):
                    graph.add_edge(module, target)
    return graph


def _circles(graph) -> list:
    """Each cycle of ``graph`` as a chain ``a -> b -> c -> a``, starting at its smallest name."""
    circles = []
    for component in nx.strongly_connected_components(graph):
        if len(component) > 1:
            for cycle in nx.simple_cycles(graph.subgraph(component)):
                start = cycle.index(min(cycle))
                cycle = cycle[start:] + cycle[:start]
                circles.append(" -> ".join(cycle + [cycle[0]]))
    return sorted(circles)


def test_import_graph_sees_function_level_and_relative_imports():
    graph = _import_graph()
    assert graph.has_edge("kpc.runtime.dispatch", "kpc.runtime.fallback")  # from . import fallback
    assert graph.has_edge("kpc.runtime.argument_types", "kpc.runtime.device_arrays")  # in typeof
    assert graph.has_edge("kpc", "kpc.api")  # import kpc.api inside kpc.compiler()
    assert not graph.has_edge("kpc.runtime.dispatch", "kpc")  # from kpc import __version__


def test_circles_are_found_through_several_modules():
    graph = nx.DiGraph([("kpc.a", "kpc.b"), ("kpc.b", "kpc.c"), ("kpc.c", "kpc.a"), ("kpc.c", "kpc.d")])
    assert _circles(graph) == ["kpc.a -> kpc.b -> kpc.c -> kpc.a"]


def test_no_import_circles():
    """ARCHITECTURE.md: no two modules import each other, directly or through others."""
    circles = _circles(_import_graph())
    assert not circles, "modules of kpc/ that import each other:\n" + "\n".join(circles)
