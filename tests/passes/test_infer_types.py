"""infer-types: Numba's typing rules, checked against real Numba, and the interprocedural behaviour.

Each ``NUMBA_CASES`` entry is compiled by Numba (``njit("(argument types)")``) and typed by
kpc with the same argument types; the return types must agree.
"""

from __future__ import annotations

import doctest
import textwrap

import pytest

import kpc.passes.function_typing as function_typing_module
import kpc.passes.infer_types as infer_types_module
import kpc.passes.numpy_typing as numpy_typing_module
import kpc.passes.split_rebindings as split_rebindings_module
from kpc.frontend import parse_module
from kpc.ir import nodes as n
from kpc.ir.diagnostics import KpcError
from kpc.ir.types import FLOAT64, INT64, ArrayType, NoneType, ScalarType, TupleType
from kpc.ir.verifier import verify
from kpc.passes.manager import PassContext, run_pipeline

HEADER = "import math\nimport numpy as np\nfrom numba import njit, prange\n\n"


def typed_module(source: str, signatures=None, ctx=None):
    module = parse_module(HEADER + textwrap.dedent(source), "case.py", signatures=signatures, strict=True)
    run_pipeline(module, ctx or PassContext(verify=True), ["infer-types"], verifier=verify)
    return module


def numba_name(t) -> str:
    """A kpc type spelled as Numba prints it."""
    if isinstance(t, ScalarType):
        return t.name
    if isinstance(t, ArrayType):
        text = f"array({t.dtype.name}, {t.ndim}d, {t.layout})"
        return "readonly " + text if t.readonly else text
    if isinstance(t, TupleType):
        names = [numba_name(e) for e in t.elements]
        if names and all(x == names[0] for x in names):
            return f"UniTuple({names[0]} x {len(names)})"
        return f"Tuple({', '.join(names)})"
    if isinstance(t, NoneType):
        return "none"
    return str(t)


def binary(expr: str) -> str:
    return f"@njit\ndef f(a, b):\n    return {expr}\n"


def unary(expr: str) -> str:
    return f"@njit\ndef f(a):\n    return {expr}\n"


NUMBA_CASES = [
    # scalar arithmetic: integers widen to 64 bits, uint64 only when both are unsigned
    ("i32 + i32", binary("a + b"), "(i4, i4)"),
    ("i8 * i8", binary("a * b"), "(i1, i1)"),
    ("u8 + u8", binary("a + b"), "(u1, u1)"),
    ("u32 + i32", binary("a + b"), "(u4, i4)"),
    ("u64 + i64", binary("a + b"), "(u8, i8)"),
    ("u64 - u64", binary("a - b"), "(u8, u8)"),
    ("bool + bool", binary("a + b"), "(b1, b1)"),
    ("bool & bool", binary("a & b"), "(b1, b1)"),
    ("i32 & i32", binary("a & b"), "(i4, i4)"),
    ("u64 << i64", binary("a << b"), "(u8, i8)"),
    ("i64 >> u64", binary("a >> b"), "(i8, u8)"),
    # floats: float32 survives only float32 and small integers
    ("f32 + f32", binary("a + b"), "(f4, f4)"),
    ("f32 + i32", binary("a + b"), "(f4, i4)"),
    ("f32 + i16", binary("a + b"), "(f4, i2)"),
    ("f32 + u8", binary("a + b"), "(f4, u1)"),
    ("f32 + u16", binary("a + b"), "(f4, u2)"),
    ("f32 + bool", binary("a + b"), "(f4, b1)"),
    ("f32 * 2.0", unary("a * 2.0"), "(f4,)"),
    ("f32 * 2", unary("a * 2"), "(f4,)"),
    ("f32 element * 2.0", unary("a[0] * 2.0"), "(f4[:],)"),
    ("c64 + f64", binary("a + b"), "(c8, f8)"),
    # division, floor division, modulo, power
    ("f32 / f32", binary("a / b"), "(f4, f4)"),
    ("i64 / i64", binary("a / b"), "(i8, i8)"),
    ("f32 / i16", binary("a / b"), "(f4, i2)"),
    ("i32 // i32", binary("a // b"), "(i4, i4)"),
    ("f32 // f32", binary("a // b"), "(f4, f4)"),
    ("f64 // i64", binary("a // b"), "(f8, i8)"),
    ("i32 % i32", binary("a % b"), "(i4, i4)"),
    ("u64 % u64", binary("a % b"), "(u8, u8)"),
    ("i64 ** 2", unary("a ** 2"), "(i8,)"),
    ("i64 ** i64", binary("a ** b"), "(i8, i8)"),
    ("u64 ** u64", binary("a ** b"), "(u8, u8)"),
    ("f32 ** i64", binary("a ** b"), "(f4, i8)"),
    ("f32 ** 2", unary("a ** 2"), "(f4,)"),
    ("f32 ** 0.5", unary("a ** 0.5"), "(f4,)"),
    ("i64 ** f64", binary("a ** b"), "(i8, f8)"),
    ("i16 ** f32", binary("a ** b"), "(i2, f4)"),
    ("i32 ** f32", binary("a ** b"), "(i4, f4)"),
    # unary operators, comparisons, boolean operators, conditional expressions
    ("-i32", unary("-a"), "(i4,)"),
    ("-u8", unary("-a"), "(u1,)"),
    ("-bool", unary("-a"), "(b1,)"),
    ("~i32", unary("~a"), "(i4,)"),
    ("~bool", unary("~a"), "(b1,)"),
    ("-f32", unary("-a"), "(f4,)"),
    ("not i32", unary("not a"), "(i4,)"),
    ("i32 < f64", binary("a < b"), "(i4, f8)"),
    ("chained", binary("0 < a <= b"), "(i8, f8)"),
    ("i64 and f64", binary("a and b"), "(i8, f8)"),
    ("bool or bool", binary("a or b"), "(b1, b1)"),
    ("ifexp i64 f64", binary("a if a > 0 else b"), "(i8, f8)"),
    ("ifexp i32 i64", binary("a if a > 0 else b"), "(i4, i8)"),
    ("ifexp f32 0", unary("a if a > 0 else 0"), "(f4,)"),
    # builtins
    ("abs i32", unary("abs(a)"), "(i4,)"),
    ("abs u8", unary("abs(a)"), "(u1,)"),
    ("abs f32", unary("abs(a)"), "(f4,)"),
    ("abs bool", unary("abs(a)"), "(b1,)"),
    ("min i32 i32", binary("min(a, b)"), "(i4, i4)"),
    ("min i8 u8", binary("min(a, b)"), "(i1, u1)"),
    ("min i64 f32", binary("min(a, b)"), "(i8, f4)"),
    ("max f32 i16", binary("max(a, b)"), "(f4, i2)"),
    ("max u64 i64", binary("max(a, b)"), "(u8, i8)"),
    ("max of three", binary("max(a, b, 1)"), "(i8, f8)"),
    ("len", unary("len(a)"), "(f8[:, :],)"),
    ("round f64", unary("round(a)"), "(f8,)"),
    ("round f32 2", unary("round(a, 2)"), "(f4,)"),
    ("int f32", unary("int(a)"), "(f4,)"),
    ("float i32", unary("float(a)"), "(i4,)"),
    ("bool f64", unary("bool(a)"), "(f8,)"),
    # float() keeps float32 and int() keeps every integer type, as in Numba 0.68
    ("float f32", unary("float(a)"), "(f4,)"),
    ("float f64", unary("float(a)"), "(f8,)"),
    ("float u64", unary("float(a)"), "(u8,)"),
    ("int i32", unary("int(a)"), "(i4,)"),
    ("int u8", unary("int(a)"), "(u1,)"),
    ("int u64", unary("int(a)"), "(u8,)"),
    ("int f64", unary("int(a)"), "(f8,)"),
    ("int bool", unary("int(a)"), "(b1,)"),
    ("float of f32 element", unary("float(a[0]) * a[1]"), "(f4[:],)"),
    ("int of i32 element", unary("int(a[0]) + a[1]"), "(i4[:],)"),
    ("float f32 local", "@njit\ndef f(a):\n    y = float(a[0])\n    for i in range(a.shape[0]):\n"
                        "        y += a[i]\n    return y\n", "(f4[:],)"),
    ("np.float32 i64", unary("np.float32(a)"), "(i8,)"),
    ("np.int32 f64", unary("np.int32(a)"), "(f8,)"),
    # math and scalar NumPy ufuncs
    ("math.sqrt i64", unary("math.sqrt(a)"), "(i8,)"),
    ("math.sqrt f32", unary("math.sqrt(a)"), "(f4,)"),
    ("math.exp i8", unary("math.exp(a)"), "(i1,)"),
    ("math.floor f32", unary("math.floor(a)"), "(f4,)"),
    ("math.ceil f64", unary("math.ceil(a)"), "(f8,)"),
    ("math.trunc i32", unary("math.trunc(a)"), "(i4,)"),
    ("math.fabs i64", unary("math.fabs(a)"), "(i8,)"),
    ("math.isnan f32", unary("math.isnan(a)"), "(f4,)"),
    ("math.atan2 f32 f32", binary("math.atan2(a, b)"), "(f4, f4)"),
    ("math.atan2 i16 f32", binary("math.atan2(a, b)"), "(i2, f4)"),
    ("math.atan2 i64 i64", binary("math.atan2(a, b)"), "(i8, i8)"),
    ("math.pow f32 i64", binary("math.pow(a, b)"), "(f4, i8)"),
    ("math.hypot f32 f32", binary("math.hypot(a, b)"), "(f4, f4)"),
    ("math.copysign f32 f64", binary("math.copysign(a, b)"), "(f4, f8)"),
    ("math.ldexp f32 i32", binary("math.ldexp(a, b)"), "(f4, i4)"),
    ("math.gcd i32", binary("math.gcd(a, b)"), "(i4, i4)"),
    ("math.pi * f32", unary("math.pi * a"), "(f4,)"),
    ("np.sqrt f32", unary("np.sqrt(a)"), "(f4,)"),
    ("np.sqrt i64", unary("np.sqrt(a)"), "(i8,)"),
    ("np.floor f64", unary("np.floor(a)"), "(f8,)"),
    ("np.abs i32", unary("np.abs(a)"), "(i4,)"),
    ("np.minimum f32 i64", binary("np.minimum(a, b)"), "(f4, i8)"),
    # arrays: elements, rows, slices, attributes
    ("element f32", unary("a[0]"), "(f4[:],)"),
    ("row of C", unary("a[0]"), "(f8[:, ::1],)"),
    ("row of F", unary("a[0]"), "(f8[::1, :],)"),
    ("row with :", unary("a[0, :]"), "(f8[:, ::1],)"),
    ("column", unary("a[:, 0]"), "(f8[:, ::1],)"),
    ("slices", unary("a[1:-1, ::2]"), "(f8[:, ::1],)"),
    ("leading slice", unary("a[1:-1]"), "(f8[:, ::1],)"),
    ("F full index with slice", unary("a[:, 1]"), "(f8[::1, :],)"),
    ("newaxis", unary("a[np.newaxis, :]"), "(f8[::1],)"),
    ("None index", unary("a[:, None]"), "(f8[::1],)"),
    ("transpose", unary("a.T"), "(f8[:, ::1],)"),
    ("transpose A", unary("a.T"), "(f8[:, :],)"),
    ("shape", unary("a.shape"), "(f8[:, :],)"),
    ("shape[-1]", unary("a.shape[-1]"), "(f8[:, :],)"),
    ("size", unary("a.size"), "(f8[:, :],)"),
    ("ndim", unary("a.ndim + 0"), "(f8[:, :],)"),
    # array expressions: NumPy ufunc loops and broadcasting
    ("arr + arr", binary("a + b"), "(f8[::1], f8[::1])"),
    ("2-D + 1-D", binary("a + b"), "(f8[:, ::1], f8[::1])"),
    ("A + C", binary("a + b"), "(f8[:], f8[::1])"),
    ("f32 arr * 2.0", unary("a * 2.0"), "(f4[::1],)"),
    ("f32 arr * 2", unary("a * 2"), "(f4[::1],)"),
    ("i32 arr * 2", unary("a * 2"), "(i4[::1],)"),
    ("i32 arr + i32 arr", binary("a + b"), "(i4[::1], i4[::1])"),
    ("i32 arr / i32 arr", binary("a / b"), "(i4[::1], i4[::1])"),
    ("i32 arr + f32 arr", binary("a + b"), "(i4[::1], f4[::1])"),
    ("f32 arr * f64", binary("a * b"), "(f4[::1], f8)"),
    ("i64 arr // 2", unary("a // 2"), "(i8[::1],)"),
    ("arr < arr", binary("a < b"), "(f8[::1], f8[::1])"),
    ("-arr", unary("-a"), "(f4[::1],)"),
    ("arr ** 2", unary("a ** 2"), "(f4[::1],)"),
    ("np.sqrt f32 arr", unary("np.sqrt(a)"), "(f4[::1],)"),
    ("np.sqrt i64 arr", unary("np.sqrt(a)"), "(i8[::1],)"),
    ("np.exp A arr", unary("np.exp(a)"), "(f8[:, :],)"),
    ("np.where", unary("np.where(a > 0, a, 0.0)"), "(f8[::1],)"),
    ("np.abs i32 arr", unary("np.abs(a)"), "(i4[::1],)"),
    # reductions
    ("np.sum f32", unary("np.sum(a)"), "(f4[:, :],)"),
    ("np.sum i32", unary("np.sum(a)"), "(i4[:],)"),
    ("np.sum bool", unary("np.sum(a > 0)"), "(f8[:],)"),
    ("np.sum axis", unary("np.sum(a, axis=0)"), "(f8[:, :],)"),
    ("a.sum axis 3-D", unary("a.sum(axis=1)"), "(f8[:, :, :],)"),
    ("a.sum()", unary("a.sum()"), "(f8[:, :],)"),
    ("np.mean i64", unary("np.mean(a)"), "(i8[:],)"),
    ("np.mean f32", unary("np.mean(a)"), "(f4[:],)"),
    ("np.max i32", unary("np.max(a)"), "(i4[:],)"),
    ("a.max() f32", unary("a.max()"), "(f4[:, :],)"),
    ("np.prod i32", unary("np.prod(a)"), "(i4[:],)"),
    ("np.argmax", unary("np.argmax(a)"), "(f4[:, :],)"),
    ("np.std f32", unary("np.std(a)"), "(f4[:],)"),
    ("np.all", unary("np.all(a > 0)"), "(f8[:],)"),
    # allocation
    ("np.empty n", unary("np.empty(a)"), "(i8,)"),
    ("np.empty dtype", binary("np.empty((a, b), dtype=np.float32)"), "(i8, i8)"),
    ("np.empty positional dtype", binary("np.empty((a, b), np.int32)"), "(i8, i8)"),
    ("np.zeros shape", unary("np.zeros(a.shape)"), "(f8[:, :],)"),
    ("np.ones int", unary("np.ones(a, dtype=np.int64)"), "(i8,)"),
    ("np.zeros_like", unary("np.zeros_like(a)"), "(f4[:, :],)"),
    ("np.empty_like dtype", unary("np.empty_like(a, dtype=np.int32)"), "(f4[:, :],)"),
    ("np.full float", unary("np.full(a, 2.5)"), "(i8,)"),
    ("np.full int", unary("np.full((a, a), 2)"), "(i8,)"),
    ("np.arange", unary("np.arange(a)"), "(i8,)"),
    ("np.arange float", unary("np.arange(0.0, a, 0.5)"), "(i8,)"),
    ("np.linspace", unary("np.linspace(0, 1, a)"), "(i8,)"),
    ("a.copy()", unary("a.copy()"), "(f8[:, :],)"),
    ("reshape tuple", unary("a.reshape((2, -1))"), "(f8[::1],)"),
    ("reshape args", unary("a.reshape(2, -1)"), "(f8[::1],)"),
    ("ravel", unary("a.ravel()"), "(f8[:, ::1],)"),
    ("astype", unary("a.astype(np.float32)"), "(f8[:, :],)"),
    ("np.cumsum", unary("np.cumsum(a)"), "(f8[:, ::1],)"),
    # locals: unification of every assignment
    ("int then float", "@njit\ndef f(x):\n    y = 1\n    if x > 0:\n        y = 2.5\n    return y\n", "(f8,)"),
    ("accumulate f32", "@njit\ndef f(a):\n    s = 0.0\n    for i in range(a.shape[0]):\n"
                       "        s += a[i]\n    return s\n", "(f4[:],)"),
    ("accumulate i32", "@njit\ndef f(a):\n    s = 0\n    for i in range(a.shape[0]):\n"
                       "        s += a[i]\n    return s\n", "(i4[:],)"),
    ("accumulate u64", "@njit\ndef f(a):\n    s = 0\n    for i in range(a.shape[0]):\n"
                       "        s += a[i]\n    return s\n", "(u8[:],)"),
    ("f32 local widened", "@njit\ndef f(a):\n    x = a[0]\n    x += 1\n    return x\n", "(f4[:],)"),
    ("tuple", "@njit\ndef f(a, b):\n    return a, b\n", "(i4, f8)"),
    ("uniform tuple", "@njit\ndef f(a, b):\n    return a, b\n", "(f8, f8)"),
    ("no return", "@njit\ndef f(a):\n    a[0] = 1.0\n", "(f8[:],)"),
    ("shape unpacking", "@njit\ndef f(a):\n    n, m = a.shape\n    return n * m\n", "(f8[:, :],)"),
    # loop variables: int32 bounds give int32, unsigned give uint64, mixed give int64
    ("range i32", "@njit\ndef f(n):\n    for i in range(n):\n        return i\n    return n\n", "(i4,)"),
    ("range u64", "@njit\ndef f(n):\n    for i in range(n):\n        return i\n    return n\n", "(u8,)"),
    ("range 0, i32", "@njit\ndef f(n):\n    for i in range(0, n):\n        return i\n    return n\n", "(i4,)"),
    ("range i16", "@njit\ndef f(n):\n    for i in range(n):\n        return i\n    return n\n", "(i2,)"),
    # calls: the callee is typed from its call site
    ("kernel call", "@njit\ndef g(x):\n    return x * 2\n\n@njit\ndef f(a):\n    return g(a[0])\n", "(f4[:],)"),
    ("row to helper", "@njit\ndef g(r):\n    return r[0] + r[1]\n\n@njit\ndef f(a, i):\n    return g(a[i])\n",
     "(i4[:, :], i8)"),
]


@pytest.mark.parametrize("label, source, args", NUMBA_CASES, ids=[c[0] for c in NUMBA_CASES])
def test_return_type_agrees_with_numba(label, source, args):
    import numba
    from numba.core import types as nbtypes

    namespace = {}
    exec(compile(HEADER + source, f"<{label}>", "exec"), namespace)
    dispatcher = numba.njit(args)(namespace["f"].py_func)
    expected = str(nbtypes.unliteral(dispatcher.nopython_signatures[0].return_type))

    module = typed_module(source, signatures={"f": args})
    assert numba_name(module.functions["f"].return_type) == expected


@pytest.mark.parametrize("module", [infer_types_module, function_typing_module, numpy_typing_module,
                                    split_rebindings_module],
                         ids=lambda m: m.__name__)
def test_module_docstring_example(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_every_expression_and_local_is_typed():
    module = typed_module("""
        @njit
        def f(a, n):
            s = 0.0
            for i in range(n):
                row = a[i]
                s += np.sum(row) * 0.5 if i % 2 else -row[0]
            k, m = a.shape
            return s, k + m
    """, signatures={"f": "(f8[:, :], i8)"})
    function = module.functions["f"]
    assert {k: str(v) for k, v in function.locals.items()} == {
        "s": "f64", "i": "i64", "row": "f64[:]", "k": "i64", "m": "i64"}
    for node in n.walk(function):
        if isinstance(node, n.Expr):
            assert str(node.type) != "?", node


def test_variable_with_two_incompatible_types_names_both_assignments():
    # both bindings reach the return (as in Numba, where they cannot be unified)
    with pytest.raises(KpcError) as info:
        typed_module("""
            @njit
            def f(n):
                x = 1
                if n > 0:
                    x = np.zeros(n)
                return x
        """, signatures={"f": "(i8,)"})
    diagnostic = info.value.diagnostic
    assert diagnostic.construct == "type conflict"
    assert "variable 'x'" in diagnostic.message
    assert (diagnostic.loc.line, diagnostic.notes[0].loc.line) == (10, 8)


def test_name_rebound_to_another_rank_gets_a_new_name_from_there_on():
    module = typed_module("""
        @njit
        def f(x, n):
            y = x + 1.0
            x = x.reshape(n, -1)
            x = x.sum(axis=1)
            return x + y[0, 0, 0, 0]
    """, signatures={"f": "(f8[:, :, :, :], i8)"})
    function = module.functions["f"]
    assert {name: str(ty) for name, ty in function.locals.items() if name.startswith("x")} == {
        "x_1": "f64[:, :] C", "x_2": "f64[:] C"}
    assert str(function.return_type) == "f64[:] C"


def test_name_rebound_in_a_loop_it_is_read_in_stays_a_type_conflict():
    with pytest.raises(KpcError) as info:
        typed_module("""
            @njit
            def f(x, n):
                for i in range(n):
                    x = x.reshape(n, -1)
                return x
        """, signatures={"f": "(f8[:, :, :, :], i8)"})
    assert info.value.diagnostic.construct == "type conflict"


def test_device_function_called_with_two_types_gets_a_copy_per_types():
    # as Numba compiles g once for f64[:] and once for f64
    module = typed_module("""
        @njit
        def g(x):
            return x

        @njit
        def f(a, s, t):
            return g(a)[0] + g(s) + g(t)
    """, signatures={"f": "(f8[:], f8, f8)"})
    calls = [node.func for node in n.walk(module.functions["f"]) if isinstance(node, n.Call)]
    assert calls == ["g", "g_2", "g_2"]
    assert [str(module.functions[name].params[0].type) for name in ("g", "g_2")] == ["f64[:]", "f64"]
    assert module.functions["g_2"].specialized_from == "g"


def test_device_function_call_sites_that_unify_share_one_signature():
    ctx = PassContext(verify=True)
    module = typed_module("""
        @njit
        def g(x):
            return x * 2

        @njit
        def f(i, y):
            return g(i) + g(y)
    """, signatures={"f": "(i8, f8)"}, ctx=ctx)
    assert module.functions["g"].params[0].type == FLOAT64
    assert any("both calls use f64" in w.message for w in ctx.warnings)


def test_callee_typed_through_a_chain_of_calls():
    module = typed_module("""
        @njit
        def leaf(v):
            return v + 1

        @njit
        def middle(r):
            return leaf(r[0]) * 2

        @njit
        def top(a):
            t = 0
            for i in range(a.shape[0]):
                t += middle(a[i])
            return t
    """, signatures={"top": "(i4[:, :],)"})
    functions = module.functions
    assert str(functions["middle"].params[0].type) == "i32[:]"
    assert functions["leaf"].params[0].type == ScalarType("int32")
    assert functions["leaf"].return_type == INT64
    assert functions["top"].return_type == INT64


def test_generic_mode_records_assumptions():
    module = typed_module("""
        @njit
        def f(a, n, scale):
            s = 0.0
            for i in range(n):
                s += a[i, 0] * scale
            return s
    """)
    function = module.functions["f"]
    assert [str(p.type) for p in function.params] == ["f64[:, :]", "i64", "f64"]
    assert len(function.assumptions) == 3
    assert function.assumptions[0].startswith("a: f64[:, :] (no signature; dtype float64 assumed; rank 2")


def test_declared_return_and_locals():
    module = typed_module("""
        @njit("f4(f4[:])", locals={"acc": "float32"})
        def f(a):
            acc = 0.0
            for i in range(a.shape[0]):
                acc += a[i] * 2.0
            return acc
    """)
    function = module.functions["f"]
    assert str(function.locals["acc"]) == "f32"
    assert str(function.return_type) == "f32"


@pytest.mark.parametrize("source, message", [
    ("@njit\ndef f(a):\n    return a[0, 0]\n", "too many indices for f64[:]"),
    ("@njit\ndef f(a):\n    return a[1.5]\n", "array index must be an integer"),
    ("@njit\ndef f(a):\n    if a:\n        return 1\n    return 0\n", "truth value of an array"),
    ("@njit\ndef f(a):\n    if a[0] > 0:\n        return 1.0\n", "can reach its end without a return"),
    ("@njit\ndef f(a):\n    if a[0] > 0:\n        return\n    return 1\n", "returns a value at"),
    ("@njit\ndef f(a):\n    return a.shape[0] & 1.5\n", "bitwise & needs integers"),
    ("@njit\ndef f(a):\n    return max(a)\n", "use np.max(a) for arrays"),
    ("@njit\ndef f(a):\n    for i in range(1.5):\n        pass\n", "range() bounds must be integers"),
    ("@njit\ndef f(a):\n    if a[0] > 0:\n        a = 3\n    return a\n", "parameter 'a' of kernel 'f' has type f64[:]"),
    ("@njit\ndef f(a):\n    return y\n", "y is not defined in this module"),
    ("import cmath\n@njit\ndef f(a):\n    return cmath.phase(a[0])\n", "cmath.phase() of a f64 does not compile"),
    ("@njit\ndef f(a):\n    return float(a[0] > 0)\n", "float() of a bool does not compile in Numba"),
])
def test_type_errors_are_diagnosed(source, message):
    with pytest.raises(KpcError, match=None) as info:
        typed_module(source, signatures={"f": "(f8[:],)"})
    assert message in str(info.value)
    assert info.value.diagnostic.loc.line > 0


def test_generic_kernel_that_cannot_be_typed_stays_numba_with_its_callers():
    module = typed_module("""
        @njit
        def helper(a):
            x = 1
            if a.shape[0] > 2:
                x = np.zeros(a.shape[0])
            return x

        @njit
        def caller(a):
            return helper(a)[0] + 1.0

        @njit
        def fine(x):
            return x * 2.0
    """)
    assert list(module.functions) == ["fine"]
    assert "variable 'x' in kernel 'helper'" in module.rejected["helper"].diagnostic.message
    caller = module.rejected["caller"].diagnostic
    assert caller.construct == "call to a rejected kernel"
    assert (caller.loc.line, caller.loc.col) == (15, 11), "the diagnostic points at the call"


def test_the_same_error_with_a_signature_is_raised():
    with pytest.raises(KpcError, match="variable 'x'"):
        typed_module("""
            @njit
            def f(n):
                x = 1
                if n > 2:
                    x = np.zeros(n)
                return x
        """, signatures={"f": "(i8,)"})
