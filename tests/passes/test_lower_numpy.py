"""lower-numpy: array-level IR becomes loops over scalar IR with NumPy's results.

Each kernel is built as typed IR (``lower_numpy_source``), lowered, checked to
hold no array-level node, then run by the reference interpreter
(``lower_numpy_eval``) and compared with the same source run by NumPy.
"""

from __future__ import annotations

import math
import re
import copy
import textwrap

import numpy as np
import pytest

from kpc.ir import nodes as n
from kpc.ir.module import Module
from kpc.ir.printer import format_function
from kpc.ir.types import INT64, UNKNOWN, ArrayType, DTypeType
from kpc.passes.lower_numpy import LowerNumpy, array_level_nodes, lower_function
from kpc.passes.lowering_errors import NumpyLoweringError
from kpc.passes.manager import PassContext
from lower_numpy_eval import run
from lower_numpy_source import typed_function

RNG = np.random.default_rng(5)


def lowered(source: str, **types) -> n.Function:
    function = typed_function(source, **types)
    lower_function(function)
    assert array_level_nodes(function) == []
    return function


def numpy_reference(source: str, name: str):
    namespace = {"np": np, "math": math, "prange": range}
    exec(textwrap.dedent(source), namespace)
    return namespace[name]


def check(source: str, types: dict, *args, rtol=1e-12) -> n.Function:
    """Lower ``source``, run it on copies of ``args`` and compare results and written
    arrays with NumPy's."""
    function = lowered(source, **types)
    mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = run(function, *mine)
    expected = numpy_reference(source, function.name)(*theirs)
    _assert_close(got, expected, rtol)
    for a, b in zip(mine, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=rtol)
    return function


def _assert_close(got, expected, rtol):
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _assert_close(g, e, rtol)
    elif expected is None:
        assert got is None
    else:
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=rtol)


def allocations(function: n.Function) -> list:
    return [s for s in n.walk(function) if isinstance(s, n.Assign) and isinstance(s.value, n.Call)
            and s.value.func == "np.empty"]


def loops(function: n.Function) -> list:
    return [s for s in n.walk(function) if isinstance(s, n.For)]


def vec(k=7):
    return RNG.standard_normal(k)


def mat(r=5, c=4):
    return RNG.standard_normal((r, c))


# --------------------------------------------------------------------------- the pass's own example


def test_docstring_example():
    doc = LowerNumpy.__doc__
    before = textwrap.dedent(doc.split("Before::")[1].split("After::")[0]).strip()
    after = textwrap.dedent(doc.split("After::")[1].split("\n\n    (")[0]).strip()
    function = typed_function("""
        def f(x, out):
            out[1:-1] = np.exp(x[1:-1] - np.max(x)) + out[2:]
    """, x="f64[:]", out="f64[:]")
    assert format_function(function) == before
    lower_function(function)
    assert format_function(function) == after


# --------------------------------------------------------------------------- element-wise


def test_elementwise_chain_is_one_loop_nest_without_temporary():
    f = check("""
        def axpy(alpha, x, y):
            return alpha * x + y
    """, dict(alpha="f64", x="f64[:]", y="f64[:]"), 2.5, vec(), vec())
    assert len(allocations(f)) == 1 and len(loops(unversioned(f))) == 1
    text = format_function(f)
    # x and y may differ in extent at run time (one of them 1): read through broadcast strides.
    assert "tmp0[i0] = alpha * x[i0 * bs0] + y[i0 * bs1]" in text
    assert "tmp0[i1] = alpha * x[i1] + y[i1]" in text  # the version for strides of 1


def test_whole_array_assignment_to_new_name_allocates_that_name():
    f = check("""
        def add(a, b):
            c = a + b
            c[0] = 1.0
            return c
    """, dict(a="f64[:, :]", b="f64[:, :]"), mat(), mat())
    (alloc,) = allocations(f)
    assert alloc.target.id == "c"
    assert str(alloc.value) == "np.empty((ext0, ext1), dtype=np.float64)"


def test_slices_on_both_sides_jacobi_2d():
    src = """
        def jacobi_2d(tsteps, A, B):
            for t in range(tsteps):
                B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
                A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])
    """
    f = check(src, dict(tsteps="i64", A="f64[:, :]", B="f64[:, :]"), 3, mat(6, 7), mat(6, 7))
    assert allocations(f) == []
    text = format_function(f)
    # One check and one broadcast stride per axis serve all five reads of A.
    assert text.count("broadcast_into((B.shape[0] - 2, B.shape[1] - 2), (A.shape[0] - 2, A.shape[1] - 2))") == 1
    assert "B[i0 + 1, i1 + 1] = 0.2 * (A[i0 * bs0 + 1, i1 * bs1 + 1] + A[i0 * bs0 + 1, i1 * bs1] + " \
        "A[i0 * bs0 + 1, i1 * bs1 + 2]" in text


def test_slice_store_of_scalar_and_colon_store():
    check("""
        def fill(a, b, v):
            a[:] = b * 2.0 - 1.0
            a[1:4] = v
            a[::2] = a[::2] + 10.0
            a[-3:] = 0.5
    """, dict(a="f64[:]", b="f64[:]", v="f64"), vec(9), vec(9), 3.0)


def test_negative_steps_and_row_stores():
    check("""
        def rev(a, m, out):
            out[:] = a[::-1]
            m[2] = a[1:5]
            m[:, 0] = m[:, 1] * 2.0
    """, dict(a="f64[:]", m="f64[:, :]", out="f64[:]"), vec(7), mat(5, 4), vec(7))


def test_comparisons_where_and_logical_ops():
    check("""
        def classify(x, y, lo):
            inside = np.logical_and(x > lo, np.logical_not(y < lo))
            either = np.logical_or(x > y, x == y)
            return np.where(inside, x, -1.0), np.where(either, 1.0, 0.0), np.where(x > 0, x, 0.1 * x)
    """, dict(x="f64[:]", y="f64[:]", lo="f64"), vec(), vec(), -0.2)


def test_broadcasting_with_none_and_rank_extension():
    f = check("""
        def outer_broadcast(a, b, m):
            return a[:, None] * b[None, :], m + b[:4], m - a[:5, np.newaxis]
    """, dict(a="f64[:]", b="f64[:]", m="f64[:, :]"), vec(5), vec(4), mat(5, 4))
    assert "a[i0] * b[i1]" in format_function(f)


def test_integer_and_float32_dtypes_are_kept():
    f = lowered("""
        def scale(x, k):
            y = x.astype(np.float32)
            return y * np.float32(0.5) + k
    """, x="f64[:]", k="f32")
    text = format_function(f)
    assert "np.empty((x.shape[0],), dtype=np.float32)" in text
    assert "tmp0[i0] = f32(x[i0]) * 0.5 + k" in text
    assert {c.type.name for c in n.walk(f) if isinstance(c, n.Const) and c.value == 0.5} == {"float32"}
    function = lowered("""
        def ints(a):
            return a * 3 + 1
    """, a="i64[:]")
    assert allocations(function)[0].value.type.dtype.name == "int64"


# --------------------------------------------------------------------------- math ufuncs


@pytest.mark.parametrize("ufunc", ["sqrt", "exp", "log", "log1p", "sin", "cos", "tan", "tanh", "fabs",
                                   "floor", "ceil", "isnan", "isinf", "arctan"])
def test_unary_math_ufuncs_become_math_calls(ufunc):
    x = np.abs(vec()) + 0.1
    f = check(f"""
        def k(x):
            return np.{ufunc}(x)
    """, dict(x="f64[:]"), x)
    calls = [c for c in n.walk(f) if isinstance(c, n.Call) and c.kind == "math"]
    assert [c.func for c in calls] == [f"np.{ufunc}"]


def test_binary_and_special_ufuncs():
    f = check("""
        def k(x, y):
            return (np.arctan2(x, y), np.power(np.abs(x), 1.5), np.maximum(x, y), np.minimum(x, 0.0),
                    np.sign(x), np.abs(y), np.hypot(x, y))
    """, dict(x="f64[:]", y="f64[:]"), vec(), vec())
    funcs = {c.func for c in n.walk(f) if isinstance(c, n.Call)}
    assert {"np.arctan2", "abs", "np.hypot"} <= funcs
    # np.maximum/minimum of floats keep NumPy's NaN rule: a select, not Python's max/min.
    assert "max" not in funcs and "min" not in funcs
    assert any(isinstance(e, n.IfExp) for e in n.walk(f))
    assert any(isinstance(b, n.BinOp) and b.op == "**" for b in n.walk(f))


def test_magnitude_and_gaussian_fuse_into_one_loop():
    f = check("""
        def gaussian(x, mu, sigma):
            return np.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * np.sqrt(2.0 * np.pi))
    """, dict(x="f64[:]", mu="f64", sigma="f64"), vec(), 0.25, 0.8)
    assert len(loops(f)) == 1 and len(allocations(f)) == 1


def test_costly_temporary_used_twice_in_a_loop_is_computed_into_its_destination():
    x = RNG.normal(size=(5, 7))
    f = check("""
        def softmax_rows(x, out):
            for i in prange(x.shape[0]):
                m = np.max(x[i])
                e = np.exp(x[i] - m)
                out[i] = e / e.sum()
    """, dict(x="f64[:, :]", out="f64[:, :]"), x, np.zeros_like(x))
    exps = [c for c in n.walk(unversioned(f)) if isinstance(c, n.Call) and c.func.endswith("exp")]
    assert len(exps) == 1 and allocations(f) == []  # one exp per element, no temporary
    # a destination of another dtype would round e before the sum: e is recomputed instead
    f = check("""
        def softmax_rows32(x, out):
            for i in prange(x.shape[0]):
                e = np.exp(x[i])
                out[i] = e / e.sum()
    """, dict(x="f64[:, :]", out="f32[:, :]"), x, np.zeros(x.shape, np.float32), rtol=1e-6)
    assert len([c for c in n.walk(unversioned(f)) if isinstance(c, n.Call) and c.func.endswith("exp")]) == 2


def unversioned(f):
    """``f`` with each ``if bs<k> == 1: <nest> else: <nest>`` (the unit-stride version of a
    broadcasting loop nest) replaced by its general version."""
    def is_stride_test(test):
        tests = test.values if isinstance(test, n.BoolOp) else [test]
        return all(isinstance(t, n.Compare) and isinstance(t.left, n.Name) and t.left.id.startswith("bs")
                   for t in tests)

    def block(stmts):
        out = []
        for s in stmts:
            if isinstance(s, n.If) and is_stride_test(s.test):
                out.extend(block(s.orelse))
                continue
            for field in ("body", "orelse"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, block(getattr(s, field)))
            out.append(s)
        return out

    f = copy.deepcopy(f)
    f.body = block(f.body)
    return f


# --------------------------------------------------------------------------- reductions


def test_reductions_over_whole_arrays():
    f = check("""
        def describe(x):
            return (np.sum(x), np.mean(x), np.std(x), np.min(x), np.max(x), np.argmax(x),
                    x.sum(), x.max(), x.min(), np.prod(x), np.var(x), np.argmin(x))
    """, dict(x="f64[:, :]"), mat())
    assert allocations(f) == []


def test_reductions_along_an_axis():
    f = check("""
        def sums(a):
            return np.sum(a, axis=0), a.sum(axis=1), a.max(axis=0), np.mean(a, axis=1), a.min(axis=-1)
    """, dict(a="f64[:, :]"), mat())
    text = format_function(f)
    assert "for i1: i64 in range(0, a.shape[0]):\n      sum0 += a[i1, i0]" in text


def test_axis_reduction_broadcast_is_computed_once_per_row():
    f = check("""
        def normalized_rows(a):
            return a / a.sum(axis=1).reshape((-1, 1))
    """, dict(a="f64[:, :]"), mat() + 3.0)
    # the row sums go into a temporary, not recomputed for every element
    assert len(allocations(f)) == 2
    assert max(_depth(s) for s in f.body) == 2


def _depth(s) -> int:
    if isinstance(s, n.For):
        return 1 + max((_depth(c) for c in s.body), default=0)
    return 0


def test_reduction_inside_expression_is_hoisted():
    f = check("""
        def shifted(x):
            return x - np.max(x)
    """, dict(x="f64[:]"), vec())
    text = format_function(f)
    assert text.index("max0 = max(max0, x[i0])") < text.index("tmp0[i1] = x[i1] - max0")


def test_reduction_assigned_to_a_local_accumulates_in_it():
    f = check("""
        def total(x):
            s = np.sum(x * x)
            return s
    """, dict(x="f64[:]"), vec())
    assert "s += x[i0] * x[i0]" in format_function(f)


def test_counting_and_boolean_reductions():
    check("""
        def counts(x, lo):
            return np.count_nonzero(x > lo), np.sum(x > lo), np.any(x > 10.0), np.all(x > -10.0)
    """, dict(x="f64[:]", lo="f64"), vec(), 0.1)


def test_dot_and_matmul_all_ranks():
    f = check("""
        def products(A, B, x, y):
            return x[:4] @ y, np.dot(x[1:], y), A @ y, np.dot(A, y), x @ A, A @ B
    """, dict(A="f64[:, :]", B="f64[:, :]", x="f64[:]", y="f64[:]"), mat(5, 4), mat(4, 3), vec(5), vec(4))
    assert len(allocations(f)) == 4


def test_matmul_of_transposes_reads_permuted_indices():
    f = check("""
        def gram(X):
            return X.T @ X
    """, dict(X="f64[:, :]"), mat())
    # Written row by row: the inner loop reads a row of X, each element still summed in k order.
    assert "tmp0[i2, i4] += X[i3, i2] * X[i3, i4]" in format_function(f)


def test_products_at_host_level_call_the_matmul_routine():
    """With ``products`` (the Kokkos target, outside ``prange``), a product with a 2-D operand is
    one ``matmul`` call: transposed views passed with a flag, a scalar factor folded into
    ``alpha``, a vector dot product still a reduction; in a ``prange`` body, element loops."""
    source = """
        def f(A, B, x, alpha):
            return alpha * A.T @ B, A @ x, x @ A, x @ x
    """
    function = typed_function(source, A="f64[:, :]", B="f64[:, :]", x="f64[:]", alpha="f64")
    lower_function(function, products=True)
    assert array_level_nodes(function) == []
    text = format_function(function)
    assert "matmul(A, B, prod0, ta=True, alpha=alpha)" in text
    assert "matmul(A, x, prod1)" in text and "matmul(x, A, prod2)" in text
    A, B, x = mat(4, 4), mat(4, 3), vec(4)
    for got, expected in zip(run(function, A, B, x, 1.5), (1.5 * A.T @ B, A @ x, x @ A, x @ x)):
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    inside = typed_function("""
        def g(A, X, out):
            for i in prange(X.shape[0]):
                out[i] = A @ X[i]
    """, A="f64[:, :]", X="f64[:, :]", out="f64[:, :]")
    lower_function(inside, products=True)
    assert "matmul(" not in format_function(inside)


def test_nested_dot_is_computed_once_logistic_regression():
    f = check("""
        def logistic_regression(Y, X, w, iterations):
            for i in range(iterations):
                w -= np.dot(((1.0 / (1.0 + np.exp(-Y * np.dot(X, w))) - 1.0) * Y), X)
            return w
    """, dict(Y="f64[:]", X="f64[:, :]", w="f64[:]", iterations="i64"), vec(6), mat(6, 3) * 0.5, vec(3), 3)
    # np.dot(X, w) goes into a temporary of its own (Y may broadcast against it at run
    # time: it would be recomputed per element), the gradient's weights into another.
    assert len(allocations(f)) == 2
    assert max(_depth(s) for s in f.body) == 3


# --------------------------------------------------------------------------- allocation


def test_allocations_with_dtypes():
    f = check("""
        def alloc(a, n):
            z = np.zeros((n, 3), dtype=np.int64)
            o = np.ones(n)
            f = np.full((2, n), 2.5)
            e = np.empty_like(a)
            e[:] = 1.0
            zl = np.zeros_like(a)
            ol = np.ones_like(a)
            r = np.arange(n)
            s = np.arange(1, 10, 3)
            c = a.copy()
            c[0] = 5.0
            return z, o, f, e, zl, ol, r, s, c, a
    """, dict(a="f64[:]", n="i64"), vec(4), 4)
    dtypes = {s.target.id: s.value.type.dtype.name for s in allocations(f)}
    assert dtypes["z"] == "int64" and dtypes["r"] == "int64" and dtypes["o"] == "float64"


def test_empty_allocation_has_no_fill_loop():
    f = lowered("""
        def alloc(n):
            out = np.empty((n, n))
            return out
    """, n="i64")
    assert loops(f) == [] and len(allocations(f)) == 1


def test_eye_triu_tril_outer():
    check("""
        def shapes(a, x, y, n):
            return np.eye(n), np.triu(a), np.tril(a, -1), np.outer(x, y), np.triu(a, 1) + np.eye(5, 4)
    """, dict(a="f64[:, :]", x="f64[:]", y="f64[:]", n="i64"), mat(5, 4), vec(3), vec(2), 4)


def test_rank1_update_in_place():
    check("""
        def rank1_update(A, x, y, alpha):
            A += alpha * np.outer(x, y)
    """, dict(A="f64[:, :]", x="f64[:]", y="f64[:]", alpha="f64"), mat(5, 4), vec(5), vec(4), 0.5)


# --------------------------------------------------------------------------- views, transpose, masks


def test_transpose_is_an_index_permutation_without_copy():
    f = check("""
        def t(a, b):
            c = a.T
            b[:] = c + 1.0
            return c[1, 2] + np.transpose(a)[0, 3]
    """, dict(a="f64[:, :]", b="f64[:, :]"), mat(4, 5), mat(5, 4))
    assert allocations(f) == []
    assert "b[i0, i1] = a[i1 * bs1, i0 * bs0] + 1.0" in format_function(f)


def test_views_returned_or_written_stay_views_views_only_read_are_read_through():
    f = lowered("""
        def rows(a, b, i):
            r = a[i]
            s = a[1:, 2:]
            w = a[2]
            w[1:] = 0.0
            b[:] = r
            return s
    """, a="f64[:, :]", b="f64[:]", i="i64")
    text = format_function(f)
    assert "s: f64[:, :] = a[1:, 2:]" in text and "return s" in text
    assert "w: f64[:] = a[2]" in text and "w[i0 + 1] = 0.0" in text
    assert "r:" not in text and "b[i1] = a[i, i1 * bs0]" in text


def test_masked_assignment():
    f = check("""
        def clamp(x, lo, y):
            x[x < lo] = lo
            y[x > 0.5] += 1.0
            y[y < 0.0] = x[y < 0.0]
    """, dict(x="f64[:]", lo="f64", y="f64[:]"), vec(), -0.25, vec())
    assert allocations(f) == []


def test_clip_and_diff():
    check("""
        def k(x, lo, hi):
            return np.clip(x, lo, hi), np.diff(x), np.sum(np.clip(x, lo, hi) == hi)
    """, dict(x="f64[:]", lo="f64", hi="f64"), vec(), -0.5, 0.5)


# --------------------------------------------------------------------------- aliasing and temporaries


def test_overlapping_slices_compute_into_a_temporary_first():
    src = """
        def shift(A):
            A[1:] = A[:-1] + 1.0
    """
    f = check(src, dict(A="f64[:]"), vec())
    (alloc,) = allocations(f)
    text = format_function(f)
    assert "tmp0[i0] = A[i0] + 1.0" in text and "A[i1 + 1] = tmp0[i1]" in text
    # the naive fused loop reads values it has already overwritten
    naive = typed_function(src, A="f64[:]")
    naive.body = [n.For(n.Name("i"), n.Const(0), n.BinOp("-", _shape(naive, "A"), n.Const(1)), n.Const(1), [
        n.Assign(n.Index(n.Name("A"), [n.BinOp("+", n.Name("i"), n.Const(1))]),
                 n.BinOp("+", n.Index(n.Name("A"), [n.Name("i")]), n.Const(1.0)))])]
    a = np.zeros(4)
    run(naive, a)
    assert list(a) == [0.0, 1.0, 2.0, 3.0]
    b = np.zeros(4)
    run(f, b)
    assert list(b) == [0.0, 1.0, 1.0, 1.0]


def _shape(function, name):
    return n.Index(n.Attribute(n.Name(name, function.param(name).type), "shape"), [n.Const(0)])


def test_overlap_through_a_view_alias_and_a_rebinding():
    f = check("""
        def k(a, x):
            v = a[1:]
            v[:] = a[:-1] * 2.0
            x = x * 2.0 + x[0]
            return x
    """, dict(a="f64[:]", x="f64[:]"), vec(), vec())
    assert len(allocations(f)) == 2


def test_same_element_read_and_write_needs_no_temporary():
    f = check("""
        def k(A, x, y, alpha):
            A[1:-1] = A[1:-1] * 0.5 + 1.0
            y += alpha * x
            x[:] = x - np.max(x)
    """, dict(A="f64[:]", x="f64[:]", y="f64[:]", alpha="f64"), vec(), vec(), vec(), -1.5)
    assert allocations(f) == []


def test_gather_through_reversed_view_needs_temporary():
    f = check("""
        def k(a):
            a[:] = a[::-1]
    """, dict(a="f64[:]"), vec())
    assert len(allocations(f)) == 1


def test_single_use_local_is_inlined_and_reused_local_in_loop_is_recomputed():
    f = check("""
        def softmax_rows(x, out):
            for i in prange(x.shape[0]):
                m = np.max(x[i])
                e = np.exp(x[i] - m)
                out[i] = e / e.sum()
    """, dict(x="f64[:, :]", out="f64[:, :]"), mat(), mat())
    assert allocations(f) == []
    g = check("""
        def coulomb_like(q, x):
            d = x[:, None] - x[None, :]
            r = np.abs(d) + 1.0
            return (q[:, None] * q[None, :] / r).sum(axis=1)
    """, dict(q="f64[:]", x="f64[:]"), vec(), vec())
    assert len(allocations(g)) == 1


def test_local_reused_outside_loops_is_materialised_once():
    f = check("""
        def k(x):
            e = np.exp(x)
            return e / e.sum()
    """, dict(x="f64[:]"), vec())
    assert [s.target.id for s in allocations(f)] == ["e", "tmp0"]


def test_local_not_inlined_when_its_input_changes_before_the_use():
    f = check("""
        def k(x, y):
            e = x * 2.0
            x[:] = 0.0
            y[:] = e
    """, dict(x="f64[:]", y="f64[:]"), vec(), vec())
    assert [s.target.id for s in allocations(f)] == ["e"]


def test_tuple_swap_of_arrays_jacobi_1d():
    check("""
        def jacobi_1d_swap(tsteps, u):
            a = u.copy()
            b = np.empty_like(u)
            b[0] = a[0]
            b[-1] = a[-1]
            for t in range(tsteps):
                b[1:-1] = 0.5 * (a[:-2] + a[2:])
                a, b = b, a
            return a
    """, dict(tsteps="i64", u="f64[:]"), 4, vec(8))


def test_reduction_in_while_test_is_recomputed_every_iteration():
    f = check("""
        def k(x):
            while np.max(x) > 1.0:
                x[:] = x * 0.5
            return x
    """, dict(x="f64[:]"), np.abs(vec()) * 10)
    loop = next(s for s in f.body if isinstance(s, n.While))
    assert isinstance(loop.test, n.Const) and loop.test.value is True


# --------------------------------------------------------------------------- generated IR hygiene


def test_fresh_names_locals_types_and_locations():
    f = typed_function("""
        def k(x, i0, tmp0):
            y = np.sqrt(x) + i0 * tmp0
            return y + np.sum(y)
    """, x="f64[:, :]", i0="f64", tmp0="f64")
    lower_function(f)
    loop_vars = [s.var.id for s in loops(f)]
    assert len(set(loop_vars)) == len(loop_vars) and "i0" not in loop_vars
    for name in loop_vars:
        assert f.locals[name].name == "int64"
    for node in n.walk(f):
        if isinstance(node, n.Expr) and not isinstance(node, n.Slice):
            assert node.type is not UNKNOWN, node
        if isinstance(node, (n.Expr, n.Stmt)) and hasattr(node, "loc"):
            assert node.loc.line in (3, 4), node
    names = {node.id for node in n.walk(f) if isinstance(node, n.Name)}
    assert names <= {p.name for p in f.params} | set(f.locals)
    ids = [id(node) for node in n.walk(f)]
    assert len(ids) == len(set(ids)), "nodes are not shared"


def test_allocation_form_is_the_documented_one():
    f = lowered("""
        def k(a):
            return a[1:-1] * 2.0
    """, a="f64[:, :]")
    (alloc,) = allocations(f)
    call = alloc.value
    assert call.kind == "numpy" and call.func == "np.empty" and isinstance(call.args[0], n.TupleExpr)
    assert call.type == ArrayType(call.type.dtype, 2, "C")
    assert call.kwargs["dtype"].name == "np.float64" and call.kwargs["dtype"].type == DTypeType(call.type.dtype)
    assert str(call) == "np.empty((max(a.shape[0] - 2, 0), a.shape[1]), dtype=np.float64)"
    assert all(not isinstance(e.type, ArrayType) for e in call.args[0].elements)


# --------------------------------------------------------------------------- unsupported constructs


@pytest.mark.parametrize("body, construct", [
    ("return np.linalg.norm(x, 1)", "with an order"),
    ("return np.diff(x, 2)", "first difference"),
    ("return x[::0]", "slice step"),
])
def test_unsupported_construct_names_itself_and_its_location(body, construct):
    f = typed_function(f"""
        def k(x, k):
            {body}
    """, x="f64[:]", k="i64")
    with pytest.raises(NumpyLoweringError) as info:
        lower_function(f)
    assert construct in info.value.diagnostic.message
    assert info.value.loc.line == 3
    assert "stays Numba" in info.value.diagnostic.message


def test_pass_rejects_unlowerable_kernels_and_their_callers():
    bad = typed_function("""
        def bad(x):
            return np.linalg.norm(x, 1)
    """, x="f64[:]")
    caller = typed_function("""
        def caller(x):
            return x
    """, x="f64[:]")
    caller.body.insert(0, n.ExprStmt(n.Call("bad", [n.Name("x", caller.param("x").type)], "kernel",
                                            type=bad.return_type)))
    good = typed_function("""
        def good(x):
            return x * 2.0
    """, x="f64[:]")
    module = Module("kernel.py", "")
    for f in (bad, caller, good):
        module.add(f)
    LowerNumpy().apply(PassContext(), module)
    assert list(module.functions) == ["good"]
    assert set(module.rejected) == {"bad", "caller"}
    assert re.search("np.linalg.norm", module.rejected["bad"].diagnostic.message)


def test_strided_and_newaxis_views_are_read_through():
    f = check("""
        def k(a, out):
            even = a[::2]
            col = a[:, None]
            out[:] = even[:3] + col[1:4, 0]
            return even.shape[0]
    """, dict(a="f64[:]", out="f64[:]"), vec(7), vec(3))
    assert allocations(f) == []


def test_strided_view_written_through_is_rejected():
    f = typed_function("""
        def k(a):
            even = a[::2]
            even[:] = 0.0
    """, a="f64[:]")
    with pytest.raises(NumpyLoweringError, match="strided or transposed view"):
        lower_function(f)


@pytest.mark.parametrize("write, message", [
    ("z.real[0] = 1.0", "the .real part of a complex array written through"),
    ("z.imag[1:] += 1.0", "the .imag part of a complex array written through"),
    ("re = z.real\n    re[0] = 1.0", "view of the parts of complex numbers `re = z.real`"),
])
def test_writes_through_parts_of_complex_arrays_are_rejected(write, message):
    from kpc.frontend import parse_module
    from kpc.passes.manager import run_pipeline

    module = parse_module(f"from numba import njit\n@njit('void(c16[:])')\ndef k(z):\n    {write}\n", "m.py")
    run_pipeline(module, PassContext(target="kokkos"), after="lower-numpy")
    assert message in module.rejected["k"].diagnostic.message


def test_parts_of_arrays_are_read_element_by_element():
    from kpc.frontend import parse_module
    from kpc.passes.manager import run_pipeline

    module = parse_module("import numpy as np\nfrom numba import njit\n"
                          "@njit('f8(c16[:], f8[:], f8[:])')\ndef k(z, x, out):\n"
                          "    out.real[:] = z.imag * x.real\n    return np.real(z).sum() + x.imag.max()\n", "m.py")
    run_pipeline(module, PassContext(target="kokkos"), after="lower-numpy")
    text = format_function(module.functions["k"])
    assert "out[i3] = z[i3].imag * x[i3]" in text and "sum0 += z[i1].real" in text, text
    assert array_level_nodes(module.functions["k"]) == []


def test_module_doctests():
    import doctest

    from kpc.passes import aliasing, lowering_errors
    from kpc.passes.numpy_lowering import (broadcasting, elements, local_arrays, loop_invariants, numpy_calls,
                                           numpy_names, order_statistics, products, reductions, shapes, statements,
                                           ufuncs, values)

    for module in (aliasing, lowering_errors, elements, shapes, broadcasting, numpy_calls, ufuncs, reductions,
                   products, values, numpy_names, statements, local_arrays, loop_invariants, order_statistics):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__


def test_reshape_ravel_and_scans_in_c_order():
    f = check("""
        def k(a, x, out):
            out.fill(0.5)
            return (a.reshape((2, -1)) * 2.0, a.ravel() + 1.0, np.cumsum(x), np.cumprod(a),
                    x.reshape((3, 2)).T.sum(axis=0))
    """, dict(a="f64[:, :]", x="f64[:]", out="f64[:]"), mat(3, 4), vec(6), vec(3))
    # one array per returned value: the scans' temporaries are returned as they are
    assert len(allocations(f)) == 5


def test_norm_trace_item_and_closeness():
    check("""
        def k(a, x, y):
            return (np.linalg.norm(x), np.linalg.norm(a), np.trace(a), x[1:2].item(), a[2:3, 1:2].item(),
                    np.isclose(x, y), np.allclose(x, x + 1e-12), np.allclose(x, y))
    """, dict(a="f64[:, :]", x="f64[:]", y="f64[:]"), mat(4, 5), vec(5), vec(5))


def test_computed_array_passed_to_a_kernel_is_materialised_views_are_passed_as_they_are():
    f = typed_function("""
        def k(a, b):
            return a[0, 0]
    """, a="f64[:, :]", b="f64[:]")
    vector, f64 = f.param("b").type, f.param("b").type.dtype
    computed = n.BinOp("+", n.Name("b", vector), n.Const(1.0, f64), type=vector)
    row = n.Index(n.Name("a", f.param("a").type), [n.Const(1, INT64)], type=vector)
    f.body[:0] = [n.ExprStmt(n.Call("helper", [computed], "kernel", type=f64)),
                  n.ExprStmt(n.Call("helper", [row], "kernel", type=f64))]
    lower_function(f)
    text = format_function(f)
    assert "tmp0[i0] = b[i0] + 1.0" in text and "call @helper(tmp0)" in text
    assert "call @helper(a[1])" in text


def test_reductions_where_and_clip_of_scalars_are_the_scalar_forms():
    check("""
        def k(x, lo):
            s = x[2]
            return (np.max(s), np.sum(s), np.mean(s), np.argmax(s), np.count_nonzero(s),
                    np.where(s > lo, s, lo), np.clip(s, lo, 0.5), np.std(s))
    """, dict(x="f64[:]", lo="f64"), vec(), -0.1)


def test_scalar_value_reading_the_written_array_is_read_once_first():
    f = check("""
        def k(a, b):
            a[:] = a[3] * 2.0
            b[b > b[0]] = b[0] - 1.0
    """, dict(a="f64[:]", b="f64[:]"), vec(), vec())
    assert "value0: f64 = a[3] * 2.0" in format_function(f)


def test_temporaries_are_allocated_once_before_serial_loops():
    f = check("""
        def k(steps, u, w):
            for t in range(steps):
                u[1:-1] = 0.5 * (u[:-2] + u[2:])
                for p in prange(w.shape[0]):
                    w[p, 1:-1] = w[p, :-2] + w[p, 2:]
    """, dict(steps="i64", u="f64[:]", w="f64[:, :]"), 3, vec(9), mat(3, 5))
    text = format_function(f)
    assert text.index("tmp0: f64[:] C = np.empty") < text.index("for t: i64")
    assert text.index("for p: i64") < text.index("tmp1: f64[:] C = np.empty")


def test_gathers_negative_steps_and_negative_bounds():
    check("""
        def k(x, idx, a):
            return x[idx] * 2.0, x[5:1:-1], x[-3:], a[:, -1], x[::-2] + x[1::2][:4], a[::-1, 1:3]
    """, dict(x="f64[:]", idx="i64[:]", a="f64[:, :]"), vec(8), np.array([3, 0, 7, 7]), mat(4, 5))


def test_float_ranges_and_shapes_taken_from_arrays():
    f = check("""
        def k(a, n):
            return (np.arange(0.0, 1.0, 0.1), np.arange(2, n), np.linspace(0.0, 1.0, n), np.zeros(a.shape),
                    np.full_like(a, 3.0), np.empty(n, dtype=a.dtype).shape[0], np.ones((2, n), dtype=np.int64))
    """, dict(a="f64[:, :]", n="i64"), mat(3, 2), 6)
    assert {s.value.type.dtype.name for s in allocations(f)} == {"float64", "int64"}


def test_boolean_and_integer_arrays():
    check("""
        def k(x, m, y):
            both = np.logical_and(x > 0.0, ~(y > 0.5))
            return both.sum(), (both | (x < -0.5)).any(), m // 3, m % 4, -m, np.abs(m), (m > 2).all()
    """, dict(x="f64[:]", m="i64[:]", y="f64[:]"), vec(6), np.array([-7, -1, 0, 2, 5, 9]), vec(6))


def test_same_reduction_in_one_statement_is_computed_once():
    f = check("""
        def k(x):
            return np.exp(x - x.max()) / np.exp(x - x.max()).sum(), np.mean(x), np.std(x)
    """, dict(x="f64[:]"), vec())
    accumulators = [s.target.id for s in n.walk(f) if isinstance(s, n.Assign) and isinstance(s.target, n.Name)
                    and s.target.id.startswith(("max", "mean"))]
    # init + update + NaN select (any NaN is the maximum, as in NumPy)
    assert accumulators.count("max0") == 3 and "max1" not in accumulators
    assert "mean1" not in accumulators


def test_reductions_of_boolean_selections():
    f = check("""
        def k(x, y):
            return x[x > 0.0].sum(), np.mean(x[y < 0.5]), np.count_nonzero(x[x > 0.2]), np.prod(y[x > 0.5])
    """, dict(x="f64[:]", y="f64[:]"), vec(9), vec(9))
    assert allocations(f) == []


def test_concatenate_and_stacks():
    check("""
        def k(a, b, m):
            return (np.concatenate((a, b, a[:2])), np.hstack((a, b)), np.vstack((a[:3], b[:3])),
                    np.stack((a[:3], b[:3]), axis=1), np.concatenate((m, m * 2.0), axis=1),
                    np.concatenate((m, m.sum(axis=0).reshape((1, -1)))))
    """, dict(a="f64[:]", b="f64[:]", m="f64[:, :]"), vec(4), vec(5), mat(3, 2))


def test_view_used_before_its_binding_in_a_loop_is_not_read_through():
    source = """
        def k(a, out):
            r = a[0]
            for i in range(a.shape[0]):
                if i > 0:
                    out[i] = r[1]
                r = a[i]
    """
    function = typed_function(source, a="f64[:, :]", out="f64[:]")
    del function.body[0]  # the test builder needs the name bound first; the kernel does not
    lower_function(function)
    assert "r: f64[:] = a[i]" in format_function(function)
    a, mine, theirs = mat(4, 3), np.zeros(4), np.zeros(4)
    run(function, a, mine)
    numpy_reference(source, "k")(a, theirs)
    np.testing.assert_allclose(mine, theirs)


def test_inside_prange_overlapping_shifts_run_in_a_safe_order_instead_of_a_temporary():
    f = check("""
        def k(out, w):
            for i in prange(out.shape[0]):
                out[i, 1:] = out[i, :-1] * 2.0
                out[i, :-1] = out[i, 1:] + 1.0
                w[i, 1:, :] = w[i, :-1, ::-1] + 1.0
    """, dict(out="f64[:, :]", w="f64[:, :, :]"), mat(3, 6), RNG.standard_normal((3, 4, 2)))
    text = format_function(f)
    assert "range(out.shape[1] - 2, -1, -1)" in text      # backward: reads behind the write
    assert len(allocations(f)) == 1                            # only the reversed-axis read needs one


def test_min_max_of_an_array_that_may_be_empty_checks_its_size_first():
    function = lowered("""
        def f(x, w):
            return x.min() + np.argmax(x) + w[1:].max()
    """, x="f64[:]", w="i32[:]")
    text = format_function(function)
    assert "value_check(x.shape[0] > 0, 4)" in text and "value_check(x.shape[0] > 0, 7)" in text
    assert "min0: f64 = inf" in text and "x[0]" not in text  # no element read before the check
    assert "max0: i32 = -2147483648" in text


def test_min_max_of_a_constant_nonempty_shape_needs_no_check():
    function = lowered("""
        def f(y):
            return (np.zeros(3) + y).min() + np.argmax(np.ones((2, 4)) * y)
    """, y="f64")
    assert "value_check" not in format_function(function)


def test_a_cumulative_sum_read_twice_in_a_loop_is_computed_once():
    from kpc.frontend import parse_module
    from kpc.passes.manager import PassContext, run_pipeline
    from kpc.passes.numpy_lowering.local_arrays import inlined_arrays

    source = """
from numba import njit
import numpy as np
@njit("i8(f8[:], f8[:])")
def f(d, u):
    idx = 0
    for c in range(u.shape[0]):
        cdf = np.cumsum(d)
        e = d * 2.0
        idx += np.searchsorted(cdf, u[c] * cdf[-1]) + np.searchsorted(e, e[-1])
    return idx
"""
    m = parse_module(source, "m.py")
    run_pipeline(m, PassContext(), ["infer-types"])
    # an element-wise array read twice in a loop is recomputed at each read; a scan is kept
    assert sorted(inlined_arrays(m.functions["f"], {})) == ["e"]
