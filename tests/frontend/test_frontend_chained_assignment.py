"""``a = b = v``, starred targets and ``complex(re, im)`` in kernels: what the frontend makes of them.

Chained assignment follows Python (``v`` evaluated once, targets assigned left to right) and
Numba's typing (each target gets ``v``'s type, whatever else the kernel assigns to another
target). Starred targets have no translation: Numba itself rejects starred unpacking, so
they are diagnosed at their ``file:line:col`` and the kernel stays Numba. Complex
constructors are typed as Numba types them (``complex(...)`` is complex128,
``np.complex64(x)`` complex64). The corpus file ``tests/corpus/chained_assignment.py``
runs chained assignments against Numba on the Kokkos target.
"""

from __future__ import annotations

import pytest

from kpc.ir import nodes as n
from kpc.passes.manager import PassContext, run_pipeline


def test_constant_goes_to_every_target_left_to_right(load):
    module = load("""
        from numba import njit

        @njit
        def f(a):
            x = a[0] = y = 0.5
            return x + y
    """)
    body = module.functions["f"].body
    assert [type(s.target).__name__ for s in body[:3]] == ["Name", "Index", "Name"]
    assert all(isinstance(s.value, n.Const) and s.value.value == 0.5 for s in body[:3])
    assert len({id(s.value) for s in body[:3]}) == 3, "each assignment has its own node"


def test_expression_is_evaluated_once_then_read_from_the_first_name(load):
    module = load("""
        from numba import njit

        @njit
        def f(a, i):
            x = y = a[i] * 2.0
            return x + y
    """)
    first, second = module.functions["f"].body[:2]
    assert first.target.id == "x" and isinstance(first.value, n.BinOp)
    assert second.target.id == "y" and isinstance(second.value, n.Name) and second.value.id == "x"


def test_first_target_assigned_elsewhere_gets_a_new_local(load):
    # x is rebound to a float later: reading y from x would give y x's unified type (float64)
    # where Numba gives y the value's (int64).
    module = load("""
        from numba import njit

        @njit
        def f(n):
            x = y = n + 1
            x = 0.5
            return x, y // 2
    """)
    held, x, y = module.functions["f"].body[:3]
    assert held.target.id == "chained_value" and isinstance(held.value, n.BinOp)
    assert (x.target.id, x.value.id) == ("x", "chained_value")
    assert (y.target.id, y.value.id) == ("y", "chained_value")


def test_subscript_first_target_is_not_read_back(load):
    # a[i] converts to a's dtype; y must get the value itself.
    module = load("""
        from numba import njit

        @njit
        def f(a, i, v):
            a[i] = y = v * 1.5
            return y
    """)
    held, store, y = module.functions["f"].body[:3]
    assert isinstance(held.value, n.BinOp)
    assert isinstance(store.target, n.Index) and store.value.id == held.target.id
    assert y.value.id == held.target.id


def test_name_value_rebound_by_an_earlier_target_is_held(load):
    # (u, t) = s = t: s is the tuple t was before the unpacking rebound t.
    module = load("""
        from numba import njit

        @njit
        def f(a):
            t = (a[0], a[1])
            (u, t) = s = t
            return u, t, s
    """)
    held, unpack, s = module.functions["f"].body[1:4]
    assert held.value.id == "t"
    assert isinstance(unpack.target, n.TupleExpr) and unpack.value.id == held.target.id
    assert s.value.id == held.target.id


@pytest.mark.parametrize("statement, marker", [
    ("first, *rest = a.shape", "*rest"),
    ("*init, last = (1, 2, 3)", "*init"),
    ("[x, *ys] = a", "*ys"),
])
def test_starred_target_is_diagnosed(load, statement, marker):
    source = f"""
        from numba import njit

        @njit
        def f(a):
            {statement}
            return 0
    """
    module = load(source)
    diagnostic = module.rejected["f"].diagnostic
    assert diagnostic.construct == "starred assignment target"
    assert (diagnostic.loc.line, diagnostic.loc.col) == (6, 4 + statement.index(marker))
    assert "Numba does not compile starred unpacking either" in diagnostic.message
    assert diagnostic.hint


@pytest.mark.parametrize("expr, result", [
    ("complex(x, 2.0) * 2", "c128"), ("complex(x) * 2", "c128"), ("np.complex64(x) * 2", "c128"),
    ("numba.complex128(x) * 2", "c128"), ("complex(x, 2.0).real * 2", "f64"), ("np.complex64(x).imag", "f32"),
    ("np.complex64(x) * np.float32(2)", "c64"), ("np.complex64(x) * 2.0", "c128"), ("2j * x", "c128"),
])
def test_complex_numbers_are_typed_as_numba_types_them(load, expr, result):
    module = load(f"""
        import numba
        import numpy as np
        from numba import njit

        @njit
        def f(x):
            return {expr}
    """, signatures=["f(float32)"])
    run_pipeline(module, PassContext(target="kokkos"), after="infer-types")
    assert not module.rejected
    assert str(module.functions["f"].return_type) == result


def test_docstring_examples_run():
    import doctest

    import kpc.frontend.lower as lower_module

    result = doctest.testmod(lower_module)
    assert result.failed == 0 and result.attempted > 0
