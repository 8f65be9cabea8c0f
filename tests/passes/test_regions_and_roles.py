"""parallelize, infer-dispatch, cost-guard and choose-schedule: what the annotated IR holds for emitters."""

from source_ir import run

from kpc.ir import nodes as n
from kpc.passes.cost_guard import SERIAL_WORK, VECTOR_WIDTH

ANNOTATE = ["parallelize", "recognize-reductions", "infer-dispatch", "cost-guard", "choose-schedule"]


def regions(function: n.Function) -> list:
    return [s for s in n.walk(function) if isinstance(s, n.For) and s.parallel is not None]


def test_roles_entry_device_and_both():
    module, _ = run("""
        @njit
        def square(x):
            return x * x

        @njit
        def helper(x):
            return square(x) + 1.0

        @njit
        def shared(x):
            return 2.0 * x

        @njit(parallel=True)
        def kernel(a, out):
            for i in prange(a.shape[0]):
                out[i] = helper(a[i]) + shared(a[i])

        def python_side(v):
            return shared(v)
        """, {"kernel": "(f8[:], f8[:])"}, ANNOTATE)
    roles = {name: f.role for name, f in module.functions.items()}
    assert roles == {"square": "device", "helper": "device", "shared": "both", "kernel": "entry"}


def test_a_function_called_from_host_code_is_an_entry_with_its_own_regions():
    module, _ = run("""
        @njit(parallel=True)
        def step(u):
            for i in prange(u.shape[0]):
                u[i] = 0.5 * u[i]

        @njit
        def simulate(u, steps):
            for t in range(steps):
                step(u)
        """, {"simulate": "(f8[:], i8)"}, ANNOTATE)
    assert module.functions["step"].role == "entry"
    assert len(regions(module.functions["step"])) == 1
    (loop,) = [s for s in n.walk(module.functions["simulate"]) if isinstance(s, n.For)]
    assert loop.parallel is None and loop.decision == "call @step writes u (side effect on shared data)"


def test_a_function_called_from_a_region_and_from_host_code_is_both():
    module, _ = run("""
        @njit
        def fill(row, v):
            for j in range(row.shape[0]):
                row[j] = v

        @njit
        def k(a):
            fill(a[0], 1.0)
            for i in range(1, a.shape[0]):
                fill(a[i], 0.0)
        """, {"k": "(f8[:, :],)"}, ANNOTATE)
    fill = module.functions["fill"]
    assert fill.role == "both"
    (inner,) = [s for s in n.walk(fill) if isinstance(s, n.For)]
    assert inner.parallel is not None  # the entry version; the device version runs it serially


def test_captures_and_privates():
    module, _ = run("""
        @njit(parallel=True)
        def k(x, y, w):
            scale = 2.0
            total = 0.0
            for i in prange(x.shape[0]):
                t = scale * x[i]
                for j in range(3):
                    t += w[j]
                y[i] = t
                total += t
            return total
        """, {"k": "(f8[:], f8[:], f8[:])"}, ANNOTATE)
    (region,) = regions(module.functions["k"])
    assert region.parallel.captures == ["scale", "w", "x", "y"]
    assert region.parallel.privates == ["t"]


def test_mdrange_captures_leave_out_the_extents():
    module, _ = run("""
        @njit
        def k(a, b, c):
            n, m = a.shape
            for i in range(n):
                for j in range(m):
                    b[i, j] = c * a[i, j]
        """, {"k": "(f8[:, :], f8[:, :], f8)"}, ANNOTATE)
    (region,) = regions(module.functions["k"])
    assert (region.parallel.policy, region.parallel.depth) == ("MDRange", 2)
    assert region.parallel.captures == ["a", "b", "c"]


def test_small_constant_inner_loops_are_not_collapsed():
    module, _ = run("""
        @njit
        def k(a):
            for i in range(a.shape[0]):
                for d in range(3):
                    a[i, d] = 0.0
        """, {"k": "(f8[:, :],)"}, ANNOTATE)
    (region,) = regions(module.functions["k"])
    assert region.parallel.depth == 1


def test_prange_with_break_runs_serially_with_a_warning():
    module, ctx = run("""
        @njit(parallel=True)
        def k(x, out):
            for i in prange(x.shape[0]):
                if x[i] < 0:
                    break
                out[i] = x[i]
        """, {"k": "(f8[:], f8[:])"}, ANNOTATE)
    (loop,) = [s for s in n.walk(module.functions["k"]) if isinstance(s, n.For)]
    assert loop.parallel is None and loop.decision == "early exit: break at line 6 (prange runs serially)"
    assert [str(w) for w in ctx.warnings] == [
        "kernels.py:4:5: warning: prange loop has an early exit: break at line 6; it runs serially\n"
        "    for i in prange(x.shape[0]):\n"
        "    ^"]


def test_race_warning_names_file_line_and_source():
    _, ctx = run("""
        @njit(parallel=True)
        def k(a):
            for i in prange(1, a.shape[0]):
                a[i] = a[i - 1] + 1.0
        """, {"k": "(f8[:],)"}, ANNOTATE)
    assert [str(w) for w in ctx.warnings] == [
        "kernels.py:4:5: warning: prange loop races: a[i] written, a[i - 1] read (distance 1); kept parallel as in "
        "Numba\n    for i in prange(1, a.shape[0]):\n    ^"]


def test_cost_guard_applies_to_straight_line_iterations_only():
    module, _ = run("""
        @njit
        def inner_work(v):
            s = 0.0
            for k in range(v.shape[0]):
                s += v[k]
            return s

        @njit
        def k(a, b, out):
            for i in range(a.shape[0]):
                for j in range(a.shape[1]):
                    b[i, j] = 2.0 * a[i, j]
            for i in range(a.shape[0]):
                out[i] = inner_work(a[i])
        """, {"k": "(f8[:, :], f8[:, :], f8[:])"}, ANNOTATE)
    mdrange, calls_loop = regions(module.functions["k"])
    # load, multiply, store: 3 operations, vectorized (VECTOR_WIDTH iterations at a time)
    assert mdrange.parallel.serial_below == SERIAL_WORK // -(-3 // VECTOR_WIDTH)
    assert calls_loop.parallel.serial_below is None


def test_cost_guard_threshold_follows_the_work_of_an_iteration():
    module, _ = run("""
        @njit(parallel=True)
        def star(inp, out):
            r = 2
            for i in prange(r, inp.shape[0] - r):
                for j in range(r, inp.shape[1] - r):
                    acc = 0.0
                    for k in range(1, r + 1):
                        acc += (inp[i, j + k] - inp[i, j - k]) / (2.0 * k * r)
                    out[i, j] += acc

        @njit(parallel=True)
        def total(x):
            s = 0.0
            for i in prange(x.shape[0]):
                s += x[i]
            return s

        @njit(parallel=True)
        def expo(x, out):
            for i in prange(x.shape[0]):
                out[i] = math.exp(x[i])

        @njit(parallel=True)
        def rows(x, out):
            for i in prange(x.shape[0]):
                for j in range(x.shape[1]):
                    out[i] += x[i, j]

        @njit(parallel=True)
        def pairs(x):
            s = 0.0
            for i in prange(x.shape[0]):
                for j in range(i + 1, x.shape[0]):
                    s += x[i] * x[j]
            return s
        """, {"star": "(f8[:, :], f8[:, :])", "total": "(f8[:],)", "expo": "(f8[:], f8[:])",
              "rows": "(f8[:, :], f8[:])", "pairs": "(f8[:],)"}, ["propagate-constants"] + ANNOTATE)
    below = {name: regions(f)[0].parallel.serial_below for name, f in module.functions.items()}
    # star: the constant k loop (2 trips) is multiplied out; s += x[i] is a load plus a reduction chain;
    # exp costs far more than a load.
    assert below["total"] == -(-SERIAL_WORK // 6)
    assert below["star"] < below["expo"] < below["total"]
    # an inner loop of run-time, region-invariant trip count: the guard multiplies the trip count
    # by it at run time (loop step 1 + load, update of out[i] 3 = 4 operations per inner trip)
    rows = regions(module.functions["rows"])[0].parallel
    assert rows.serial_below == -(-SERIAL_WORK // 4) and len(rows.serial_work) == 1
    assert str(rows.serial_work[0][0][1]) == "x.shape[1]"
    # a triangular inner loop (its trip count varies with i): its widest trip count, at the
    # first i, bounds the work of every iteration
    pairs = regions(module.functions["pairs"])[0].parallel
    assert pairs.serial_below is not None and len(pairs.serial_work) == 1
    assert [str(e) for e in pairs.serial_work[0][0][:2]] == ["1", "x.shape[0]"]


def test_schedules():
    module, _ = run("""
        @njit
        def k(a, out, start):
            for i in range(a.shape[0]):
                s = 0.0
                for j in range(a.shape[1]):
                    s += a[i, j]
                out[i] = s
            for i in range(a.shape[0]):
                lo = start[i]
                s = 0.0
                for j in range(lo, a.shape[1]):
                    s += a[i, j]
                out[i] += s
            for i in range(a.shape[0]):
                v = a[i, 0]
                while v > 1.0:
                    v = v * 0.5
                out[i] = v
        """, {"k": "(f8[:, :], f8[:], i8[:])"}, ANNOTATE)
    rectangular, through_private, with_while = regions(module.functions["k"])
    assert rectangular.parallel.schedule == "static"
    assert through_private.parallel.schedule == "dynamic"
    assert through_private.parallel.reason.endswith("dynamic schedule: inner trip count depends on lo")
    assert with_while.parallel.schedule == "dynamic"


def test_patterns():
    module, _ = run("""
        @njit
        def k(x, out):
            for i in range(x.shape[0]):
                out[i] = 2.0 * x[i]
            s = 0.0
            for i in range(x.shape[0]):
                s += x[i]
            c = 0.0
            for i in range(x.shape[0]):
                c += x[i]
                out[i] = c
            return s
        """, {"k": "(f8[:], f8[:])"}, ANNOTATE)
    patterns = [r.parallel.pattern for r in regions(module.functions["k"])]
    assert patterns == ["for", "reduce", "scan"]
    scan = regions(module.functions["k"])[2].parallel.scan
    assert (scan.var, scan.op, str(scan.type)) == ("c", "sum", "f64")


def test_cost_guard_bounds_a_varying_inner_loop_by_its_widest_trip_count():
    module, _ = run("""
        @njit(parallel=True)
        def lower(x):
            s = 0.0
            for i in prange(1, x.shape[0]):
                for j in range(0, i):
                    s += x[j]
            return s

        @njit(parallel=True)
        def shrinking(x):
            s = 0.0
            for i in prange(x.shape[0]):
                for j in range(0, x.shape[0] - 2 * i):
                    s += x[j]
            return s

        @njit(parallel=True)
        def quadratic(x):
            s = 0.0
            for i in prange(x.shape[0]):
                for j in range(i * i):
                    s += x[0]
            return s

        @njit(parallel=True)
        def gathered(x, idx):
            s = 0.0
            for i in prange(idx.shape[0]):
                for j in range(idx[i]):
                    s += x[j]
            return s
        """, {"lower": "(f8[:],)", "shrinking": "(f8[:],)", "quadratic": "(f8[:],)",
              "gathered": "(f8[:], i8[:])"}, ANNOTATE)
    work = {name: regions(f)[0].parallel.serial_work for name, f in module.functions.items()}
    # range(0, i): the stop grows with i, widest at the last i
    assert [str(e) for e in work["lower"][0][0][:2]] == ["0", "x.shape[0] - 1"]
    # the stop falls as i grows (slope -2): widest at the first i
    assert [str(e) for e in work["shrinking"][0][0][:2]] == ["0", "x.shape[0] - 2 * 0"]
    # not affine in i, or read from an array: no bound, the region is always parallel
    for name in ("quadratic", "gathered"):
        assert regions(module.functions[name])[0].parallel.serial_below is None


def test_cost_guard_discounts_vector_code_and_charges_reduction_chains():
    module, _ = run("""
        @njit(parallel=True)
        def extrema(x):
            lo = 1e300
            hi = -1e300
            for i in prange(x.shape[0]):
                lo = min(lo, x[i])
                hi = max(hi, x[i])
            return lo, hi

        @njit(parallel=True)
        def axpy(a, x, y):
            for i in prange(x.shape[0]):
                y[i] = a * x[i] + y[i]

        @njit(parallel=True)
        def floors(x, y):
            for i in prange(x.shape[0]):
                y[i] = x[i] // 3.0
        """, {"extrema": "(f8[:],)", "axpy": "(f8, f8[:], f8[:])", "floors": "(f8[:], f8[:])"}, ANNOTATE)
    below = {name: regions(f)[0].parallel.serial_below for name, f in module.functions.items()}
    # two loads and two min/max calls, plus a chain of 4 for each of the two reductions
    assert below["extrema"] == -(-SERIAL_WORK // 12)
    # 2 loads, a multiply, an add and a store, vectorized
    assert below["axpy"] == -(-SERIAL_WORK // -(-5 // VECTOR_WIDTH))
    # a load, a floor division (4) and a store: scalar code (Python's floor), no discount
    assert below["floors"] == -(-SERIAL_WORK // 6)


def test_cost_guard_multiplies_nested_trip_counts_and_not_loops_side_by_side():
    module, _ = run("""
        @njit(parallel=True)
        def rows(x, out):
            for i in prange(x.shape[0]):
                m = 0.0
                for j in range(x.shape[1]):
                    m = max(m, x[i, j])
                for j in range(x.shape[1]):
                    out[i, j] = x[i, j] / m

        @njit(parallel=True)
        def blocks(x, out):
            for i in prange(x.shape[0]):
                for j in range(x.shape[1]):
                    for k in range(x.shape[2]):
                        out[i] += x[i, j, k]
        """, {"rows": "(f8[:, :], f8[:, :])", "blocks": "(f8[:, :, :], f8[:])"}, ANNOTATE)
    rows = regions(module.functions["rows"])[0].parallel
    # two rows side by side: two paths of one loop each, the longer one stands for both
    assert [[str(b[1]) for b in path] for path in rows.serial_work] == [["x.shape[1]"], ["x.shape[1]"]]
    blocks = regions(module.functions["blocks"])[0].parallel
    # a nest: one path, its trip counts multiplied
    assert [[str(b[1]) for b in path] for path in blocks.serial_work] == [["x.shape[1]", "x.shape[2]"]]
