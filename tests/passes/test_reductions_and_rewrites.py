"""recognize-reductions, flatten-mdrange and materialize-subviews: the rewritten IR, case by case."""

from source_ir import run

from kpc.ir import nodes as n
from kpc.ir.printer import format_function
from kpc.passes.manager import run_pipeline

ANALYSIS = ["parallelize", "recognize-reductions", "infer-dispatch"]


def body_text(function: n.Function) -> list:
    return format_function(function).splitlines()[1:]


def test_update_forms_become_canonical():
    module, _ = run("""
        @njit
        def k(x):
            s = 0.0
            p = 1.0
            hi = -np.inf
            lo = np.inf
            for i in range(x.shape[0]):
                s = x[i] + s
                p = p * x[i]
                if hi < x[i]:
                    hi = x[i]
                if lo > x[i]:
                    lo = x[i]
            return s, p, hi, lo
        """, {"k": "(f8[:],)"}, ANALYSIS)
    function = module.functions["k"]
    assert body_text(function)[4:9] == [
        "  parallel_reduce(sum:s, prod:p, max:hi, min:lo) Range i: i64 in range(0, x.shape[0]):",
        "    s += x[i]",
        "    p *= x[i]",
        "    hi = max(hi, x[i])",
        "    lo = min(lo, x[i])",
    ]
    (region,) = [s for s in n.walk(function) if isinstance(s, n.For)]
    assert [str(r.type) for r in region.parallel.reductions] == ["f64"] * 4


def test_recognize_reductions_is_idempotent():
    module, ctx = run("""
        @njit
        def k(x, idx, hist):
            lo = x[0]
            for i in range(x.shape[0]):
                if x[i] < lo:
                    lo = x[i]
                hist[idx[i]] = hist[idx[i]] + 1
            return lo
        """, {"k": "(i8[:], i8[:], i8[:])"}, ANALYSIS)
    once = format_function(module.functions["k"])
    run_pipeline(module, ctx, ["recognize-reductions", "infer-dispatch"])
    assert format_function(module.functions["k"]) == once


def test_atomics_only_where_indices_can_repeat():
    module, _ = run("""
        @njit
        def k(x, idx, hist, b):
            for i in range(x.shape[0]):
                b[i] += x[i]
                hist[idx[i]] += 1
        """, {"k": "(f8[:], i8[:], i8[:], f8[:])"}, ANALYSIS)
    assert body_text(module.functions["k"])[1:] == ["    b[i] += x[i]", "    atomic hist[idx[i]] += 1"]


def test_histogram_region_keeps_the_first_private_and_atomics_in_a_2d_update():
    module, _ = run("""
        @njit(parallel=True)
        def k(labels, weights, counts):
            for i in prange(labels.shape[0]):
                c = labels[i]
                for j in range(weights.shape[1]):
                    counts[c, j] += weights[i, j]
        """, {"k": "(i8[:], f8[:, :], f8[:, :])"}, ANALYSIS)
    assert body_text(module.functions["k"])[-1] == "      atomic counts[c, j] += weights[i, j]"


def test_flatten_three_dimensions():
    module, _ = run("""
        @njit
        def k(a, b):
            t = 0
            for i in range(1, a.shape[0] - 1):
                for j in range(a.shape[1]):
                    for l in range(2, a.shape[2]):
                        b[i, j, l] = a[i, j, l] + t
        """, {"k": "(f8[:, :, :], f8[:, :, :])"}, ANALYSIS + ["flatten-mdrange"], target="pykokkos")
    function = module.functions["k"]
    assert body_text(function) == [
        "  t: i64 = 0",
        "  n_i: i64 = max(a.shape[0] - 1 - 1, 0)",
        "  n_l: i64 = max(a.shape[2] - 2, 0)",
        "  parallel_for Range t2: i64 in range(0, n_i * a.shape[1] * n_l):",
        "    i: i64 = t2 // (a.shape[1] * n_l) + 1",
        "    j: i64 = t2 // n_l % a.shape[1]",
        "    l: i64 = t2 % n_l + 2",
        "    b[i, j, l] = a[i, j, l] + t",
    ]
    (region,) = [s for s in n.walk(function) if isinstance(s, n.For)]
    assert region.parallel.privates == ["i", "j", "l"]
    assert region.parallel.captures == ["a", "b", "n_l", "t"]


def test_flatten_keeps_range_regions():
    module, _ = run("""
        @njit
        def k(a):
            for i in range(a.shape[0]):
                a[i] = 0.0
        """, {"k": "(f8[:],)"}, ANALYSIS + ["flatten-mdrange"], target="pykokkos")
    assert body_text(module.functions["k"])[0] == "  parallel_for Range i: i64 in range(0, a.shape[0]):"


def test_subviews_in_device_functions_and_renamed_reassignments():
    module, ctx = run("""
        @njit
        def dot(u, v):
            return u[0] * v[0] + u[1] * v[1]

        @njit
        def pair(a, i):
            r = a[i]
            x = dot(r, a[i + 1])
            r = a[i + 2]
            return x + dot(r, r)

        @njit(parallel=True)
        def k(a, out):
            for i in prange(a.shape[0] - 3):
                out[i] = pair(a, i)
        """, {"k": "(f8[:, ::1], f8[:])"}, ANALYSIS + ["materialize-subviews"], target="pykokkos")
    assert module.functions["pair"].role == "device"
    assert body_text(module.functions["pair"]) == [
        "  r: f64[:] C = a[i, :]",
        "  ip1: i64 = i + 1",
        "  a_ip1: f64[:] C = a[ip1, :]",
        "  x: f64 = call @dot(r, a_ip1)",
        "  ip2: i64 = i + 2",
        "  r2: f64[:] C = a[ip2, :]",
        "  return x + call @dot(r2, r2)",
    ]
    assert not ctx.warnings


def test_subview_reassigned_in_branches_is_reported():
    _, ctx = run("""
        @njit
        def pick(a, i, c):
            if c:
                r = a[i]
            else:
                r = a[i + 1]
            return r[0]

        @njit(parallel=True)
        def k(a, out):
            for i in prange(a.shape[0] - 1):
                out[i] = pick(a, i, i % 2 == 0)
        """, {"k": "(f8[:, ::1], f8[:])"}, ANALYSIS + ["materialize-subviews"], target="pykokkos")
    assert len(ctx.warnings) == 1
    assert str(ctx.warnings[0]).startswith("kernels.py:7:9: warning: subview r is assigned more than once")


def test_host_code_subviews_are_left_alone():
    module, _ = run("""
        @njit
        def first_row_sum(a):
            row = a[0]
            s = 0.0
            for j in range(row.shape[0]):
                s += row[j]
            return s
        """, {"first_row_sum": "(f8[:, :],)"}, ANALYSIS + ["materialize-subviews"], target="pykokkos")
    assert body_text(module.functions["first_row_sum"])[0] == "  row: f64[:] = a[0, :]"


def test_flatten_normalizes_stepped_ranges():
    module, _ = run("""
        @njit
        def k(x, out):
            n = x.shape[0]
            for i in range(n - 1, -1, -1):
                out[n - 1 - i] = x[i]
            for i in range(1, n - 1, 3):
                x[i] = 0.0
        """, {"k": "(f8[:], f8[:])"}, ANALYSIS + ["flatten-mdrange"], target="pykokkos")
    assert body_text(module.functions["k"]) == [
        "  n: i64 = x.shape[0]",
        "  n_i: i64 = max(n - 1 + 1, 0)",
        "  parallel_for Range t: i64 in range(0, n_i):",
        "    i: i64 = n - 1 - t",
        "    out[n - 1 - i] = x[i]",
        "  n_i2: i64 = max((n - 1 - 1 + 2) // 3, 0)",
        "  parallel_for Range t2: i64 in range(0, n_i2):",
        "    i = 1 + t2 * 3",
        "    x[i] = 0.0",
    ]


def test_subviews_are_hoisted_out_of_loops_but_not_out_of_ifs():
    module, _ = run("""
        @njit
        def dot(u, v):
            return u[0] * v[0] + u[1] * v[1]

        @njit(parallel=True)
        def k(a, out):
            for i in prange(a.shape[0]):
                for j in range(a.shape[0]):
                    out[i] += dot(a[i], a[j])
                    if j > i:
                        out[i] += dot(a[i], a[j])
        """, {"k": "(f8[:, ::1], f8[:])"}, ANALYSIS + ["materialize-subviews"], target="pykokkos")
    assert body_text(module.functions["k"])[1:] == [
        "    a_i: f64[:] C = a[i, :]",
        "    for j: i64 in range(0, a.shape[0]):",
        "      a_j: f64[:] C = a[j, :]",
        "      out[i] += call @dot(a_i, a_j)",
        "      if j > i:",
        "        a_i2: f64[:] C = a[i, :]",
        "        a_j2: f64[:] C = a[j, :]",
        "        out[i] += call @dot(a_i2, a_j2)",
    ]
