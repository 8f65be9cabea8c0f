"""The catalogue of unsupported constructs: each gives file:line:col, the source line, a caret under
the construct, the construct's name and a hint; the kernel is recorded as rejected (kept as Numba)
and the other kernels of the module still translate."""

from __future__ import annotations

import textwrap

import pytest

from kpc.api import load_module
from kpc.ir.diagnostics import KpcError


def kernel(body: str, params: str = "a, n", decorator: str = "@njit", prelude: str = "", keyword: str = "def") -> str:
    """A module with one kernel ``bad`` holding ``body`` and one good kernel ``good``."""
    body = textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
    return (f"import math\nimport numpy as np\nfrom numba import njit, jit, prange\n{prelude}\n\n"
            f"@njit\ndef good(x):\n    return x + 1\n\n\n{decorator}\n{keyword} bad({params}):\n{body}\n")


# (construct name, module source, marker: the text the caret must point at, on the first line holding it)
CASES = [
    ("class", kernel("class Point:\n    pass\nreturn n"), "class Point"),
    ("list", kernel("xs = [1, 2, n]\nreturn xs[n]"), "[1, 2, n]"),
    ("list", kernel("xs = []\nfor i in prange(n):\n    xs.append(i)\nreturn len(xs)"), "[]"),
    ("list", kernel("xs = [n]\nreturn n > 0 and xs.pop() > 0"), "[n]"),
    ("dict", kernel("d = {1: n}\nreturn n"), "{1: n}"),
    ("set", kernel("s = {1, n}\nreturn n"), "{1, n}"),
    ("string", kernel('s = "text"\nreturn n'), '"text"'),
    ("f-string", kernel('s = f"{n} items"\nreturn n'), 'f"{n} items"'),
    ("raise", kernel('if n < 0:\n    raise ValueError("negative", n)\nreturn n'), "raise"),
    ("try", kernel("try:\n    n = n + 1\nexcept Exception:\n    n = 0\nreturn n"), "try:"),
    ("with", kernel("with open('f') as fh:\n    n = 1\nreturn n"), "with open"),
    ("generator", kernel("for i in range(n):\n    yield i"), "yield i"),
    ("lambda", kernel("f = lambda x: x + 1\nreturn n"), "lambda x"),
    ("nested function", kernel("def inner(x):\n    return x\nreturn n"), "def inner"),
    ("global statement", kernel("global COUNT\nreturn n"), "global COUNT"),
    ("print", kernel('print(n)\nreturn n'), "print(n)"),
    ("call to a non-jitted function", kernel("return helper(n)", prelude="\ndef helper(x):\n    return x"),
     "helper(n)"),
    ("call into another library", kernel("return scipy.special.gamma(n)", prelude="import scipy.special"),
     "scipy.special.gamma(n)"),
    ("list comprehension", kernel("xs = [i * i for i in range(n)]\nreturn n"), "[i * i"),
    ("set comprehension", kernel("xs = {i for i in range(n)}\nreturn n"), "{i for"),
    ("dict comprehension", kernel("xs = {i: i for i in range(n)}\nreturn n"), "{i: i"),
    ("generator expression", kernel("g = (i for i in range(n))\nreturn n"), "(i for"),
    ("del", kernel("del a\nreturn n"), "del a"),
    ("assert", kernel("assert n > 0\nreturn n"), "assert"),
    ("import in a kernel", kernel("import os\nreturn n"), "import os"),
    ("star-args", kernel("return max(*a)"), "*a"),
    ("keyword-only parameter", kernel("return n", params="a, *, n=1"), "n=1"),
    ("**kwargs", kernel("return 1", params="a, **options"), "options"),
    ("is operator", kernel("if n is None:\n    return 0\nreturn n"), "n is None"),
    ("in operator", kernel("if n in (1, 2):\n    return 0\nreturn n"), "n in (1, 2)"),
    ("walrus", kernel("if (m := n + 1) > 2:\n    return m\nreturn n"), "m := n + 1"),
    ("match", kernel("match n:\n    case 1:\n        return 1\nreturn n"), "match n"),
    ("iteration over a non-array", kernel("s = 0.0\nfor v in (1, 2.0):\n    s += v\nreturn s"), "(1, 2.0)"),
    ("iteration over a non-array", kernel("s = 0\nfor i, k in enumerate(range(n)):\n    s += k\nreturn s"),
     "range(n)"),
    ("tuple loop target", kernel("s = 0.0\nfor v in zip(a, a):\n    s += 1\nreturn s"), "v in zip"),
    ("tuple loop target", kernel("for i, j in range(n):\n    pass\nreturn n"), "i, j"),
    ("range outside a for loop", kernel("r = range(n)\nreturn n"), "range(n)"),
    ("bytes", kernel('b = b"raw"\nreturn n'), 'b"raw"'),
    ("starred assignment target", kernel("first, *rest = a.shape\nreturn first"), "*rest"),
    ("ellipsis", kernel("return a[..., 0]"), "..."),
    ("undefined name", kernel("return n + missing"), "missing"),
    ("module-level variable", kernel("return W[0]", prelude="W = np.ones(3)"), "W[0]"),
    ("first-class function", kernel("f = good\nreturn f(n)"), "good\n"),
    ("NumPy function", kernel("return np.fft.fft(a)"), "np.fft.fft(a)"),
    ("math function", kernel("return math.factorial(n)"), "math.factorial(n)"),
    ("attribute", kernel("return a.strides"), "a.strides"),
    ("attribute assignment", kernel("a.flags = 1\nreturn n"), "a.flags"),
    ("call to a Python builtin", kernel("return sorted(a)"), "sorted(a)"),
    ("async", kernel("return n", keyword="async def"), "async def"),
    ("object mode", kernel("return n", decorator="@jit(forceobj=True)"), "jit(forceobj=True)"),
    ("numba decorator", kernel("return n", decorator='@numba.cfunc("f8(f8)")', prelude="import numba"),
     'numba.cfunc("f8(f8)")'),
    ("eager signature", kernel("return n", decorator='@njit("f8(f8[:], quux)")'), '"f8(f8[:], quux)"'),
    ("decorator", kernel("return n", decorator="@njit\n@staticmethod"), "staticmethod"),
]


def _expected_position(source: str, marker: str):
    marker_text = marker.rstrip("\n")
    for number, line in enumerate(source.splitlines(), start=1):
        probe = line + ("\n" if marker.endswith("\n") else "")
        if marker in probe and "def good" not in line:
            return number, probe.index(marker), line
    raise AssertionError(f"marker {marker!r} not in the test source")


@pytest.mark.parametrize("construct, source, marker", CASES, ids=[c[0] for c in CASES])
def test_unsupported_construct_is_diagnosed(tmp_path, construct, source, marker):
    path = tmp_path / "kernels.py"
    path.write_text(source)
    module = load_module(path)
    assert "good" in module.functions, "the other kernels of the module must still translate"
    assert "bad" in module.rejected, f"{construct}: the kernel was not rejected"
    diagnostic = module.rejected["bad"].diagnostic
    line, col, text = _expected_position(source, marker)
    assert (diagnostic.loc.line, diagnostic.loc.col) == (line, col), diagnostic.format()
    assert diagnostic.construct == construct
    assert f"'{construct}'" in diagnostic.message
    assert diagnostic.hint, f"{construct} has no hint"
    rendered = diagnostic.format().splitlines()
    assert rendered[0].startswith(f"{path}:{line}:{col + 1}: error: ")
    assert rendered[1] == text
    assert rendered[2].startswith(" " * col + "^")
    assert rendered[-1] == f"  hint: {diagnostic.hint}"


def test_catalogue_has_at_least_twenty_constructs():
    assert len({c[0] for c in CASES}) >= 20


def test_strict_raises_the_first_diagnostic(tmp_path):
    path = tmp_path / "kernels.py"
    path.write_text(kernel("xs = [1, 2]\nreturn xs"))
    with pytest.raises(KpcError) as info:
        load_module(path, strict=True)
    assert info.value.diagnostic.construct == "list"
    assert str(info.value).startswith(f"{path}:")


def test_direct_and_mutual_recursion_point_at_the_calls(load):
    module = load("""
        from numba import njit

        @njit
        def fact(n):
            return 1 if n <= 1 else n * fact(n - 1)

        @njit
        def ping(n):
            return 0 if n == 0 else pong(n - 1)

        @njit
        def pong(n):
            return 0 if n == 0 else ping(n - 1)

        @njit
        def caller(n):
            return fact(n)

        @njit
        def fine(n):
            return n
    """)
    assert set(module.functions) == {"fine"}
    fact = module.rejected["fact"].diagnostic
    assert fact.construct == "recursion" and "fact -> fact" in fact.message
    assert (fact.loc.line, fact.loc.col) == (6, 32)
    ping = module.rejected["ping"].diagnostic
    assert ping.construct == "recursion" and "ping -> pong -> ping" in ping.message
    assert module.rejected["caller"].diagnostic.construct == "call to a rejected kernel"


def test_syntax_error_has_a_location(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("from numba import njit\n\n@njit\ndef f(x):\n    return x +\n")
    with pytest.raises(KpcError) as info:
        load_module(path)
    diagnostic = info.value.diagnostic
    assert diagnostic.loc.line == 5
    assert str(info.value).startswith(f"{path}:5:")
    assert "syntax error" in diagnostic.message
    assert "return x +" in str(info.value)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(KpcError, match="no such file"):
        load_module(tmp_path / "absent.py")


def test_type_conflict_names_both_assignments(load):
    from frontend_support import typed

    source = """
        import numpy as np
        from numba import njit

        @njit
        def f(n):
            x = 1
            if n > 2:
                x = np.zeros(n)
            return x

        @njit
        def g(n):
            return n + 1
    """
    module = load(source, signatures=["f(i8)"])
    with pytest.raises(KpcError) as info:
        typed(module)
    text = str(info.value)
    assert "variable 'x'" in text and "f64[:] C" in text and "i64" in text
    assert ":9:9: error:" in text.splitlines()[0]
    assert any(":7:5: note:" in line for line in text.splitlines())

    # Without a signature the types of f were only assumed: f stays Numba, g translates.
    module = typed(load(source))
    assert list(module.functions) == ["g"]
    diagnostic = module.rejected["f"].diagnostic
    assert "variable 'x'" in diagnostic.message and diagnostic.loc.line == 9
