"""Kernels written the way users write Numba with the constructs of issue 32, drawn at random.

Each *construct* (``CONSTRUCTS``) is a family of kernel shapes with random parts (dtypes,
thresholds, reductions, element-wise expressions, stencil weights, sizes, parallel or not):
boolean-mask reads and masked assignments, a name rebound to another rank, sorts and order
statistics, ``np.roll/cumsum/convolve/bincount/nonzero/where/diag``, arrays with a run-time
shape allocated in a ``prange`` body, double-buffered time loops (``u, v = v, u``, loop and
slice forms, parameters swapped), nested tuple targets and helpers called with arrays of two
ranks. A kernel's own helper is written in its source, named after it, so a reproducer keeps it.

Every input keeps the result well defined (no ties where the order of equal keys is not
specified, no empty arrays where Numba fails in its own runtime: ``np.percentile([])`` and
2-D masked assignment are AssertionErrors there); empty selections that Numba answers with
nan or ``ValueError`` are kept, since kpc must answer the same.

>>> import random
>>> source, case = ConstructGenerator(random.Random(4)).kernel("k0", "double_buffer")
>>> "u, v = v, u" in source or "= u, " in source or "v, u" in source
True
>>> case["writes"][0], "steps" in case["sizes"][0]
('u', True)
"""

from __future__ import annotations

import random

CONSTRUCTS = ("mask_read", "mask_assign", "rank_rebind", "order_stats", "array_funcs", "prange_alloc",
              "double_buffer", "nested_tuple", "two_rank_helper")
DTYPES = ("float64", "float64", "float32", "int64", "int32")


def array(dtype: str, shape: tuple, low=None, high=None) -> dict:
    spec = {"kind": "array", "shape": shape, "dtype": dtype}
    if low is not None:
        spec.update(low=low, high=high)
    return spec


def scalar(value) -> dict:
    return {"kind": "scalar", "value": value}


class ConstructGenerator:
    """Draws one kernel of a construct: ``kernel(name, construct) -> (source, case)``."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def kernel(self, name: str, construct: str) -> tuple:
        source, case = getattr(self, f"_{construct}")(name)
        case.setdefault("layouts", ["C"])
        return source, case

    # ---------------------------------------------------------------- pieces

    def dtype(self, floats_only: bool = False) -> str:
        return self.rng.choice(("float64", "float64", "float32") if floats_only else DTYPES)

    def threshold(self, dtype: str):
        return self.rng.choice((0.0, 0.25, -0.5, 0.75)) if dtype.startswith("float") else self.rng.choice((0, 3, -2))

    def elementwise(self, text: str, dtype: str) -> str:
        """A bounded element-wise expression of the array expression ``text``."""
        rng = self.rng
        c = rng.choice((2, 3, -1)) if dtype.startswith("int") else rng.choice((2.0, 0.5, -1.5))
        forms = [f"{text} * {c}", f"({text} + {c})", f"np.abs({text})", f"{text} * {text}", f"({text} - {c}) * {c}"]
        if dtype.startswith("float"):
            forms += [f"np.sin({text})", f"np.exp({text} * 0.5)", f"np.sqrt(np.abs({text}))"]
        return f"({rng.choice(forms)})"

    def condition(self, name: str, dtype: str) -> str:
        rng = self.rng
        t = self.threshold(dtype)
        lo, hi = (-0.5, 0.5) if dtype.startswith("float") else (-3, 4)
        return rng.choice((f"{name} > {t}", f"{name} < {t}", f"{name} >= {t}", f"({name} > {lo}) & ({name} < {hi})",
                           f"np.abs({name}) > {abs(t)}", f"{name} != {t}"))

    def sizes(self, minimum: int = 0) -> list:
        rng = self.rng
        values = [minimum, max(minimum, 1), rng.randint(max(minimum, 2), 12), rng.randint(40, 200)]
        return [{"n": n} for n in dict.fromkeys(values)]

    def sizes_2d(self, minimum: int = 0) -> list:
        rng = self.rng
        low = max(minimum, 1)
        values = [(minimum, 3), (low, low), (rng.randint(low + 1, 7), rng.randint(low + 1, 7)),
                  (rng.randint(15, 40), rng.randint(8, 25))]
        return [{"n": n, "m": m} for n, m in dict.fromkeys(values)]

    def layouts(self) -> list:
        return ["C", "strided"] if self.rng.random() < 0.3 else ["C"]

    # ---------------------------------------------------------------- constructs

    def _mask_read(self, name):
        rng = self.rng
        dtype = self.dtype()
        form = rng.choice(("reduce", "return", "guarded", "param", "other", "matrix", "rows"))
        # .min()/.max() of a selection that may be empty: Numba's ValueError, raised by kpc too.
        red = rng.choice((".sum()", ".shape[0]", ".mean()", ".size", ".min()", ".max()"))
        guarded_red = rng.choice((".sum()", ".max()", ".min()", ".mean()"))
        args = {"x": array(dtype, ("n",))}
        sizes = self.sizes()
        if form == "reduce":
            body = [f"sel = x[{self.condition('x', dtype)}]", f"return sel{red} + sel.shape[0]"]
        elif form == "return":
            selected = f"x[{self.condition('x', dtype)}]"
            body = [f"return {self.elementwise(selected, dtype)}"]
        elif form == "guarded":
            body = [f"m = {self.condition('x', dtype)}", "if m.any():", f"    return x[m]{guarded_red} * 1.0", "return -1.0"]
        elif form == "param":
            args["m"] = array("bool", ("n",))
            body = [f"return {self.elementwise('x[m]', dtype)}"]
        elif form == "other":
            args["y"] = array("float64", ("n",))
            body = [f"sel = x[y > {rng.choice(('y.mean()', '0.0', '0.5'))}]", f"return sel{red} + sel.size"]
            sizes = self.sizes(1)
        elif form == "matrix":
            args = {"x": array(dtype, ("n", "m"))}  # Numba's lowering asserts a 1-D mask: flatten first
            body = ["f = x.ravel()", f"return f[{self.condition('f', dtype)}]{red}"]
            sizes = self.sizes_2d()
        else:
            args = {"x": array(dtype, ("n", "m"))}
            body = ["s = 0.0", "for i in range(x.shape[0]):", "    row = x[i]",
                    f"    s += row[{self.condition('row', dtype)}].sum() * (i + 1)", "return s"]
            sizes = self.sizes_2d()
        return self.function(name, list(args), body), {"args": args, "sizes": sizes, "dtypes": [dtype],
                                                       "layouts": self.layouts()}

    def _mask_assign(self, name):
        """Masked assignment on 1-D arrays (Numba's lowering asserts a 1-D mask)."""
        rng = self.rng
        dtype = self.dtype()
        value = rng.choice((0, 1, -2)) if dtype.startswith("int") else rng.choice((0.0, 1.5, -2.0))
        form = rng.choice(("copy", "param", "array_value", "augmented", "other_mask", "loop"))
        args = {"x": array(dtype, ("n",))}
        writes = []
        if form == "copy":
            body = ["y = x.copy()", f"y[{self.condition('y', dtype)}] = {value}", "return y"]
        elif form == "param":
            body = [f"x[{self.condition('x', dtype)}] = {value}"]
            writes = ["x"]
        elif form == "array_value":
            body = ["y = x.copy()", f"m = {self.condition('x', dtype)}", f"y[m] = {self.elementwise('x[m]', 'int64')}",
                    "return y"]
            if dtype.startswith("float"):
                body[2] = f"y[m] = {self.elementwise('x[m]', dtype)}"
        elif form == "augmented":
            body = ["y = x.copy()", f"y[{self.condition('x', dtype)}] += {value if value else 1}", "return y.sum()"]
        elif form == "other_mask":
            args["out"] = array(dtype, ("n",))
            args["m"] = array("bool", ("n",))
            body = ["out[m] = x[m]", f"out[~m] = {value}"]
            writes = ["out"]
        else:
            args["out"] = array("float64", ("n",))
            body = ["for k in range(3):", f"    out[x > k - 1] = out[x > k - 1] + {rng.choice((1.0, 0.5))}",
                    "return out.sum()"]
            writes = ["out"]
        case = {"args": args, "sizes": self.sizes(), "dtypes": [dtype], "layouts": self.layouts()}
        if writes:
            case["writes"] = writes
        return self.function(name, list(args), body), case

    def _rank_rebind(self, name):
        rng = self.rng
        dtype = self.dtype()
        form = rng.choice(("flatten_param", "rows_then_sum", "ravel", "split_1d", "local", "loop_weighted"))
        args = {"x": array(dtype, ("n", 2, "m"))}
        sizes = [{"n": n, "m": m} for n, m in ((1, 1), (3, rng.randint(2, 5)), (rng.randint(6, 20), rng.randint(2, 7)))]
        if form == "flatten_param":
            args = {"x": array(dtype, ("n", 2, 3, "m"))}
            body = ["n = x.shape[0]", "x = x.reshape(n, -1)", f"return {self.elementwise('x', dtype)}.sum(axis=1)"]
        elif form == "rows_then_sum":
            axis = rng.choice((0, 1))
            body = ["x = x.reshape(x.shape[0], -1)", f"x = x.sum(axis={axis})", f"return {self.elementwise('x', dtype)}"]
        elif form == "ravel":
            body = [f"x = {rng.choice(('x.ravel()', 'x.reshape(-1)', 'x.flatten()'))}", "s = 0.0",
                    "for i in range(x.shape[0]):", f"    s += x[i] * {rng.choice(('(i % 5)', '(i + 1)', '1.5'))}",
                    "return s"]
        elif form == "split_1d":
            k = rng.choice((2, 3, 4))
            args = {"x": array(dtype, (f"n * {k}",))}
            body = [f"x = x.reshape(-1, {k})", f"return {rng.choice(('x.sum(axis=0)', 'x.sum(axis=1)', 'x[:, 0] - x[:, -1]', 'x.T.copy()'))}"]
            sizes = self.sizes()
        elif form == "local":
            body = ["c = x * 2", "c = c.reshape(c.shape[0], -1)", f"c = c.sum(axis={rng.choice((0, 1))})",
                    "return c"]
        else:
            body = ["n = x.shape[0]", "x = x.reshape(n, -1)", "s = 0.0", "for i in range(x.shape[0]):",
                    "    for j in range(x.shape[1]):", f"        s += x[i, j] * (j + 1) - {rng.choice(('i', '0.5', '2 * i'))}",
                    "return s"]
        return self.function(name, list(args), body), {"args": args, "sizes": sizes, "dtypes": [dtype]}

    def _order_stats(self, name):
        rng = self.rng
        floats = rng.random() < 0.7
        dtype = self.dtype(floats_only=floats)
        form = rng.choice(("sort", "sort_index", "sort_method", "argsort", "median", "percentile", "quantile",
                           "sort_rows", "median_2d", "window_median"))
        args = {"x": array(dtype, ("n",))}
        sizes = self.sizes(1)
        q = rng.choice((0.0, 10.0, 25.0, 50.0, 62.5, 90.0, 100.0))
        source_of = rng.choice(("x", "x[1:]", "x[::2]", self.elementwise("x", dtype)))
        if form == "sort":
            body = [f"return np.sort({source_of})"]
            sizes = self.sizes()
        elif form == "sort_index":
            body = ["s = np.sort(x)", f"return s[{rng.choice(('0', '-1', 's.shape[0] // 2'))}] * 2 + s[0]"]
        elif form == "sort_method":
            body = ["s = x.copy()", "s.sort()", "return s[-1] - s[0], s"]
        elif form == "argsort":
            if dtype.startswith("int"):  # ties: only a stable sort orders them
                body = ["order = np.argsort(x, kind='mergesort')", "return order, x[order]"]
                sizes = self.sizes()
            else:  # order[0] of an empty array reads out of bounds in Numba: at least one element
                body = [f"order = np.argsort({rng.choice(('x', '-x'))})", "return order[0], order"]
        elif form == "median":
            body = [f"return np.median({source_of})"]
            sizes = self.sizes(2)
        elif form == "percentile":
            body = [f"return np.percentile({source_of}, {q})"]
            sizes = self.sizes(2)
        elif form == "quantile":
            body = [f"return np.quantile({source_of}, {q / 100.0})", ]
            sizes = self.sizes(2)
        elif form == "sort_rows":
            args = {"x": array(dtype, ("n", "m"))}
            body = [f"return np.sort({rng.choice(('x', 'x * -1'))})"]
            sizes = self.sizes_2d(1)
        elif form == "median_2d":
            args = {"x": array(dtype, ("n", "m"))}
            body = ["meds = np.empty(x.shape[1])", "for j in range(x.shape[1]):",
                    f"    meds[j] = np.{rng.choice(('median', 'median', 'max'))}(x[:, j])", "return meds - np.median(x)"]
            sizes = self.sizes_2d(1)
        else:
            args = {"x": array(dtype, ("n",))}
            w = rng.choice((3, 5))
            body = ["n = x.shape[0]", "out = np.zeros(n)", f"win = np.empty({w}, dtype=x.dtype)",
                    f"for i in range({w // 2}, n - {w // 2}):", f"    for k in range({w}):",
                    f"        win[k] = x[i + k - {w // 2}]",
                    rng.choice(("    out[i] = np.median(win)", f"    out[i] = np.sort(win)[{w // 2}]")), "return out"]
            sizes = self.sizes()
        return self.function(name, list(args), body), {"args": args, "sizes": sizes, "dtypes": [dtype],
                                                       "layouts": self.layouts()}

    def _array_funcs(self, name):
        rng = self.rng
        dtype = self.dtype()
        form = rng.choice(("roll", "roll_2d", "cumsum", "cumsum_axis", "convolve", "bincount", "bincount_weights",
                           "nonzero", "nonzero_2d", "where", "diag_vector", "diag_matrix"))
        args = {"x": array(dtype, ("n",))}
        sizes = self.sizes()
        after = rng.choice(("", " * 2", ".sum()", " + 1"))
        if form == "roll":
            args["s"] = scalar(rng.choice(("n // 3 - 2", "n + 1", "-1", "2", "0")))
            body = [f"return np.roll({rng.choice(('x', self.elementwise('x', dtype)))}, s){after}"]
        elif form == "roll_2d":
            args = {"x": array(dtype, ("n", "m")), "s": scalar(rng.choice(("n * m + 3", "-2", "m")))}
            body = [f"return np.roll(x, s){after}"]
            sizes = self.sizes_2d(1)
        elif form == "cumsum":
            body = [f"return {rng.choice(('np.cumsum(x)', 'x.cumsum()', 'np.cumsum(x[::-1])'))}{after}"]
        elif form == "cumsum_axis":
            args = {"x": array(dtype, ("n", "m"))}
            body = [f"return np.cumsum(x, axis={rng.choice((0, 1, -1))}){after}"]
            sizes = self.sizes_2d()
        elif form == "convolve":
            args["h"] = array(dtype, ("k",))
            mode = rng.choice(("", ", 'full'", ", 'same'", ", mode='valid'"))
            first, second = rng.choice((("x", "h"), ("h", "x")))
            body = [f"return np.convolve({first}, {second}{mode}){after}"]
            sizes = [{"n": n, "k": k} for n, k in ((1, 1), (3, 5), (rng.randint(6, 30), rng.randint(1, 7)), (90, 4))]
        elif form in ("bincount", "bincount_weights"):
            args = {"labels": {"kind": "index", "shape": ("n",), "high": "n // 2 + 3"}}
            if form == "bincount_weights":
                args["w"] = array("float64", ("n",))
                call = "np.bincount(labels, weights=w)"
            else:
                call = rng.choice(("np.bincount(labels)", "np.bincount(labels, minlength=7)"))
            body = [f"return {call}{rng.choice(('', ' * 2', '.max()' if form == 'bincount' else ''))}"]
            sizes = self.sizes(1)
        elif form == "nonzero":
            cond = self.condition("x", dtype)
            body = [f"return {rng.choice((f'np.nonzero({cond})[0]', f'np.where({cond})[0]', f'np.flatnonzero({cond})'))}"]
        elif form == "nonzero_2d":
            args = {"x": array(dtype, ("n", "m"))}
            body = [f"rows, cols = np.nonzero({self.condition('x', dtype)})", "return rows * x.shape[1] + cols, rows"]
            sizes = self.sizes_2d()
        elif form == "where":
            args = {"x": array(dtype, ("n", "m"))}
            body = [f"return np.where({self.condition('x', dtype)})[{rng.choice((0, 1))}]"]
            sizes = self.sizes_2d()
        elif form == "diag_vector":
            args["k"] = scalar(rng.choice((0, 1, -2)))
            body = [f"return np.diag(x, k){after}"]
        else:
            args = {"x": array(dtype, ("n", "m")), "k": scalar(rng.choice((0, 1, -1, 3)))}
            body = [f"return np.diag(x, k){after}"]
            sizes = self.sizes_2d(1)
        return self.function(name, list(args), body), {"args": args, "sizes": sizes, "dtypes": [dtype],
                                                       "layouts": self.layouts()}

    def _prange_alloc(self, name):
        rng = self.rng
        dtype = self.dtype()
        form = rng.choice(("prefix", "row_scratch", "empty_like", "small_table", "reduce"))
        alloc_dtype = rng.choice(("", ", dtype=np.int64", ", dtype=np.float32")) if form != "empty_like" else ""
        args = {"x": array(dtype, ("n", "m"))}
        red = rng.choice(("sum", "max", "min"))
        if form == "prefix":
            args = {"x": array(dtype, ("n",))}
            body = ["n = x.shape[0]", "out = np.empty(n)", "for i in prange(n):",
                    f"    head = np.zeros(i + 1{alloc_dtype})", "    for k in range(i + 1):",
                    f"        head[k] = x[k] * {rng.choice(('(k + 1)', '2', '(i - k)'))}",
                    f"    out[i] = head.{red}() / (i + 1)", "return out"]
            sizes = self.sizes(1)
        elif form == "row_scratch":
            body = ["n, m = x.shape", "out = np.zeros(n)", "for i in prange(n):", f"    tmp = np.empty(m{alloc_dtype})",
                    "    for j in range(m):", f"        tmp[j] = x[i, j] * {rng.choice(('(j + 1)', '3', '(i + j)'))}",
                    f"    out[i] = tmp.{red}()", "return out"]
            sizes = self.sizes_2d(1)
        elif form == "empty_like":
            body = ["n = x.shape[0]", "out = np.empty(n)", "for i in prange(n):", "    row = np.empty_like(x[i])",
                    "    row[:] = x[i] * 2", f"    out[i] = row.{red}() + i", "return out"]
            sizes = self.sizes_2d(1)
        elif form == "small_table":
            body = ["n, m = x.shape", "out = np.empty(n)", "for i in prange(n):",
                    f"    t = np.zeros((i % 3 + 1, m + 1){alloc_dtype})", "    for a in range(t.shape[0]):",
                    "        for b in range(m):", "            t[a, b + 1] = t[a, b] + x[i, b] * (a + 1)",
                    "    out[i] = t.sum()", "return out"]
            sizes = self.sizes_2d(1)
        else:
            body = ["n, m = x.shape", "s = 0.0", "for i in prange(n):", f"    tmp = np.zeros(m - i % 2{alloc_dtype})",
                    "    for j in range(tmp.shape[0]):", "        tmp[j] = x[i, j] - x[i, 0]", "    s += tmp.sum()",
                    "return s"]
            sizes = self.sizes_2d(1)
        case = {"args": args, "sizes": sizes, "dtypes": [dtype]}
        if dtype == "float32" or "float32" in alloc_dtype:
            case["rtol"], case["atol"] = 2e-4, 1e-3
        return self.function(name, list(args), body, parallel=True), case

    def _double_buffer(self, name):
        rng = self.rng
        dtype = rng.choice(("float64", "float64", "float32", "int64"))
        integer = dtype == "int64"
        form = rng.choice(("params", "params", "local", "slices", "slices_params", "grid", "rotate"))
        parallel = rng.random() < 0.6
        loop = "prange" if parallel else "range"
        c = rng.choice((0.1, 0.2, 0.25, 0.4))
        if integer:
            update = rng.choice(("(u[i - 1] + u[i] + u[i + 1]) // 3", "(u[i - 1] + 2 * u[i] + u[i + 1]) % 17 - 8",
                                 "max(u[i - 1], u[i + 1]) - u[i] // 2"))
            slice_update = "(u[:-2] + u[1:-1] + u[2:]) // 3"
        else:
            update = rng.choice((f"u[i] + {c} * (u[i - 1] - 2.0 * u[i] + u[i + 1])",
                                 f"{c} * u[i - 1] + {1 - 2 * c:.3g} * u[i] + {c} * u[i + 1]",
                                 f"u[i] + {c} * (u[i + 1] - u[i - 1]) * 0.5 - {c / 4:.3g} * u[i]"))
            slice_update = rng.choice((f"u[1:-1] + {c} * (u[2:] - 2 * u[1:-1] + u[:-2])",
                                       f"{c} * u[:-2] + {1 - 2 * c:.3g} * u[1:-1] + {c} * u[2:]"))
        boundary = rng.choice(([], ["v[0] = u[0]", "v[n - 1] = u[n - 1]"], ["v[0] = u[n - 2]", "v[n - 1] = u[1]"]))
        steps = rng.choice(((0, 1, 4), (1, 2, 5), (2, 3, 7)))
        sizes = [{"n": n, "steps": s} for n, s in zip((3, rng.randint(5, 12), rng.randint(40, 120)), steps)]
        ret = rng.choice(("return u", "return u", "return v", "return u.sum()", ""))
        args = {"u": array(dtype, ("n",)), "v": array(dtype, ("n",)), "steps": scalar("steps")}
        writes = ["u", "v"]
        if form in ("params", "local"):
            body = ["n = u.shape[0]"] + (["v = u.copy()"] if form == "local" else []) + [
                "for _ in range(steps):", f"    for i in {loop}(1, n - 1):", f"        v[i] = {update}"]
            body += [f"    {b}" for b in boundary] + ["    u, v = v, u"] + ([ret] if ret else [])
            if form == "local":
                del args["v"]
                writes = ["u"]
        elif form in ("slices", "slices_params"):
            body = ["n = u.shape[0]"] + (["v = u.copy()"] if form == "slices" else []) + [
                "for _ in range(steps):", f"    v[1:-1] = {slice_update}"]
            body += [f"    {b}" for b in boundary] + ["    u, v = v, u"] + ([ret] if ret else [])
            parallel = False
            if form == "slices":
                del args["v"]
                writes = ["u"]
        elif form == "grid":
            args = {"u": array(dtype, ("n", "m")), "v": array(dtype, ("n", "m")), "steps": scalar("steps")}
            sizes = [{"n": n, "m": m, "steps": s} for (n, m), s in zip(((3, 3), (rng.randint(4, 9), rng.randint(4, 9)),
                                                                          (rng.randint(20, 40), rng.randint(10, 30))), steps)]
            cell = ("(u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] + u[i, j]) // 5" if integer else
                    f"u[i, j] + {c / 2} * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])")
            body = ["n, m = u.shape", "for _ in range(steps):", f"    for i in {loop}(1, n - 1):",
                    "        for j in range(1, m - 1):", f"            v[i, j] = {cell}", "    u, v = v, u"]
            body += [ret] if ret else []
        else:
            args = {"u": array(dtype, ("n",)), "u_prev": array(dtype, ("n",)), "steps": scalar("steps")}
            writes = ["u", "u_prev"]
            nxt = ("(u[i - 1] + u[i + 1] - u_prev[i]) // 2" if integer else
                   f"2.0 * u[i] - u_prev[i] + {c / 2} * (u[i - 1] - 2.0 * u[i] + u[i + 1])")
            body = ["n = u.shape[0]", "u_next = u_prev.copy()", "for _ in range(steps):",
                    f"    for i in {loop}(1, n - 1):", f"        u_next[i] = {nxt}",
                    "    u_prev, u, u_next = u, u_next, u_prev", rng.choice(("return u", "return u_next", "return u_prev"))]
        case = {"args": args, "sizes": sizes, "dtypes": [dtype], "writes": writes}
        if not integer:
            case["rtol"], case["atol"] = (2e-4, 1e-4) if dtype == "float32" else (1e-9, 1e-11)
        return self.function(name, list(args), body, parallel=parallel and "prange" in "\n".join(body)), case

    def _nested_tuple(self, name):
        rng = self.rng
        dtype = self.dtype()
        form = rng.choice(("literal", "enumerate_zip", "helper", "swap_loop", "nested_return"))
        args = {"x": array(dtype, ("n",)), "y": array(dtype, ("n",))}
        sizes = self.sizes(1)
        helper = ""
        if form == "literal":
            a, b, c = rng.choice(((1, 2, 3), (2.5, -1, 4), (0, 3, -1)))
            body = [f"(a, b), c = ({a}, {b}), {c}", "s = 0.0", "for i in range(x.shape[0]):",
                    "    s += (a * x[i] - b * y[i]) * c + i", "return s"]
        elif form == "enumerate_zip":
            body = ["s = 0.0", "for i, (p, q) in enumerate(zip(x, y)):",
                    f"    s += {rng.choice(('p * q', 'p - q * i', 'max(p, q)', 'p * (i % 3)'))}", "return s"]
            args["y"] = array(dtype, ("k",))
            sizes = [{"n": n, "k": k} for n, k in ((0, 3), (1, 1), (5, 8), (rng.randint(10, 40), rng.randint(5, 50)))]
        elif form == "helper":
            helper = (f"@njit\ndef {name}_h(x):\n    return (x.min(), x.max()), x.shape[0]\n\n\n")
            body = [f"(lo, hi), n = {name}_h(x)", f"(w, (p, q)) = n, ({rng.choice(('hi, lo', 'lo, hi'))})",
                    "return (p - q) * w + lo"]
        elif form == "swap_loop":
            body = ["(a, b), c = (x[0], y[0]), 0", "for i in range(1, x.shape[0]):", "    (a, b), c = (b, a + x[i]), c + 1",
                    "return a, b, c"]
        else:
            body = [f"t = ((x.sum(), y.{rng.choice(('max', 'min'))}()), x.shape[0])", "(s, m), n = t",
                    "return s * n - m"]
        return helper + self.function(name, list(args), body), {"args": args, "sizes": sizes, "dtypes": [dtype],
                                                                "layouts": self.layouts()}

    def _two_rank_helper(self, name):
        rng = self.rng
        dtype = self.dtype()
        h = f"{name}_h"
        inner = rng.choice(("(a * a).sum()", "np.abs(a).max()", "a.sum() / a.size", "a.mean() + a.shape[0]",
                            "np.sum(a * 2) - a.size", "a.min() + a.max()"))
        helper = f"@njit\ndef {h}(a):\n    return {inner}\n\n\n"
        form = rng.choice(("vector_matrix", "rows", "padded", "slices"))
        args = {"v": array(dtype, ("m",)), "a": array(dtype, ("n", "m"))}
        sizes = self.sizes_2d(1)
        if form == "vector_matrix":
            body = [f"return {h}(v) * 2 + {h}(a)"]
        elif form == "rows":
            body = ["out = np.empty(a.shape[0])", "for i in range(a.shape[0]):", f"    out[i] = {h}(a[i]) - {h}(v)",
                    f"return out + {h}(a)"]
        elif form == "padded":
            body = ["n, m = a.shape", "p = np.zeros((n + 2, m + 2), dtype=a.dtype)", "p[1:-1, 1:-1] = a",
                    f"return {h}(p) + {h}(v) + {h}(p[1])"]
        else:
            body = [f"return {h}(a[:, 0]) + {h}(a[1:, :]) + {h}(v[::2])"]
            sizes = [s for s in sizes if s["n"] >= 2]
        case = {"args": args, "sizes": sizes, "dtypes": [dtype], "layouts": self.layouts()}
        return helper + self.function(name, list(args), body), case

    # ---------------------------------------------------------------- text

    def function(self, name: str, params: list, body: list, parallel: bool = False) -> str:
        decorator = "@njit(parallel=True)" if parallel else "@njit"
        lines = [decorator, f"def {name}({', '.join(params)}):"] + [f"    {line}" for line in body]
        return "\n".join(lines) + "\n"
