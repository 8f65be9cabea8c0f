"""The before/after example in each pass's docstring is what the pass really does.

Each pass docstring has a ``Before::`` block (the IR the pass receives) and
``After::`` blocks: printed IR (``After::``) or the decision report
(``After (report)::``). Here each example's IR is built from Numba source, the
passes that precede it run, and both sides are compared with the printer's text.
"""

import doctest
import inspect
import textwrap

import pytest
from source_ir import load

from kpc.ir.printer import format_function
from kpc.passes import (array_accesses, dependence, error_model, explain, host_routines, infer_types, infer_view_dims,
                        inline_array_calls, liveness, subscripts)
from kpc.passes.explain import explain as explain_module
from kpc.passes.manager import PASSES, PassContext, _load_all, run_pipeline

ANALYSIS = ["parallelize", "recognize-reductions", "infer-dispatch"]

EXAMPLES = {
    "parallelize": ([], {"smooth": "(f8[:], f8[:])"}, """
        @njit
        def smooth(a, b):
            for i in range(1, len(a) - 1):
                b[i] = 0.5 * (a[i - 1] + a[i + 1])
            for i in range(1, len(a)):
                a[i] = a[i - 1] + b[i]
        """),
    "recognize-reductions": (["parallelize"], {"stats": "(i8[:], i8[:], i8[:])"}, """
        @njit
        def stats(x, idx, hist):
            lo = x[0]
            total = 0
            for i in range(len(x)):
                if x[i] < lo:
                    lo = x[i]
                total = total + x[i]
                hist[idx[i]] = hist[idx[i]] + 1
            return lo, total
        """),
    "infer-dispatch": (["parallelize", "recognize-reductions"], {"energy": "(f8[:],)"}, """
        @njit
        def lj(r):
            sr6 = (1.0 / r) ** 6
            return 4.0 * (sr6 * sr6 - sr6)

        @njit(parallel=True)
        def energy(r):
            e = 0.0
            for i in prange(len(r)):
                e += lj(r[i])
            return e
        """),
    "cost-guard": (ANALYSIS, {"scale": "(f8[:], f8)"}, """
        @njit
        def scale(x, a):
            for i in range(len(x)):
                x[i] = a * x[i]
        """),
    "propagate-constants": (["lower-numpy"], {"star": "(f8[:, :], f8[:, :])"}, """
        @njit(parallel=True)
        def star(inp, out):
            r = 2
            n = inp.shape[0]
            for i in prange(r, n - r):
                for k in range(1, r + 1):
                    out[i, 0] += (inp[i + k, 0] - inp[i - k, 0]) / (2.0 * k * r)
        """),
    "double-buffer": ([], {"relax": "(i8, i8)"}, """
        @njit
        def relax(n, steps):
            u = np.zeros(n)
            for s in range(steps):
                v = np.zeros(n)
                for i in range(1, n - 1):
                    v[i] = 0.5 * (u[i - 1] + u[i + 1]) + 1.0
                u = v
            return u
        """),
    "inline-array-calls": ([], {"total": "(f8[::1],)"}, """
        @njit
        def scaled(x, a):
            out = np.empty_like(x)
            for i in range(x.shape[0]):
                out[i] = a * x[i]
            return out

        @njit
        def total(x):
            y = scaled(x, 2.0)
            return y.sum()
        """),
    "lower-numpy": ([], {"f": "(f8[::1], f8[::1])"}, """
        @njit
        def f(x, out):
            out[1:-1] = np.exp(x[1:-1] - np.max(x)) + out[2:]
        """),
    "choose-host-forms": (ANALYSIS + ["cost-guard"], {"copy_sum": "(f8[::1], f8[::1])"}, """
        @njit(parallel=True)
        def copy_sum(a, c):
            for i in prange(len(a)):
                c[i] = a[i]
            s = 0.0
            for i in prange(len(a)):
                s += a[i]
            return s
        """),
    "choose-device-forms": (ANALYSIS + ["cost-guard", "choose-host-forms"], {"total": "(f8[:, :],)"}, """
        @njit(parallel=True)
        def total(a):
            s = 0.0
            for i in prange(a.shape[0]):
                for j in range(a.shape[1]):
                    s += a[i, j]
            return s
        """),
    "simplify-powers": (ANALYSIS, {"lj": "(f8,)"}, """
        @njit
        def lj(r):
            sr6 = (1.0 / r) ** 6
            d = r ** 0.5 + r ** -2
            return 4.0 * (sr6 * sr6 - sr6) + d
        """),
    "if-convert": (ANALYSIS + ["simplify-powers"], {"crc32": "(u1[:],)"}, """
        @njit
        def crc32(data):
            crc = 0xFFFFFFFF
            for i in range(data.shape[0]):
                crc ^= data[i]
                for _ in range(8):
                    if crc & 1:
                        crc = (crc >> 1) ^ 0xEDB88320
                    else:
                        crc >>= 1
            return crc ^ 0xFFFFFFFF
        """),
    "hoist-division-checks": (["error-model"], {"scaled": "(f8[:], f8[:], f8)"}, """
        @njit
        def scaled(x, out, d):
            for i in range(x.shape[0]):
                out[i] = x[i] / (2.0 * d)
        """),
    "periodic-neighbors": ([], {"area": "(f8[:, :],)"}, """
        @njit
        def area(poly):
            n = poly.shape[0]
            a = 0.0
            for i in range(n):
                a += poly[i, 0] * poly[(i + 1) % n, 1] - poly[(i + 1) % n, 0] * poly[i, 1]
            for i in range(n):
                a += poly[(i - 1) % n, 0]
            return 0.5 * a
        """),
    "hoist-invariants": (ANALYSIS + ["simplify-powers"], {"twiddle": "(c16[:, :],)"}, """
        @njit
        def twiddle(x):
            for i in range(x.shape[0]):
                for j in range(1, x.shape[1]):
                    x[i, j] = x[i, j - 1] * np.exp(-1j * np.pi * i / x.shape[0])
        """),
    "choose-placement": (ANALYSIS, {"scale": "(f8[:], f8)"}, """
        @njit(parallel=True)
        def scale(x, s):
            for i in prange(len(x)):
                x[i] = x[i] * s
        """),
    "one-thread-regions": (ANALYSIS, {"heat": "(f8[::1], f8[::1], i8)"}, """
        @njit(parallel=True)
        def heat(u, v, steps):
            for t in range(steps):
                for i in prange(1, len(u) - 1):
                    v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1])
                v[0] = v[1]
                v[len(v) - 1] = v[len(v) - 2]
                for i in prange(len(u)):
                    u[i] = 0.5 * (u[i] + v[i])
        """),
    "choose-schedule": (ANALYSIS, {"pairs": "(f8[:],)"}, """
        @njit(parallel=True)
        def pairs(x):
            s = 0.0
            for i in prange(len(x)):
                for j in range(i + 1, len(x)):
                    s += x[i] * x[j]
            return s
        """),
    "choose-teams": (ANALYSIS, {"softmax_rows": "(f8[:, :], f8[:, :])"}, """
        @njit(parallel=True)
        def softmax_rows(x, out):
            for i in prange(x.shape[0]):
                m = x[i, 0]
                for j in range(x.shape[1]):
                    m = max(m, x[i, j])
                s = 0.0
                for j in prange(x.shape[1]):
                    out[i, j] = np.exp(x[i, j] - m)
                    s += out[i, j]
                for j in prange(x.shape[1]):
                    out[i, j] = out[i, j] / s
        """),
    "local-accumulators": (ANALYSIS, {"pairs": "(f8[:],)"}, """
        @njit(parallel=True)
        def pairs(x):
            n = x.shape[0]
            c = 0
            for i in prange(n):
                for j in range(i + 1, n):
                    if x[i] < x[j]:
                        c += 1
            return c
        """),
    "flatten-mdrange": (ANALYSIS, {"add": "(f8[:, :], f8[:, :])"}, """
        @njit
        def add(a, b):
            for i in range(a.shape[0]):
                for j in range(1, a.shape[1]):
                    b[i, j] = a[i, j] + a[i, j - 1]
        """),
    "fold-triangular": (ANALYSIS, {"pairs": "(f8[:],)"}, """
        @njit(parallel=True)
        def pairs(x):
            s = 0.0
            for i in prange(len(x)):
                for j in range(i + 1, len(x)):
                    s += x[i] * x[j]
            return s
        """),
    "materialize-subviews": (ANALYSIS, {"potential": "(f8[:, ::1],)"}, """
        @njit
        def distance(p, q):
            return ((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2) ** 0.5

        @njit
        def lj(r):
            return r

        @njit(parallel=True)
        def potential(cluster):
            energy = 0.0
            for i in prange(len(cluster) - 1):
                for j in range(i + 1, len(cluster)):
                    energy += lj(distance(cluster[i], cluster[j]))
                    energy += lj(distance(cluster[i + 1], cluster[0]))
            return energy
        """),
}


def docstring_blocks(doc: str) -> list:
    """``[(header, text)]`` for every ``Header::`` block of a docstring."""
    blocks, lines = [], inspect.cleandoc(doc).splitlines()
    for k, line in enumerate(lines):
        if line.rstrip().endswith("::") and line.split()[0] in ("Before::", "After::", "After"):
            body = []
            for following in lines[k + 1:]:
                if following.strip() and not following.startswith("    "):
                    break
                body.append(following)
            blocks.append((line.strip()[:-2], textwrap.dedent("\n".join(body)).strip()))
    return blocks


def printed(module, block: str) -> str:
    """The printed functions that ``block`` shows, in its order (plus the call graph when shown)."""
    names = [line.split("@", 1)[1].split("(", 1)[0] for line in block.splitlines() if line.startswith("func @")]
    parts = [format_function(module.functions[name]) for name in names]
    if "callgraph" in block:
        parts.append("callgraph " + ", ".join(f"@{a} -> @{b}" for a, b in sorted(module.callgraph.edges)))
    return "\n\n".join(parts)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_docstring_example(name):
    before_passes, signatures, source = EXAMPLES[name]
    module = load(source, signatures)
    ctx = PassContext(target="pykokkos" if name in ("flatten-mdrange", "fold-triangular", "materialize-subviews")
                      else "kokkos")
    run_pipeline(module, ctx, before_passes)
    blocks = docstring_blocks(PASSES[name].__doc__)
    assert blocks and blocks[0][0] == "Before", f"{name}: the docstring starts no Before:: block"
    assert printed(module, blocks[0][1]) == blocks[0][1]
    run_pipeline(module, ctx, [name])
    assert len(blocks) > 1
    for header, text in blocks[1:]:
        if "report" in header:
            assert explain_module(module) == text
        else:
            assert printed(module, text) == text


# Modules whose doctests run here: the analyses the passes share, and the passes whose example is a
# doctest of their module rather than a Before:: block (infer-types, infer-view-dims, error-model).
DOCTESTED = [dependence, liveness, array_accesses, subscripts, explain, host_routines, infer_types, infer_view_dims,
             error_model, inline_array_calls]


def test_every_pass_has_an_example_that_runs():
    """Each registered pass shows what it does, in an example that runs: its Before::/After::
    blocks (test_docstring_example) or its module's doctests (test_module_doctests)."""
    _load_all()
    doctested = {module.__name__ for module in DOCTESTED}
    assert [name for name, cls in PASSES.items() if name not in EXAMPLES and cls.__module__ not in doctested] == []
    written = {name for name, cls in PASSES.items() if "Before::" in (cls.__doc__ or "")}
    assert written <= set(EXAMPLES), "a Before:: block that no test runs"


@pytest.mark.parametrize("module", DOCTESTED, ids=lambda m: m.__name__)
def test_module_doctests(module):
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0


@pytest.mark.parametrize("source", [
    # u starts as the caller's array: swapping would write into it
    """
    @njit
    def f(u, n, steps):
        for s in range(steps):
            v = np.zeros(n)
            v[0] = u[0] + 1.0
            u = v
        return u
    """,
    # another name keeps the old array
    """
    @njit
    def f(n, steps):
        u = np.zeros(n)
        first = u
        for s in range(steps):
            v = np.zeros(n)
            v[0] = u[0] + 1.0
            u = v
        return first
    """,
    # a slice of the old array outlives the step
    """
    @njit
    def f(n, steps):
        u = np.zeros(n)
        t = 0.0
        for s in range(steps):
            v = np.zeros(n)
            v[0] = u[0] + 1.0
            head = u[:1]
            u = v
            t += head[0]
        return u, t
    """,
    # the shape changes from step to step
    """
    @njit
    def f(n, steps):
        u = np.zeros(n)
        for s in range(steps):
            v = np.zeros(n + s)
            v[0] = u[0] + 1.0
            u = v
        return u
    """,
    # v is read after the loop
    """
    @njit
    def f(n, steps):
        u = np.zeros(n)
        v = np.zeros(n)
        for s in range(steps):
            v = np.zeros(n)
            v[0] = u[0] + 1.0
            u = v
        return v
    """,
], ids=["parameter", "alias", "slice", "shape", "read-after"])
def test_double_buffer_leaves_what_it_cannot_prove(source):
    module = load("\n" + textwrap.dedent(source))
    before = format_function(module.functions["f"])
    run_pipeline(module, PassContext(), ["double-buffer"])
    assert format_function(module.functions["f"]) == before
