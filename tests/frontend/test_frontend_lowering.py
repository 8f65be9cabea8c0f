"""Lowering of the kernel subset: what each construct becomes in the IR, with its source location."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.printer import format_function


def body(module, name="f"):
    return module.functions[name].body


def test_every_node_has_a_location(load):
    module = load("""
        import math
        import numpy as np
        from numba import njit, prange

        @njit(parallel=True)
        def f(a, b, n):
            s = 0.0
            for i in prange(n):
                for j in range(1, n, 2):
                    if a[i][j] > 0 and not b[i] < 1 < n:
                        s += math.sqrt(a[i, j]) if a[i, j] > 1 else -a[i, -1]
                    elif j % 3 == 0:
                        continue
                    else:
                        break
            k = 0
            while k < n:
                k += 1
            x, y = a.shape
            return s, np.sum(a[1:-1, ::2]), a.T.shape[0], (x, y)
    """)
    function = module.functions["f"]
    for node in n.walk(function):
        assert node.loc.line > 0, f"{type(node).__name__} {node} has no location"
        assert node.loc.file.endswith("kernels.py")


def test_locations_are_the_python_nodes_positions(load):
    module = load("""
        from numba import njit

        @njit
        def f(a, i):
            return a[i] + 1
    """)
    ret = body(module)[0]
    assert (ret.loc.line, ret.loc.col) == (6, 4)
    assert (ret.value.loc.line, ret.value.loc.col) == (6, 11)
    assert (ret.value.right.loc.line, ret.value.right.loc.col) == (6, 18)


def test_nested_subscripts_become_one_index(load):
    module = load("""
        from numba import njit

        @njit
        def f(a, i, j):
            x = a[i][j]
            y = a[i][j][0]
            z = a[1:3][0]
            w = a[i][:, None][0]
            return x
    """)
    x, y, z, w = (s.value for s in body(module)[:4])
    assert isinstance(x, n.Index) and isinstance(x.base, n.Name) and len(x.indices) == 2
    assert isinstance(y.base, n.Name) and len(y.indices) == 3
    assert isinstance(z.base, n.Index), "a[1:3][0] is not a[1:3, 0]"
    assert isinstance(w.base, n.Index), "an index after a slice stays nested"


def test_chained_comparison_becomes_and(load):
    module = load("""
        from numba import njit

        @njit
        def f(a, b, c):
            return a < b <= c != 0
    """)
    value = body(module)[0].value
    assert isinstance(value, n.BoolOp) and value.op == "and"
    assert [c.op for c in value.values] == ["<", "<=", "!="]
    assert value.values[0].right is not value.values[1].left, "the middle operand is lowered twice"


def test_operators_and_constants(load):
    module = load("""
        from numba import njit

        @njit
        def f(a, b):
            return a // b, a % b, a ** b, a << b, a >> b, a & b, a | b, a ^ b, ~a, -a, +a, not a, -3, -2.5
    """)
    elements = body(module)[0].value.elements
    assert [e.op for e in elements[:8]] == ["//", "%", "**", "<<", ">>", "&", "|", "^"]
    assert [e.op for e in elements[8:12]] == ["~", "-", "+", "not"]
    assert [(type(e), e.value) for e in elements[12:]] == [(n.Const, -3), (n.Const, -2.5)]


def test_range_forms(load):
    module = load("""
        from numba import njit

        @njit
        def f(n):
            for i in range(n):
                pass
            for i in range(2, n):
                pass
            for i in range(n, 0, -1):
                pass
    """)
    loops = body(module)
    as_text = [(str(loop.start), str(loop.stop), str(loop.step)) for loop in loops]
    assert as_text == [("0", "n", "1"), ("2", "n", "1"), ("n", "0", "-1")]
    assert all(loop.kind == "range" for loop in loops)


def test_array_iteration_enumerate_and_zip_become_index_loops(load):
    module = load("""
        import numpy as np
        from numba import njit

        @njit
        def f(x, y, v_index):
            s = 0.0
            for v in x:
                s += v + v_index
            for i, v in enumerate(x):
                s += i * v
            for a, b, c in zip(x, y, x):
                s += a * b * c
            for k, (a, b) in enumerate(zip(x, np.sqrt(y))):
                s += k * a * b
            for row in y:
                y = y + 1.0
            return s
    """)
    text = format_function(module.functions["f"])
    assert text.split("\n", 1)[1] == """  s = 0.0
  for v_index_2 in range(0, len(x)):
    v = x[v_index_2]
    s += v + v_index
  for i in range(0, len(x)):
    v = x[i]
    s += i * v
  for a_index in range(0, min(len(x), len(y), len(x))):
    a = x[a_index]
    b = y[a_index]
    c = x[a_index]
    s += a * b * c
  b_values = np.sqrt(y)
  for k in range(0, min(len(x), len(b_values))):
    a = x[k]
    b = b_values[k]
    s += k * a * b
  row_values = y
  for row_index in range(0, len(row_values)):
    row = row_values[row_index]
    y = y + 1.0
  return s"""
    loop = body(module)[1]
    assert (loop.loc.line, loop.body[0].loc.line) == (8, 8)


def test_element_loops_type_as_numba_iterates(load):
    from frontend_support import typed

    module = typed(load("""
        from numba import njit

        @njit("i8(i8[:], f4[:, :])")
        def f(x, m):
            s = 0
            for v in x:
                s += v * v
            for row in m:
                for e in row:
                    s += int(e)
            for i, (p, q) in enumerate(zip(x, m[0])):
                s += i * p
            return s
    """))
    f = module.functions["f"]
    assert {k: str(t) for k, t in f.locals.items() if k in ("v", "row", "e", "p", "q", "i")} == {
        "v": "i64", "row": "f32[:]", "e": "f32", "p": "i64", "q": "f32", "i": "i64"}


def test_globals_constants_and_math(load):
    module = load("""
        import math
        from math import pi as PI
        import numpy
        from numba import njit

        N = 3
        HALF = N / 2
        FLAG = True

        @njit
        def f(x):
            return x * N + HALF + math.pi + PI + numpy.inf, FLAG, math.e
    """)
    values = n.walk(body(module)[0].value)
    consts = {(g.name, g.value) for g in values if isinstance(g, n.GlobalConst)}
    assert consts == {("N", 3), ("HALF", 1.5), ("math.pi", 3.141592653589793), ("np.inf", float("inf")),
                      ("FLAG", True), ("math.e", 2.718281828459045)}


def test_numpy_aliases_are_canonical(load):
    module = load("""
        import numpy
        import numpy as np
        from numpy import sqrt, zeros
        from numba import njit

        @njit
        def f(a, n):
            b = numpy.exp(a)
            c = np.empty((n, 2), dtype=np.float32)
            d = zeros(n)
            return sqrt(b), a.sum(axis=0), c, d
    """)
    calls = [node for node in n.walk(module.functions["f"]) if isinstance(node, n.Call)]
    assert [(c.func, c.kind) for c in calls] == [
        ("np.exp", "numpy"), ("np.empty", "numpy"), ("np.zeros", "numpy"), ("np.sqrt", "numpy"), (".sum", "numpy")]
    empty = calls[1]
    assert isinstance(empty.args[0], n.TupleExpr)
    assert isinstance(empty.kwargs["dtype"], n.GlobalConst) and empty.kwargs["dtype"].value == "float32"
    method = calls[4]
    assert isinstance(method.args[0], n.Name) and method.args[0].id == "a"
    assert method.kwargs["axis"].value == 0


def test_builtins_and_casts(load):
    module = load("""
        import numba
        import numpy as np
        from numba import njit

        @njit
        def f(a, x):
            return abs(x), min(x, 1), max(x, 2, 3), len(a), round(x), int(x), float(x), bool(x), \\
                np.float32(x), numba.int16(x)
    """)
    elements = body(module)[0].value.elements
    assert [(e.func, e.kind) for e in elements[:5]] == [
        ("abs", "builtin"), ("min", "builtin"), ("max", "builtin"), ("len", "builtin"), ("round", "builtin")]
    assert [str(e.to) for e in elements[5:]] == ["i64", "f64", "bool", "f32", "i16"]
    assert all(isinstance(e, n.Cast) for e in elements[5:])


def test_newaxis_and_slices(load):
    module = load("""
        import numpy as np
        from numba import njit

        @njit
        def f(a):
            return a[np.newaxis, :], a[:, None], a[1:-1, ::2], a[::-1]
    """)
    first, second, third, fourth = body(module)[0].value.elements
    assert isinstance(first.indices[0], n.Const) and first.indices[0].value is None
    assert isinstance(second.indices[1], n.Const) and second.indices[1].value is None
    s0, s1 = third.indices
    assert (str(s0.lower), str(s0.upper), s0.step) == ("1", "-1", None)
    assert (s1.lower, s1.upper, str(s1.step)) == (None, None, "2")
    assert str(fourth.indices[0].step) == "-1"


def test_kernel_calls_are_bound_positionally_with_defaults(load):
    module = load("""
        from numba import njit

        @njit
        def g(a, b=2, c=3.5):
            return a + b + c

        @njit
        def f(x):
            return g(x), g(x, c=1.0), g(b=4, a=x)
    """)
    calls = body(module)[0].value.elements
    assert [format_call(c) for c in calls] == ["call @g(x, 2, 3.5)", "call @g(x, 2, 1.0)", "call @g(x, 4, 3.5)"]
    assert module.sites("f", "g")[1].bindings["c"].value == 1.0
    assert [str(p.default) if p.default else None for p in module.functions["g"].params] == [None, "2", "3.5"]


def format_call(call):
    return str(call)


def test_statements(load):
    module = load('''
        from numba import njit

        @njit
        def f(a, n):
            """Doc."""
            x = y = 0
            x, y = y, x
            a[0] += 1
            a[1, 2] = 3
            while n > 0:
                n -= 1
                if n == 5:
                    break
                elif n == 7:
                    continue
                else:
                    pass
            g(a)
            return

        @njit
        def g(a):
            return a
    ''')
    function = module.functions["f"]
    assert function.docstring == "Doc."
    # ``else: pass`` has nothing to keep: the If has an empty else branch.
    text = format_function(function)
    assert text.splitlines()[1:] == [
        "  x = 0",
        "  y = 0",
        "  x, y = (y, x)",
        "  a[0] += 1",
        "  a[1, 2] = 3",
        "  while n > 0:",
        "    n -= 1",
        "    if n == 5:",
        "      break",
        "    elif n == 7:",
        "      continue",
        "  call @g(a)",
        "  return",
    ]


def test_the_module_is_never_executed(load, tmp_path):
    marker = tmp_path / "ran"
    module = load(f"""
        from numba import njit
        open({str(marker)!r}, "w").write("the module ran")
        raise SystemExit("importing this module is an error")

        @njit
        def f(x):
            return x
    """)
    assert list(module.functions) == ["f"]
    assert not marker.exists()
