"""The PyKokkos contract checker catches each rule on a small bad module, and passes a good one."""

import textwrap

import pytest

from kpc.backend.pykokkos.checker import CUDA_RULES, RULES, check

HEAD = "import math\n\nimport numpy as np\nimport pykokkos as pk\n\n\n"


def wu(body: str, params: str = "i: int, x: pk.View1D[pk.double]") -> str:
    return HEAD + f"@pk.workunit\ndef k({params}):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"


def fn(body: str, signature: str = "(x: pk.View1D[pk.double], n: pk.int64) -> pk.double") -> str:
    return HEAD + f"@pk.function\ndef f{signature}:\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"


GOOD = HEAD + textwrap.dedent('''
    @pk.function
    def norm(row: pk.View1D[pk.double], row_shape0: pk.int64) -> pk.double:
        s: pk.double = 0.0
        for k in range(row_shape0):
            s += row[k] * row[k]
        return math.sqrt(s)


    @pk.workunit
    def total(i: int, acc: pk.Acc[pk.double], a: pk.View2D[pk.double], scale: pk.double):
        a_shape1: pk.int64 = a.extent(1)
        t: pk.double = 0.0
        row = a[i, :]
        if i > 0:
            t = norm(row, a_shape1)
        acc += scale * t


    def caller(a):
        return pk.parallel_reduce(pk.RangePolicy(0, a.shape[0]), total, a=a, scale=2.0)
''')

CUDA_WU = HEAD + "@pk.workunit\ndef k(i: int, x: pk.View1D[pk.double]):\n    x[i] = 0.0\n\n\n"

GOOD_CUDA = CUDA_WU + textwrap.dedent('''
    def run(x, n):
        x = cp.ascontiguousarray(cp.asarray(x))
        y = cp.empty(n, dtype=np.float64)
        pk.parallel_for(pk.RangePolicy(pk.Cuda, 0, x.shape[0]), k, x=x)
        pk.parallel_for(pk.RangePolicy(pk.Cuda, 0, n), k, x=y.view(np.uint8))
        s = np.sqrt(float(n))
        return s
''')

BAD = {
    "syntax": "def f(:\n",
    "pk-import": "import numpy as np, pykokkos as pk\n",
    "decorator-spelling": "from pykokkos import workunit\n\n@workunit\ndef k(i):\n    pass\n",
    "module-level": HEAD + "def outer():\n    @pk.workunit\n    def inner(i: int):\n        pass\n",
    "api-surface": wu("pk.atomic_max(x, [0], x[i])"),
    "function-annotations": fn("return x[0]", "(x, n: pk.int64)"),
    "annotation-spelling": wu("pass", "i: int, x: pk.View1D[pk.float64]"),
    "view-indexing": wu("y: pk.double = a[i, 0]", "i: int, a: pk.View2D[pk.double]"),
    "inline-subview": wu("y: pk.double = f(a[i, :])", "i: int, a: pk.View2D[pk.double]"),
    "subview-position": wu("row = a[i + 1, :]", "i: int, a: pk.View2D[pk.double]"),
    "subview-slice": wu("row = a[i:, :]", "i: int, a: pk.View2D[pk.double]"),
    "subview-redeclared": wu("row = a[i, :]\nif i > 0:\n    row = a[i, :]", "i: int, a: pk.View2D[pk.double]"),
    "tuple": wu("y: pk.double = 0.0\nz: pk.double = 0.0\ny, z = x[i], x[0]"),
    "conditional-expression": wu("y: pk.double = x[i] if i > 0 else 0.0"),
    "chained-comparison": wu("if 0 < i < 3:\n    x[i] = 0.0"),
    "mixed-boolop": wu("if i > 0 and (i < 3 or i > 5):\n    x[i] = 0.0"),
    "in-is": wu("if i in x:\n    x[i] = 0.0"),
    "builtin": wu("y: pk.double = min(x[i], 0.0)"),
    "float-cast": wu("y: pk.double = float(i)"),
    "statement": wu("assert i >= 0"),
    "for-range": wu("s: pk.int64 = 2\nfor j in range(0, 10, s):\n    x[j] = 0.0"),
    "reduction-form": wu("acc = math.fmax(acc, x[i])", "i: int, acc: pk.Acc[pk.double], x: pk.View1D[pk.double]"),
    "acc-annotation": wu("acc += x[i]", "i: int, acc, x: pk.View1D[pk.double]"),
    "module-global": wu("x[i] = SCALE * x[i]"),
    "param-assignment": wu("s = s * 2.0", "i: int, s: pk.double"),
    "local-annotation": wu("y = 2.0 * i"),
    "redeclared-local": wu("y: pk.double = 1.0\ny: pk.double = 2.0"),
    "out-of-scope": wu("if i > 0:\n    y: pk.double = 1.0\nx[i] = y"),
    "return-value": wu("return x[i]"),
    "extent-in-function": fn("return x[x.extent(0) - 1]"),
    "shape-attribute": wu("n: pk.int64 = x.shape[0]"),
    "atomic-in-function": fn("pk.atomic_add(x, [0], 1.0)\nreturn 0.0"),
    "kwargs-match": HEAD + "@pk.workunit\ndef k(i: int, x: pk.View1D[pk.double]):\n    x[i] = 0.0\n\n\n"
                           "def run(x):\n    pk.parallel_for(x.shape[0], k, x=x, extra=1)\n",
    "cpp-keyword": wu("new: pk.double = 1.0"),
    "string": wu("y: pk.double = 'a'"),
    "cuda-policy-space": CUDA_WU + "def run(x):\n    x = cp.asarray(x)\n    pk.parallel_for(x.shape[0], k, x=x)\n",
    "cuda-numpy-argument": CUDA_WU + "def run(n):\n    y = np.zeros(n)\n"
                                     "    pk.parallel_for(pk.RangePolicy(pk.Cuda, 0, n), k, x=y)\n",
    "cuda-host-view": CUDA_WU + "def run(n):\n    y = cp.zeros(n)\n    v = pk.View([n], pk.double)\n"
                                "    pk.parallel_for(pk.RangePolicy(pk.Cuda, 0, n), k, x=y)\n",
}


def check_in_space(text: str, rule: str) -> list:
    return check(text, space="Cuda" if rule in CUDA_RULES else None)


def test_every_rule_has_a_bad_snippet():
    assert set(BAD) == set(RULES)


def test_good_module_passes():
    assert check(GOOD) == []


@pytest.mark.parametrize("rule", sorted(BAD))
def test_rule_is_caught(rule):
    violations = check_in_space(BAD[rule], rule)
    assert rule in {v.rule for v in violations}, [str(v) for v in violations]


@pytest.mark.parametrize("snippet, rule", [
    (wu("acc = acc + x[i]", "i: int, acc: pk.Acc[pk.double], x: pk.View1D[pk.double]"), None),
    (wu("acc *= x[i]", "i: int, acc: pk.Acc[pk.double], x: pk.View1D[pk.double]"), "reduction-form"),
    (wu("for j in range(10, 0, -1):\n    x[j] = 0.0"), None),
    (wu("y: pk.double = 0.0\nfor j in range(3):\n    y = pk.double(j)\nx[i] = y"), None),
    (wu("for j in range(3):\n    z: pk.double = 1.0\nx[i] = z"), "out-of-scope"),
    (wu("x[i] = len(x)"), "builtin"),
    (wu("print(i)"), "builtin"),
    (wu("y: pk.double = max(1.0, 2.0)"), "builtin"),
    (wu("pk.atomic_add(x, [i], 1.0)"), None),
    (fn("return f(x, n)"), None),
    (wu("x[i] = math.gamma(1.0)"), "builtin"),
    (wu("if (i > 0) == (i < 5):\n    x[i] = 0.0"), None),
    (wu("if (i > 0 and i < 5) == True:\n    x[i] = 0.0"), "mixed-boolop"),
    (HEAD + "@pk.workunit\ndef k(i: int, x: pk.View1D[pk.double]):\n    x[i] = 0.0\n\n\n"
            "def run(x):\n    pk.parallel_reduce(x.shape[0], k, x=x)\n", "kwargs-match"),
    (HEAD + "@pk.workunit\ndef k(i: int, x: pk.View1D[pk.double]):\n    x[i] = 0.0\n\n\n"
            "def run(x):\n    pk.parallel_for(x.shape[0], k)\n", "kwargs-match"),
    (HEAD + "@pk.workunit\ndef k(i: int, x: pk.View1D[pk.double]):\n    x[i] = 0.0\n\n\n"
            "def run(x):\n    pk.parallel_for(x.shape[0], k, x)\n", "kwargs-match"),
    (HEAD + "x = pk.from_numpy(np.zeros(3))\n", "api-surface"),
    (wu("y: pk.float64 = 1.0"), "annotation-spelling"),
    # Relaxed after re-checking upstream (PYKOKKOS_CONTRACT.md, "Re-checked 2026-11-26"): these run correctly.
    (HEAD + "@pk.workunit\ndef k(i: int, x: pk.View1D[pk.double]):\n    x[i] = 0.0\n\n\n"
            "def run(x):\n    kw = {'x': x}\n    pk.parallel_for(x.shape[0], k, **kw)\n", None),
    (wu("x[i] = 0.0\n'a bare string statement'\nx[i] = 1.0"), None),
    (wu("i = i * 1\nx[i] = 0.0"), None),
    (fn("n = n + 1\nreturn x[n]"), None),
    (wu("y: int = 1"), None),
    # Still rejected: a named unknown keyword next to **mapping; upstream errors / silent failures.
    (HEAD + "@pk.workunit\ndef k(i: int, x: pk.View1D[pk.double]):\n    x[i] = 0.0\n\n\n"
            "def run(x):\n    kw = {'x': x}\n    pk.parallel_for(x.shape[0], k, extra=1, **kw)\n", "kwargs-match"),
    (wu("xor: int = 1"), "cpp-keyword"),
    (fn("pk.atomic_increment(x, [0])\nreturn 0.0"), "atomic-in-function"),
    (fn("pk.atomic_fetch_add(x, [0], 1.0)\nreturn 0.0"), None),
    (wu("x[i] = n", "i: int, x: pk.View1D[pk.double], n: pk.int"), "annotation-spelling"),
    (fn("return x[0]", "(x: pk.View1D[pk.double], n: int) -> pk.int"), "annotation-spelling"),
    (wu("y: pk.double = 1.0\nif i > 0:\n    y: pk.double = 2.0\nx[i] = y"), "redeclared-local"),
    (wu("j: int = 7\nfor j in range(3):\n    x[j] = 0.0"), "redeclared-local"),
    (wu("blk = a[0:4:2, :]", "i: int, a: pk.View2D[pk.double]"), "subview-slice"),
    (wu("y: pk.double = 0.0\nz: pk.double = 0.0\ny = z = x[i]"), "tuple"),
    (wu("for j in range(10, 0, -k):\n    x[j] = 0.0", "i: int, x: pk.View1D[pk.double], k: int"), "for-range"),
])
def test_more_cases(snippet, rule):
    rules = {v.rule for v in check(snippet)}
    if rule is None:
        assert rules == set(), rules
    else:
        assert rule in rules


def test_good_cuda_module_passes():
    assert check(GOOD_CUDA, space="Cuda") == []


def test_cuda_rules_apply_to_cuda_modules_only():
    """Host output may pass NumPy arrays; a module that names pk.Cuda is checked as Cuda output."""
    assert check(BAD["cuda-policy-space"]) == []
    assert {v.rule for v in check(GOOD, space="Cuda")} == {"cuda-policy-space", "cuda-numpy-argument"}
    mixed = BAD["cuda-policy-space"] + "\n\ndef run2(x):\n    x = cp.asarray(x)\n" \
                                       "    pk.parallel_for(pk.RangePolicy(pk.Cuda, 0, 3), k, x=x)\n"
    assert {v.rule for v in check(mixed)} == {"cuda-policy-space"}


@pytest.mark.parametrize("snippet, rule", [
    (CUDA_WU + "def run(x):\n    pk.parallel_for(pk.RangePolicy(pk.Cuda, 0, 3), k, x=x)\n", "cuda-numpy-argument"),
    (CUDA_WU + "def run(x):\n    x = cp.asarray(x)\n    pk.parallel_for(pk.RangePolicy(pk.OpenMP, 0, 3), k, x=x)\n",
     "cuda-policy-space"),
    (CUDA_WU + "def run(x):\n    x = cp.asarray(x)\n    pk.parallel_for(pk.RangePolicy(0, 3), k, x=x)\n",
     "cuda-policy-space"),
    (CUDA_WU + "pk.set_default_space(pk.Cuda)\n\n\ndef run(x):\n    x = cp.asarray(x)\n"
               "    pk.parallel_for(3, k, x=x)\n", None),
    (CUDA_WU + "pk.set_default_space(pk.OpenMP)\n", "cuda-policy-space"),
    (CUDA_WU + "def run(x):\n    pk.parallel_for(pk.RangePolicy(pk.Cuda, 0, 3), k, x=np.ones(3))\n",
     "cuda-numpy-argument"),
    (CUDA_WU + "def run(n):\n    y = np.random.rand(n)\n    pk.parallel_for(pk.RangePolicy(pk.Cuda, 0, n), k, x=y)\n",
     "cuda-numpy-argument"),
    (CUDA_WU + "def run(x):\n    v = pk.array(x)\n", "cuda-host-view"),
])
def test_more_cuda_cases(snippet, rule):
    rules = {v.rule for v in check(snippet, space="Cuda")}
    if rule is None:
        assert rules == set(), rules
    else:
        assert rule in rules, rules


# Upstream accepts these constructs and computes a wrong result, or prints an error and exits with status 0
# (PYKOKKOS_CONTRACT.md, "Re-checked 2026-11-26"): the checker keeps them and says the failure is silent.
SILENT = {
    "mixed-boolop": BAD["mixed-boolop"],
    "float-cast": BAD["float-cast"],
    "for-range": BAD["for-range"],
    "reduction-form": BAD["reduction-form"],
    "acc-annotation": BAD["acc-annotation"],
    "module-global": BAD["module-global"],
    "builtin": BAD["builtin"],
    "shape-attribute": BAD["shape-attribute"],
    "subview-slice": wu("blk = a[0:4:2, :]", "i: int, a: pk.View2D[pk.double]"),
    "redeclared-local": wu("y: pk.double = 1.0\nif i > 0:\n    y: pk.double = 2.0\nx[i] = y"),
    "tuple": wu("y: pk.double = 0.0\nz: pk.double = 0.0\ny = z = x[i]"),
    "kwargs-match": HEAD + "@pk.workunit\ndef k(i: int, x: pk.View1D[pk.double]):\n    x[i] = 0.0\n\n\n"
                           "def run(x):\n    pk.parallel_reduce(x.shape[0], k, x=x)\n",
}


@pytest.mark.parametrize("rule", sorted(SILENT))
def test_silent_failures_say_so(rule):
    messages = [v.message for v in check(SILENT[rule]) if v.rule == rule]
    assert messages and all("silent" in m or "status 0" in m for m in messages), messages
