"""Which functions are kernels (every decorator and import spelling), their options and eager signatures."""

from __future__ import annotations

import pytest

from kpc.ir import nodes as n
from kpc.ir.diagnostics import KpcError
from kpc.ir.types import FLOAT32, FLOAT64, INT64, NONE, UNKNOWN, ArrayType, TupleType

SPELLINGS = [
    ("from numba import njit", "@njit"),
    ("from numba import njit", "@njit()"),
    ("from numba import njit", "@njit(parallel=True)"),
    ("import numba", "@numba.njit"),
    ("import numba", "@numba.njit(cache=True)"),
    ("import numba as nb", "@nb.njit"),
    ("import numba as nb", "@nb.njit(fastmath=True)"),
    ("from numba import jit", "@jit"),
    ("from numba import jit", "@jit(nopython=True)"),
    ("from numba import jit", "@jit(nopython=False)"),
    ("import numba", "@numba.jit(nopython=True)"),
    ("import numba", "@numba.jit"),
    ("import numba as nb", "@nb.jit(nopython=True, nogil=True)"),
    ("from numba import njit as fast", "@fast"),
    ("from numba import jit as numba_jit", "@numba_jit(nopython=True)"),
]


@pytest.mark.parametrize("imports, decorator", SPELLINGS, ids=[s[1] for s in SPELLINGS])
def test_decorator_spellings_make_kernels(load, imports, decorator):
    module = load(f"""
{imports}

{decorator}
def kernel(x):
    return x + 1

def plain(x):
    return x + 1
""")
    assert list(module.functions) == ["kernel"]
    assert not module.rejected


def test_non_numba_decorators_and_plain_functions_are_not_kernels(load):
    module = load("""
        import functools
        from numba import njit

        def plain(x):
            return x

        @functools.lru_cache
        def cached(x):
            return x

        @njit
        def kernel(x):
            return x
    """)
    assert list(module.functions) == ["kernel"]
    assert not module.rejected


def test_options_are_read(load):
    module = load("""
        import numba
        from numba import njit

        @njit(parallel=True, fastmath=True, cache=True, nogil=True, boundscheck=False)
        def a(x):
            return x

        @njit(fastmath={"nnan", "ninf"}, error_model="numpy")
        def b(x):
            return x

        @numba.jit(nopython=True, locals={"acc": numba.float32, "k": "int64"})
        def c(x):
            acc = 0.0
            k = 1
            return acc + k
    """)
    assert module.functions["a"].options == {"parallel": True, "fastmath": True, "cache": True,
                                             "nogil": True, "boundscheck": False}
    assert module.functions["b"].options == {"fastmath": ["ninf", "nnan"], "error_model": "numpy"}
    assert module.functions["c"].options == {"locals": {"acc": FLOAT32, "k": INT64}}


def test_an_error_model_numba_does_not_know_is_rejected(load):
    module = load("""
        from numba import njit

        @njit(error_model="fast")
        def a(x, y):
            return x / y
    """)
    diagnostic = module.rejected["a"].diagnostic
    assert diagnostic.construct == "decorator option"
    assert "error_model='fast'" in diagnostic.message


def test_option_from_module_constant(load):
    module = load("""
        from numba import njit
        PARALLEL = True

        @njit(parallel=PARALLEL)
        def a(x):
            return x
    """)
    assert module.functions["a"].options == {"parallel": True}


def test_non_constant_option_is_rejected(load):
    module = load("""
        import os
        from numba import njit

        @njit(parallel=os.cpu_count() > 1)
        def a(x):
            return x
    """)
    assert module.rejected["a"].diagnostic.construct == "decorator option"


SIGNATURES = [
    ('"f8(f8[:, :], i8)"', (ArrayType(FLOAT64, 2), INT64), FLOAT64),
    ('"float64(float64[:, ::1], int64)"', (ArrayType(FLOAT64, 2, "C"), INT64), FLOAT64),
    ('"(f4[::1, :], i8)"', (ArrayType(FLOAT32, 2, "F"), INT64), UNKNOWN),
    ('"void(f8[:, :], i8)"', (ArrayType(FLOAT64, 2), INT64), NONE),
    ("float64(float64[:, :], int64)", (ArrayType(FLOAT64, 2), INT64), FLOAT64),
    ("nb.float32(nb.float32[:, :], nb.int64)", (ArrayType(FLOAT32, 2), INT64), FLOAT32),
    ("numba.types.float64(numba.types.Array(numba.types.float64, 2, 'C'), numba.types.int64)",
     (ArrayType(FLOAT64, 2, "C"), INT64), FLOAT64),
    ('["f8(f8[:, :], i8)", "f4(f4[:, :], i8)"]', (ArrayType(FLOAT64, 2), INT64), FLOAT64),
    ("[float32(float32[:, :], int64), float64(float64[:, :], int64)]", (ArrayType(FLOAT32, 2), INT64), FLOAT32),
    ('"UniTuple(f8, 2)(f8[:, :], i8)"', (ArrayType(FLOAT64, 2), INT64), TupleType((FLOAT64, FLOAT64))),
    ("SIG", (ArrayType(FLOAT64, 2), INT64), FLOAT64),
]


@pytest.mark.parametrize("signature, params, returns", SIGNATURES, ids=[s[0] for s in SIGNATURES])
def test_eager_signatures(load, signature, params, returns):
    module = load(f"""
import numba
import numba as nb
from numba import float32, float64, int64, njit

SIG = "f8(f8[:, :], i8)"


@njit({signature})
def kernel(a, i):
    return a[i, 0]
""")
    function = module.functions["kernel"]
    assert tuple(p.type for p in function.params) == params
    assert function.return_type == returns
    assert function.signatures and all(isinstance(s, str) for s in function.signatures)


def test_every_eager_signature_is_kept_as_written(load):
    module = load("""
        from numba import float32, float64, njit

        @njit(["f8(f8)", float32(float32)])
        def half(x):
            return x / 2
    """)
    assert module.functions["half"].signatures == ["f8(f8)", "float32(float32)"]


def test_signature_arity_mismatch_is_diagnosed(load):
    module = load("""
        from numba import njit

        @njit("f8(f8[:])")
        def kernel(a, i):
            return a[i]
    """)
    diagnostic = module.rejected["kernel"].diagnostic
    assert diagnostic.construct == "eager signature"
    assert "1 argument types but the function takes 2 parameters" in diagnostic.message


def test_load_module_signatures_override_eager_ones(load):
    source = """
        from numba import njit

        @njit("f8(f8[:])")
        def total(a):
            return a[0]

        @njit
        def scale(a, s):
            return a[0] * s
    """
    module = load(source, signatures=["total(float32[::1]) -> float32", "scale(int64[:], float64)"])
    assert [p.type for p in module.functions["total"].params] == [ArrayType(FLOAT32, 1, "C")]
    assert module.functions["total"].return_type == FLOAT32
    assert [p.type for p in module.functions["scale"].params] == [ArrayType(INT64, 1), FLOAT64]
    module = load(source, signatures={"scale": "f8(f4[:, :], i8)"})
    assert [p.type for p in module.functions["scale"].params] == [ArrayType(FLOAT32, 2), INT64]
    with pytest.raises(KpcError, match="'missing', which is not a kernel"):
        load(source, signatures=["missing(f8)"])


@pytest.mark.parametrize("imports, spelling", [
    ("from numba import njit, prange", "prange"),
    ("import numba\nfrom numba import njit", "numba.prange"),
    ("import numba as nb\nfrom numba import njit", "nb.prange"),
    ("from numba import njit, prange as pr", "pr"),
])
def test_prange_spellings(load, imports, spelling):
    module = load(f"""
{imports}

@njit(parallel=True)
def kernel(a):
    for i in {spelling}(a.shape[0]):
        a[i] = 0.0
""")
    loop = module.functions["kernel"].body[0]
    assert isinstance(loop, n.For) and loop.kind == "prange"


def test_imports_are_recorded(load):
    module = load("""
        import math
        import numpy as np
        import numba as nb
        from numba import njit, prange

        @njit
        def f(x):
            return x
    """)
    assert [(i["module"], i["name"], i["asname"]) for i in module.imports] == [
        ("math", None, None), ("numpy", None, "np"), ("numba", None, "nb"),
        ("numba", "njit", None), ("numba", "prange", None)]


def test_options_from_module_constants_dicts_and_bound_decorators(load):
    module = load("""
        import numba
        from numba import njit, prange

        RUN_PARALLEL = True
        THREADS = 16
        PAR = THREADS > 1 and RUN_PARALLEL
        MODEL = "numpy" if PAR else "python"
        OPTS = dict(parallel=RUN_PARALLEL, fastmath=True)
        OPTS2 = {"nogil": not PAR, "cache": False}
        pjit = njit(parallel=PAR, fastmath=True)
        serial_jit = numba.jit(nopython=True, parallel=False)

        @njit(parallel=RUN_PARALLEL, error_model=MODEL)
        def a(x):
            return x

        @numba.jit(nopython=True, **OPTS)
        def b(x):
            return x

        @njit(**OPTS2)
        def c(x):
            return x

        @pjit
        def d(x):
            return x

        @serial_jit
        def e(x):
            return x

        @pjit(boundscheck=True)
        def f(x):
            return x
    """)
    assert not module.rejected
    options = {name: module.functions[name].options for name in "abcdef"}
    assert options["a"]["parallel"] is True and options["a"]["error_model"] == "numpy"
    assert options["b"]["parallel"] is True and options["b"]["fastmath"] is True
    assert options["c"]["nogil"] is False and options["c"]["cache"] is False
    assert options["d"]["parallel"] is True and options["d"]["fastmath"] is True
    assert options["e"]["parallel"] is False
    assert options["f"]["parallel"] is True and options["f"]["boundscheck"] is True


def test_a_spread_option_that_is_not_a_dict_of_constants_keeps_the_kernel_as_numba(load):
    module = load("""
        import os
        from numba import njit

        OPTS = dict(parallel=os.environ.get("PAR") == "1")

        @njit(**OPTS)
        def a(x):
            return x
    """)
    assert "a" in module.rejected
    assert "not a dict of constants" in module.rejected["a"].diagnostic.message
