"""Which loops become parallel regions, and the reason the report gives: one row per loop nest.

Each row is a Numba kernel; the checked loop is the first ``for`` of the
kernel (or the one on ``line``). ``expected`` is the start of the loop's line
in the decision report (``kpc ir --explain``), ``reason`` a part of the rest.
"""

from dataclasses import dataclass

import pytest
from source_ir import load

from kpc.ir import nodes as n
from kpc.ir.verifier import verify
from kpc.passes.explain import describe
from kpc.passes.manager import PassContext, run_pipeline

PASSES = ["parallelize", "recognize-reductions", "infer-dispatch", "cost-guard", "simplify-powers",
          "choose-schedule"]


@dataclass
class Row:
    id: str
    source: str
    signature: str
    expected: str
    reason: str = ""
    line: int | None = None
    auto_parallel: bool = True
    warning: str | None = None


ROWS = [
    # ---------------------------------------------------------------- parallel: independent writes
    Row("stencil-1d", """
        @njit
        def k(a, b):
            for i in range(1, a.shape[0] - 1):
                b[i] = 0.5 * (a[i - 1] + a[i + 1])
        """, "(f8[:], f8[:])", "parallel_for [Range]", "independent writes to b[i]"),
    Row("stencil-2d-mdrange", """
        @njit
        def k(a, b):
            for i in range(1, a.shape[0] - 1):
                for j in range(1, a.shape[1] - 1):
                    b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])
        """, "(f8[:, :], f8[:, :])", "parallel_for [MDRange 2-D]", "independent writes to b[i, j]"),
    Row("stencil-3d-mdrange", """
        @njit
        def k(u, out, alpha):
            n, m, p = u.shape
            for i in range(1, n - 1):
                for j in range(1, m - 1):
                    for l in range(1, p - 1):
                        out[i, j, l] = u[i, j, l] + alpha * (u[i - 1, j, l] + u[i + 1, j, l] - 2.0 * u[i, j, l])
        """, "(f8[:, :, :], f8[:, :, :], f8)", "parallel_for [MDRange 3-D]", "independent writes to out[i, j, l]"),
    Row("same-element-read-write", """
        @njit
        def k(a):
            for i in range(a.shape[0]):
                a[i] = a[i] * 2.0 + 1.0
        """, "(f8[:],)", "parallel_for [Range]", "independent writes to a[i]"),
    Row("reversed-index", """
        @njit
        def k(x, out):
            n = x.shape[0]
            for i in range(n):
                out[n - 1 - i] = x[i]
        """, "(f8[:], f8[:])", "parallel_for [Range]", "independent writes to out[n - 1 - i]"),
    Row("row-update-not-perfectly-nested", """
        @njit
        def k(a):
            for i in range(a.shape[0]):
                norm = 0.0
                for j in range(a.shape[1]):
                    norm += a[i, j] * a[i, j]
                for j in range(a.shape[1]):
                    a[i, j] = a[i, j] / norm
        """, "(f8[:, :],)", "parallel_for [Range]", "independent writes to a[i, j]"),
    Row("row-update-by-device-function", """
        @njit
        def scale_row(row, s):
            for j in range(row.shape[0]):
                row[j] = row[j] * s

        @njit
        def k(a, s):
            for i in range(a.shape[0]):
                scale_row(a[i], s[i])
        """, "(f8[:, :], f8[:])", "parallel_for [Range]", "a[i, :] (call @scale_row)"),
    Row("private-temporaries", """
        @njit
        def k(x, y):
            for i in range(x.shape[0]):
                t = 2.0 * x[i]
                u = t * t
                y[i] = u + t
        """, "(f8[:], f8[:])", "parallel_for [Range]", "independent writes to y[i]"),
    Row("matmul-collapses-i-j", """
        @njit
        def k(A, B, C):
            for i in range(A.shape[0]):
                for j in range(B.shape[1]):
                    s = 0.0
                    for p in range(B.shape[0]):
                        s += A[i, p] * B[p, j]
                    C[i, j] = s
        """, "(f8[:, :], f8[:, :], f8[:, :])", "parallel_for [MDRange 2-D]", "independent writes to C[i, j]"),
    Row("break-in-inner-loop-is-fine", """
        @njit(parallel=True)
        def k(a, out):
            for i in prange(a.shape[0]):
                count = 0
                for j in range(a.shape[1]):
                    if a[i, j] < 0:
                        break
                    count += 1
                out[i] = count
        """, "(f8[:, :], i8[:])", "parallel_for [Range]", "prange"),
    # ---------------------------------------------------------------- reductions and scans
    Row("sum-plus-equals", """
        @njit
        def k(x):
            s = 0.0
            for i in range(x.shape[0]):
                s += x[i]
            return s
        """, "(f8[:],)", "parallel_reduce (sum: s) [Range]", "sum reduction of s"),
    Row("sum-s-equals-s-plus", """
        @njit
        def k(x):
            s = 0.0
            for i in range(x.shape[0]):
                s = s + x[i] * x[i]
            return s
        """, "(f8[:],)", "parallel_reduce (sum: s) [Range]"),
    Row("minus-equals-is-a-sum", """
        @njit
        def k(x):
            s = 100
            for i in range(x.shape[0]):
                s -= x[i]
            return s
        """, "(i8[:],)", "parallel_reduce (sum: s) [Range]"),
    Row("product", """
        @njit
        def k(x):
            p = 1.0
            for i in range(x.shape[0]):
                p *= x[i]
            return p
        """, "(f8[:],)", "parallel_reduce (prod: p) [Range]"),
    Row("min-if-form", """
        @njit
        def k(x):
            lo = x[0]
            for i in range(1, x.shape[0]):
                if x[i] < lo:
                    lo = x[i]
            return lo
        """, "(i8[:],)", "parallel_reduce (min: lo) [Range]"),
    Row("max-builtin", """
        @njit(parallel=True)
        def k(x):
            hi = -np.inf
            for i in prange(x.shape[0]):
                hi = max(hi, x[i])
            return hi
        """, "(f8[:],)", "parallel_reduce (max: hi) [Range]", "prange"),
    Row("several-reductions", """
        @njit
        def k(x):
            s = 0.0
            lo = np.inf
            count = 0
            for i in range(x.shape[0]):
                v = x[i]
                s += v
                lo = min(lo, v)
                if v > 0:
                    count += 1
            return s, lo, count
        """, "(f8[:],)", "parallel_reduce (sum: s, min: lo, sum: count) [Range]"),
    Row("sum2d-mdrange-reduction", """
        @njit
        def k(arr):
            M, N = arr.shape
            result = 0.0
            for i in range(M):
                for j in range(N):
                    result += arr[i, j]
            return result
        """, "(f8[:, :],)", "parallel_reduce (sum: result) [MDRange 2-D]", "no writes to shared arrays"),
    Row("inclusive-scan", """
        @njit
        def k(x, out):
            s = 0.0
            for i in range(x.shape[0]):
                s += x[i]
                out[i] = s
        """, "(f8[:], f8[:])", "parallel_scan (prefix sum: s) [Range]", "prefix sum of s"),
    Row("exclusive-scan", """
        @njit
        def k(x, out):
            s = 0
            for i in range(x.shape[0]):
                out[i] = s
                s += x[i]
            return s
        """, "(i8[:], i8[:])", "parallel_scan (prefix sum: s) [Range]"),
    Row("histogram-atomic", """
        @njit
        def k(idx, hist):
            for i in range(idx.shape[0]):
                hist[idx[i]] += 1
        """, "(i8[:], i8[:])", "parallel_for [Range]", "atomic updates of hist[idx[i]]"),
    Row("histogram-computed-bin", """
        @njit(parallel=True)
        def k(x, lo, width, hist):
            for i in prange(x.shape[0]):
                b = int((x[i] - lo) / width)
                hist[b] = hist[b] + 1
        """, "(f8[:], f8, f8, i8[:])", "parallel_for [Range]", "atomic updates of hist[b]"),
    Row("triangular-reduction-dynamic", """
        @njit(parallel=True)
        def k(x):
            s = 0.0
            for i in prange(x.shape[0]):
                for j in range(i + 1, x.shape[0]):
                    s += x[i] * x[j]
            return s
        """, "(f8[:],)", "parallel_reduce (sum: s) [Range]", "dynamic schedule: inner trip count depends on i"),
    # ---------------------------------------------------------------- serial: dependences
    Row("carried-distance-1", """
        @njit
        def k(a):
            for i in range(1, a.shape[0]):
                a[i] = a[i - 1] + 1.0
        """, "(f8[:],)", "serial: a[i] written, a[i - 1] read (distance 1)"),
    Row("anti-dependence-distance-1", """
        @njit
        def k(a):
            for i in range(a.shape[0] - 1):
                a[i] = a[i + 1]
        """, "(f8[:],)", "serial: a[i] written, a[i + 1] read (distance 1)"),
    Row("same-element-every-iteration", """
        @njit
        def k(a, x):
            for i in range(x.shape[0]):
                a[0] = x[i]
        """, "(f8[:], f8[:])", "serial: a[0] written by every iteration"),
    Row("shared-scratch-array", """
        @njit
        def k(x, y):
            tmp = np.empty(1)
            for i in range(x.shape[0]):
                tmp[0] = x[i] * 2.0
                y[i] = tmp[0]
        """, "(f8[:], f8[:])", "serial: tmp[0] written by every iteration"),
    Row("indirect-store-without-atomic", """
        @njit
        def k(idx, x, out):
            for i in range(idx.shape[0]):
                out[idx[i]] = x[i]
        """, "(i8[:], f8[:], f8[:])", "serial: out[idx[i]] written at a data-dependent index"),
    Row("alias-through-row-view", """
        @njit
        def k(a):
            row = a[0]
            for i in range(1, a.shape[1]):
                row[i] = row[i - 1] * 0.5
        """, "(f8[:, :],)", "serial: row[i] written, row[i - 1] read (distance 1)"),
    Row("carried-scalar-recurrence", """
        @njit
        def k(x, y):
            t = 0.0
            for i in range(x.shape[0]):
                t = 0.5 * t + x[i]
                y[i] = t
        """, "(f8[:], f8[:])", "serial: t is carried from one iteration to the next"),
    Row("last-value-read-after", """
        @njit
        def k(x):
            last = 0.0
            for i in range(x.shape[0]):
                last = x[i]
            return last
        """, "(f8[:],)", "serial: last assigned in the loop and read after it"),
    Row("argmin-stays-serial", """
        @njit
        def k(x):
            best = x[0]
            where = 0
            for i in range(1, x.shape[0]):
                if x[i] < best:
                    best = x[i]
                    where = i
            return where
        """, "(f8[:],)", "serial:", "best is carried from one iteration to the next"),
    Row("running-max-read-inside", """
        @njit
        def k(r, peak):
            running = -np.inf
            for i in range(r.shape[0]):
                running = max(running, r[i])
                peak[i] = running
        """, "(f8[:], f8[:])", "serial: running max running is read inside the loop"),
    Row("scan-plus-reduction", """
        @njit
        def k(x, out):
            s = 0.0
            t = 0.0
            for i in range(x.shape[0]):
                s += x[i]
                out[i] = s
                t += x[i]
            return t
        """, "(f8[:], f8[:])", "serial: prefix sum of s cannot be combined with other carried values (t)"),
    Row("conditional-scan", """
        @njit
        def k(x, out):
            s = 0
            for i in range(x.shape[0]):
                if x[i] > 0:
                    s += 1
                out[i] = s
        """, "(f8[:], i8[:])", "parallel_scan (prefix sum: s) [Range]"),
    Row("scan-updated-next-to-a-write", """
        @njit
        def k(x, out):
            s = 0.0
            for i in range(x.shape[0]):
                if x[i] > 0:
                    s += x[i]
                    out[i] = s
        """, "(f8[:], f8[:])", "serial: prefix sum of s is updated inside a loop or next to array writes"),
    # ---------------------------------------------------------------- serial: exits, calls, options
    Row("early-break", """
        @njit
        def k(x, threshold):
            found = -1
            for i in range(x.shape[0]):
                if x[i] > threshold:
                    found = i
                    break
            return found
        """, "(f8[:], f8)", "serial: early exit: break at line 8"),
    Row("early-return", """
        @njit
        def k(x):
            for i in range(x.shape[0]):
                if x[i] < 0:
                    return i
            return -1
        """, "(f8[:],)", "serial: early exit: return at line 6"),
    Row("call-writes-shared-array", """
        @njit
        def bump(a, k):
            for j in range(a.shape[0]):
                a[j] += k

        @njit
        def k(a, x):
            for i in range(x.shape[0]):
                bump(a, x[i])
        """, "(f8[:], f8[:])", "serial: call @bump writes a (side effect on shared data)", line=9),
    Row("loop-variable-read-after", """
        @njit
        def k(x):
            for i in range(x.shape[0]):
                x[i] = 0.0
            return i
        """, "(f8[:],)", "serial: loop variable i read after the loop"),
    Row("same-elements-updated-by-every-iteration", """
        @njit
        def k(u, steps):
            for t in range(steps):
                for i in range(1, u.shape[0]):
                    u[i] = u[i] * 0.5
        """, "(f8[:], i8)", "serial: u[i] written by every iteration"),
    Row("no-auto-parallel", """
        @njit
        def k(arr):
            result = 0.0
            for i in range(arr.shape[0]):
                for j in range(arr.shape[1]):
                    result += arr[i, j]
            return result
        """, "(f8[:, :],)", "serial: auto-parallelization disabled (--no-auto-parallel)", auto_parallel=False),
    Row("no-auto-parallel-keeps-prange", """
        @njit(parallel=True)
        def k(x):
            s = 0.0
            for i in prange(x.shape[0]):
                s += x[i]
            return s
        """, "(f8[:],)", "parallel_reduce (sum: s) [Range]", "prange", auto_parallel=False),
    Row("small-constant-trip-count", """
        @njit
        def k(v):
            for d in range(3):
                v[d] = 0.0
        """, "(f8[:],)", "serial: constant trip count 3 is below the serial threshold 512"),
    Row("stride-2-reads-the-other-parity", """
        @njit
        def k(x):
            for i in range(0, x.shape[0] - 1, 2):
                x[i] = x[i + 1]
        """, "(f8[:],)", "parallel_for [Range]", "independent writes to x[i]"),
    Row("reverse-loop", """
        @njit
        def k(x, out):
            n = x.shape[0]
            for i in range(n - 1, -1, -1):
                out[n - 1 - i] = x[i]
        """, "(f8[:], f8[:])", "parallel_for [Range]", "independent writes to out[n - 1 - i]"),
    Row("stride-2-distance-2", """
        @njit
        def k(x):
            for i in range(2, x.shape[0], 2):
                x[i] = x[i - 2]
        """, "(f8[:],)", "serial: x[i] written, x[i - 2] read (distance 2)"),
    Row("variable-step", """
        @njit
        def k(x, s):
            for i in range(0, x.shape[0], s):
                x[i] = 0.0
        """, "(f8[:], i8)", "serial: step s is not a constant: the iteration space is unknown"),
    Row("prange-without-parallel-option", """
        @njit
        def k(a):
            for i in prange(1, a.shape[0]):
                a[i] = a[i - 1] + 1.0
        """, "(f8[:],)", "serial: prange without parallel=True runs as range (Numba semantics); a[i] written"),
    Row("loop-in-device-function", """
        @njit
        def norm(v):
            s = 0.0
            for k in range(v.shape[0]):
                s += v[k] * v[k]
            return s

        @njit(parallel=True)
        def k(a, out):
            for i in prange(a.shape[0]):
                out[i] = norm(a[i])
        """, "(f8[:, :], f8[:])", "serial: inside device function @norm (called from parallel regions)", line=5),
    Row("inner-loop-of-a-region", """
        @njit(parallel=True)
        def k(a, out):
            for i in prange(a.shape[0]):
                s = 0.0
                for j in range(a.shape[1]):
                    s += a[i, j]
                out[i] = s
        """, "(f8[:, :], f8[:])", "serial: inside the parallel region of line 4", line=6),
    Row("outer-serial-inner-region", """
        @njit
        def k(u, steps):
            for t in range(steps):
                for i in range(1, u.shape[0]):
                    u[i] = u[i] * 0.5
        """, "(f8[:], i8)", "parallel_for [Range]", "independent writes to u[i]", line=5),
    # ---------------------------------------------------------------- subscript arithmetic
    Row("even-writes-odd-reads-never-overlap", """
        @njit
        def k(a):
            for i in range(a.shape[0] // 2 - 1):
                a[2 * i] = a[2 * i + 1] + a[2 * i + 3]
        """, "(f8[:],)", "parallel_for [Range]", "independent writes to a[2 * i]"),
    Row("symbolic-offset-may-overlap", """
        @njit
        def k(a, m):
            for i in range(m):
                a[i] = a[i + m] * 0.5
        """, "(f8[:], i8)", "serial: a[i] written, a[i + m] read (may overlap across iterations)"),
    Row("index-through-private", """
        @njit
        def k(a):
            for i in range(a.shape[0] - 1):
                ip = i + 1
                a[ip] = a[ip] * 2.0
        """, "(f8[:],)", "parallel_for [Range]", "independent writes to a[ip]"),
    Row("distance-through-private", """
        @njit
        def k(a):
            for i in range(a.shape[0] - 1):
                j = i + 1
                a[j] = a[i] * 2.0
        """, "(f8[:],)", "serial: a[j] written, a[i] read (distance 1)"),
    Row("continue-before-private", """
        @njit
        def k(x, y):
            for i in range(x.shape[0]):
                if x[i] < 0:
                    continue
                t = x[i] * 2.0
                y[i] = t
        """, "(f8[:], f8[:])", "parallel_for [Range]", "independent writes to y[i]"),
    Row("view-returned-by-a-kernel-may-alias", """
        @njit
        def row_of(a, r):
            return a[r]

        @njit
        def k(a, x):
            for i in range(1, x.shape[0]):
                v = row_of(a, 0)
                v[i] = x[i]
        """, "(f8[:, :], f8[:])", "serial: v[i] written", line=8),
    # ---------------------------------------------------------------- prange races: warned, kept parallel
    Row("prange-race-warned", """
        @njit(parallel=True)
        def k(a, x):
            for i in prange(x.shape[0]):
                a[0] = x[i]
        """, "(f8[:], f8[:])", "parallel_for [Range]", "race: a[0] written by every iteration",
        warning="kernels.py:4:5: warning: prange loop races: a[0] written by every iteration"),
    Row("prange-carried-scalar-warned", """
        @njit(parallel=True)
        def k(x, y):
            t = 0.0
            for i in prange(x.shape[0]):
                t = 0.5 * t + x[i]
                y[i] = t
        """, "(f8[:], f8[:])", "parallel_for [Range]", "race: t is carried",
        warning="for i in prange(x.shape[0]):"),
]


def loop_at(function: n.Function, line: int | None) -> n.For:
    loops = [s for s in n.walk(function) if isinstance(s, n.For)]
    return next(loop for loop in loops if line is None or loop.loc.line == line)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
def test_loop_decision(row: Row):
    module = load(row.source, {"k": row.signature})
    ctx = PassContext(auto_parallel=row.auto_parallel, verify=True)
    run_pipeline(module, ctx, PASSES, verifier=verify)
    loop = loop_at(module.functions["k"] if row.line is None else _function_with_line(module, row.line), row.line)
    text = describe(loop)
    assert text.startswith(row.expected), text
    assert row.reason in text, text
    if row.warning is None:
        assert not ctx.warnings
    else:
        assert any(row.warning in str(w) for w in ctx.warnings), ctx.warnings


def _function_with_line(module, line: int) -> n.Function:
    for function in module.functions.values():
        if any(isinstance(s, n.For) and s.loc.line == line for s in n.walk(function)):
            return function
    raise AssertionError(f"no loop on line {line}")


def test_table_is_large_enough():
    serial = [r for r in ROWS if r.expected.startswith("serial")]
    assert len(ROWS) >= 30 and len(serial) >= 12
