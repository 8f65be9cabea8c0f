"""Every test function checks something: an ``assert``, ``pytest.raises``/``warns``/``fail``, a NumPy
``assert_*`` call, or a call of one of the checking helpers listed here (a test that checks nothing
passes whatever the code does). Read from the source (AST), without running the tests."""

import ast
import pathlib

TESTS = pathlib.Path(__file__).resolve().parent

# Helpers a test may leave the checking to: each asserts (or raises) on what it was given.
CHECKING_HELPERS = {
    "check": "tests/passes/test_lower_numpy.py: lowers a kernel and compares it with NumPy",
    "check_all": "tests/backend/test_blas.py: every product kernel compared with NumPy",
    "_same_as_numba": "tests/backend/pykokkos/test_per_call_types.py: each call compared with Numba",
    "_forked_child_scenarios": "tests/backend/pykokkos/test_pykokkos_fork.py: a forked child's calls",
    "_all_dtypes": "tests/corpus/test_corpus_pykokkos.py: the differential corpus in every dtype",
    "verify": "kpc.ir.verifier.verify: raises VerifierError on IR that breaks a rule",
}
CHECKING_CALLS = {"raises", "warns", "fail", "deprecated_call"}


def _called(node) -> set:
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None))
    return names - {None}


def checks(node) -> bool:
    """Whether the function ``node`` asserts, raises or calls something that checks."""
    if any(isinstance(sub, (ast.Assert, ast.Raise)) for sub in ast.walk(node)):
        return True
    called = _called(node)
    return bool(called & (CHECKING_CALLS | set(CHECKING_HELPERS))) or any(name.startswith("assert_") for name in called)


def _test_files():
    return [path for path in sorted(TESTS.rglob("*.py")) if "golden" not in path.parts]


def _functions(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def test_every_test_function_checks_something():
    found, unchecked = 0, []
    for path in _test_files():
        if not path.name.startswith("test_"):
            continue
        for node in _functions(path):
            if node.name.startswith("test_"):
                found += 1
                if not checks(node):
                    unchecked.append(f"{path.relative_to(TESTS.parent)}:{node.lineno} {node.name}")
    assert found > 500, f"only {found} test functions found: the scan is broken"
    assert unchecked == [], "test functions that check nothing:\n" + "\n".join(unchecked)


def test_each_checking_helper_checks():
    """The allow-list stays honest: each helper defined in tests/ asserts or raises itself."""
    defined: dict = {}
    for path in _test_files():
        for node in _functions(path):
            defined.setdefault(node.name, []).append((path.name, node))
    for name in CHECKING_HELPERS:
        if name == "verify":
            continue  # kpc's own verifier
        assert name in defined, f"{name} is allow-listed but not defined in tests/"
        for where, node in defined[name]:
            assert checks(node), f"{name} ({where}:{node.lineno}) is allow-listed but checks nothing"


def test_the_scan_sees_a_test_that_checks_nothing():
    source = "def test_a():\n    x = 1\n\ndef test_b():\n    assert 1\n"
    verdicts = {node.name: checks(node) for node in ast.parse(source).body}
    assert verdicts == {"test_a": False, "test_b": True}
