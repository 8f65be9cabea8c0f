"""NumPy calls read element by element: the array-valued ones, the scalar-valued ones, allocations and ranges.

>>> from kpc.ir.nodes import NOLOC, Function, Name, Param
>>> from kpc.ir.types import ArrayType, FLOAT64
>>> from kpc.ir.nodes import Call, Compare, Const
>>> from kpc.ir.types import BOOL
>>> from kpc.passes.numpy_lowering.elements import ElementLowering
>>> from kpc.passes.numpy_lowering.values import Namer
>>> vec = ArrayType(FLOAT64, 1, "C")
>>> f = Function("f", [Param("a", vec)], [])
>>> low = ElementLowering(f, Namer(f), NOLOC)
>>> positive = Compare(">", Name("a", vec), Const(0.0, FLOAT64), type=ArrayType(BOOL, 1, "C"))
>>> value = low.array(Call("np.where", [positive, Name("a", vec), Const(0.0, FLOAT64)], "numpy", type=vec), [])
>>> str(value.element([Name("i0")], []))
'a[i0] if a[i0] > 0.0 else 0.0'
"""

from __future__ import annotations

import math

from ...ir import nodes as n
from ...ir.intrinsics import NUMPY_WINDOWS
from ...ir.types import BOOL, FLOAT64, INT64, ArrayType, ScalarType, TupleType, promote
from ..host_routines import ROUTINES, host_routine
from .array_functions import ARRAY_FUNCTIONS
from .numpy_names import ALLOCATIONS, REDUCTIONS, ROUNDING, short_name
from .order_statistics import ORDERED_ARRAYS, ORDERED_SCALARS
from .searches import SEARCHES
from .values import ArrayValue, clone, const_int, is_bool_array


class NumpyCalls:
    """``ElementLowering``'s NumPy calls: array values, scalar results, allocations and ranges."""

    def arg(self, call: n.Call, pos: int, kw: str, default=None):
        """Argument ``pos`` (counted after the object of a method call) or keyword ``kw``."""
        offset = 1 if call.func.startswith(".") else 0
        if kw in call.kwargs:
            return call.kwargs[kw]
        if len(call.args) > pos + offset:
            return call.args[pos + offset]
        return default

    def subject(self, call: n.Call):
        return call.args[0]

    def call_value(self, call: n.Call, pre: list, hint: list | None = None) -> ArrayValue:
        name = short_name(call.func)
        dtype = call.type.dtype
        b = self.b
        if name in REDUCTIONS:
            axis = self.arg(call, 1, "axis")
            if axis is None or (isinstance(axis, n.Const) and axis.value is None):
                self.fail(f"`{call}` gives an array without an axis", call)
            return self.reduce_axis(REDUCTIONS[name], self.array(self.subject(call), pre),
                                    const_int(axis), dtype, call)
        if name in ALLOCATIONS:
            return self.allocation_value(name, call, pre)
        if name in ORDERED_ARRAYS:
            return self.order_value(call, pre)
        if call.kind == "numpy" and name in ARRAY_FUNCTIONS:
            return self.array_function(name, call, pre)
        if call.kind == "numpy" and name in SEARCHES:
            return self.search_value(call, pre)
        if call.func in ROUTINES:
            ((result, shape),) = host_routine(self, call, pre)
            return self.read_back(result, shape)
        if name in ("dot", "matmul"):
            return self.matmul(call.args[0], call.args[1], dtype, pre, call)
        if name == "kron":
            return self.kron(call, pre)
        if name in ("array", "asarray") and isinstance(call.args[0], n.TupleExpr):
            return self.literal_array(call.args[0], dtype, pre)
        if name in ("copy", "ascontiguousarray", "asfortranarray", "array", "asarray"):
            if name == "array" and not isinstance(getattr(call.args[0], "type", None), ArrayType):
                self.fail(f"`{call}` builds an array from a Python sequence", call)
            if name == "array" and dtype != call.args[0].type.dtype:
                return self.elementwise([call.args[0]], dtype, pre, lambda a: b.cast(a, dtype), hint)
            return self.array(self.subject(call), pre)
        if name == "astype":
            return self.elementwise([call.args[0]], dtype, pre, lambda a: b.cast(a, dtype), hint)
        if name == "transpose":
            axes = call.args[1:] or ([call.kwargs["axes"]] if "axes" in call.kwargs else [])
            perm = None
            if axes:
                rank = call.type.ndim
                perm = [const_int(e) for e in getattr(axes[0], "elements", axes)]
                if None in perm or sorted(p % rank for p in perm) != list(range(rank)):
                    self.fail(f"`{call}` with axes that are not constant or not a permutation", call)
                perm = [p % rank for p in perm]
            return self.transpose(self.array(self.subject(call), pre), perm)
        if name == "reshape":
            return self.reshape(call, pre)
        if name == "outer":
            left, right = self.array(call.args[0], pre), self.array(call.args[1], pre)
            if left.ndim != 1 or right.ndim != 1:
                self.fail(f"`{call}` of arrays that are not 1-D", call)

            def element(idx, body):
                x = left.element([idx[0]], body)
                y = right.element([idx[1]], body)
                return b.binop("*", b.cast(x, dtype), b.cast(y, dtype), dtype)

            return ArrayValue([left.shape[0], right.shape[0]], element, dtype)
        if name in ("flip", "fliplr", "flipud"):
            source = self.array(call.args[0], pre)
            axis = self.arg(call, 1, "axis")
            if name == "fliplr":
                axes = [1]
            elif name == "flipud":
                axes = [0]
            elif axis is None or (isinstance(axis, n.Const) and axis.value is None):
                axes = list(range(source.ndim))
            else:
                entries = axis.elements if isinstance(axis, n.TupleExpr) else [axis]
                axes = [const_int(e) for e in entries]
                if None in axes:
                    self.fail(f"`{call}` with a non-constant axis", call)
                axes = [a + source.ndim if a < 0 else a for a in axes]
                if not all(0 <= a < source.ndim for a in axes):
                    self.fail(f"`{call}`: axis out of range", call)

            def flipped(idx, body):
                return source.element([b.sub(b.add(clone(source.shape[d]), b.int(-1)), clone(i)) if d in axes
                                       else i for d, i in enumerate(idx)], body)

            return ArrayValue(source.shape, flipped, source.dtype, source.costly)
        if name in ("triu", "tril"):
            source = self.array(call.args[0], pre)
            if source.ndim != 2:
                self.fail(f"`{call}` of an array that is not 2-D", call)
            k = self.scalar(self.arg(call, 1, "k", b.int(0)), pre)

            def element(idx, body):
                op = ">=" if name == "triu" else "<="
                keep = n.Compare(op, clone(idx[1]), b.add(clone(idx[0]), clone(k)), BOOL, self.loc)
                return n.IfExp(keep, b.cast(source.element(idx, body), dtype), b.const(0, dtype),
                               dtype, self.loc)

            return ArrayValue(source.shape, element, dtype)
        if name in ROUNDING:
            return self.elementwise([call.args[0]], dtype, pre, self.rounding(call, dtype), hint)
        if name == "where":
            if len(call.args) != 3:
                self.fail(f"`{call}` with one argument (np.nonzero form)", call)
            return self.elementwise(call.args, dtype, pre,
                                    lambda t, x, y: n.IfExp(t, b.cast(x, dtype), b.cast(y, dtype),
                                                            dtype, self.loc), hint)
        if name == "clip":
            def clip(x, lo, hi):
                low = b.builtin("max", [b.cast(x, dtype), b.cast(lo, dtype)], dtype)
                return b.builtin("min", [low, b.cast(hi, dtype)], dtype)
            return self.elementwise(call.args[:3], dtype, pre, clip, hint)
        if name in ("cumsum", "cumprod"):
            return self.scan(name, call, pre)
        if name in ("concatenate", "hstack", "vstack", "stack"):
            return self.joined(name, call, pre)
        if name in ("ravel", "flatten"):
            return self.flat(self.array(self.subject(call), pre), None, pre)
        if name == "isclose":
            return self.elementwise(call.args[:2], BOOL, pre, self.close_to(call, pre), hint)
        if name in ("diff",):
            source = self.array(call.args[0], pre)
            if source.ndim != 1 or self.arg(call, 1, "n") is not None:
                self.fail(f"`{call}` other than the first difference of a 1-D array", call)

            def element(idx, body):
                nxt = source.element([b.add(clone(idx[0]), b.int(1))], body)
                return b.binop("-", b.cast(nxt, dtype), b.cast(source.element(idx, body), dtype), dtype)

            return ArrayValue([b.add(clone(source.shape[0]), b.int(-1))], element, dtype)
        return self.elementwise(self.ufunc_args(call), dtype, pre, self.ufunc(call, dtype), hint)

    def scalar_call(self, call: n.Call, pre: list):
        """A scalar-valued NumPy call: a reduction (hoisted) or a ufunc on scalars; None if
        the call is not NumPy-specific (a math intrinsic, a builtin)."""
        name = short_name(call.func)
        subject = call.args[0] if call.args else None
        has_array_arg = any(isinstance(getattr(a, "type", None), ArrayType) for a in call.args)
        if name in ORDERED_SCALARS and has_array_arg:
            return self.order_scalar(call, pre)
        if call.kind == "numpy" and name in SEARCHES:
            return self.search_scalar(call, pre)
        if call.func == "np.cov" and has_array_arg:
            return self.vector_covariance(call, pre)
        if name in REDUCTIONS and has_array_arg and isinstance(subject, n.Index) \
                and len(subject.indices) == 1 and is_bool_array(subject.indices[0]):
            return self.reduce_masked(REDUCTIONS[name], subject, call.type, pre, call)
        if name in REDUCTIONS and has_array_arg:
            axis = self.arg(call, 1, "axis")
            if axis is not None and not (isinstance(axis, n.Const) and axis.value is None):
                if const_int(axis) is None or self.array(subject, pre).ndim != 1:
                    self.fail(f"`{call}` with an axis on a scalar result", call)
            key = (REDUCTIONS[name], str(subject), str(call.type))
            return self.reduce_all(REDUCTIONS[name], self.array(subject, pre), call.type, pre, call, key=key)
        if name in ("dot", "matmul", "vdot", "inner") and has_array_arg:
            return self.reduce_matmul_scalar(n.BinOp("@", call.args[0], call.args[1], call.type, call.loc), pre)
        if name == "item" and has_array_arg:
            value = self.array(subject, pre)
            return self.b.cast(value.element([self.b.int(0)] * value.ndim, pre), call.type)
        if name == "allclose" and has_array_arg:
            close = self.elementwise(call.args[:2], BOOL, pre, self.close_to(call, pre))
            return self.reduce_all("all", close, BOOL, pre, call)
        if name == "trace" and has_array_arg:
            value = self.array(subject, pre)
            extent = self.b.builtin("min", [clone(value.shape[0]), clone(value.shape[1])], INT64)
            diagonal = ArrayValue([extent], lambda idx, body: value.element([idx[0], clone(idx[0])], body),
                                  value.dtype)
            return self.reduce_all("sum", diagonal, call.type, pre, call)
        if name == "linalg.norm" and has_array_arg:
            if len(call.args) > 1 or call.kwargs:
                self.fail(f"`{call}` with an order or axis (only the 2-norm / Frobenius norm)", call)
            value = self.array(subject, pre)
            squares = ArrayValue(value.shape, lambda idx, body: self.square(value.element(idx, body), call.type),
                                 call.type)
            total = self.reduce_all("sum", squares, call.type, pre, call)
            return self.b.math("np.sqrt", [total], call.type)
        if call.kind == "numpy" and not has_array_arg and (name in REDUCTIONS or name in ("where", "clip")):
            return self.scalar_form(name, call, pre)
        if name in ("maximum", "minimum", "fmax", "fmin") and not has_array_arg and len(call.args) == 2:
            # NumPy's NaN rules, not Python's min/max (kept for integers).
            args = [self.b.cast(self.scalar(a, pre), call.type) for a in call.args]
            if call.type.is_float:
                return self.nan_aware_extreme(name, *args, call.type)
            return self.b.builtin("max" if name in ("maximum", "fmax") else "min", args, call.type)
        if call.kind != "numpy":
            if has_array_arg and call.func in ("min", "max", "sum"):
                self.fail(f"builtin `{call.func}` over an array (use np.{call.func})", call)
            return None
        if has_array_arg:
            self.fail(f"`{call}` gives a scalar from arrays", call)
        if name in ROUNDING:
            return self.rounding(call, call.type)(self.scalar(call.args[0], pre))
        args = [self.scalar(a, pre) for a in call.args]
        if name in ("float64", "float32", "int64", "int32", "int16", "int8", "uint64", "uint32",
                    "uint8", "bool_", "intp", "float_", "double"):
            return self.b.cast(args[0], call.type)
        return self.ufunc(call, call.type)(*args)

    def scalar_form(self, name: str, call: n.Call, pre: list):
        """NumPy reductions, ``np.where`` and ``np.clip`` applied to scalars (0-d values)."""
        b = self.b
        args = [self.scalar(a, pre) for a in call.args]
        dtype = call.type
        if name == "where":
            return n.IfExp(args[0], b.cast(args[1], dtype), b.cast(args[2], dtype), dtype, self.loc)
        if name == "clip":
            low = b.builtin("max", [b.cast(args[0], dtype), b.cast(args[1], dtype)], dtype)
            return b.builtin("min", [low, b.cast(args[2], dtype)], dtype)
        op = REDUCTIONS[name]
        if op in ("argmin", "argmax"):
            return b.int(0)
        if op in ("var", "std"):
            return b.const(0, dtype)
        if op in ("any", "all", "count"):
            truth = args[0] if args[0].type == BOOL else n.Compare("!=", args[0], b.const(0, args[0].type),
                                                                  BOOL, self.loc)
            return b.cast(truth, dtype)
        return b.cast(args[0], dtype)

    def allocation_value(self, name: str, call: n.Call, pre: list) -> ArrayValue:
        b = self.b
        dtype = call.type.dtype
        if name.endswith("_like"):
            shape = self.array(call.args[0], pre).shape
        elif name in ("eye", "identity"):
            rows = self.scalar(call.args[0], pre)
            cols = self.arg(call, 1, "M")
            cols = rows if name == "identity" or cols is None or (
                isinstance(cols, n.Const) and cols.value is None) else self.scalar(cols, pre)
            k = self.scalar(self.arg(call, 2, "k", b.int(0)), pre) if name == "eye" else b.int(0)

            def eye(idx, body):
                on = n.Compare("==", clone(idx[1]), b.add(clone(idx[0]), clone(k)), BOOL, self.loc)
                return n.IfExp(on, b.const(1, dtype), b.const(0, dtype), dtype, self.loc)

            return ArrayValue([rows, clone(cols)], eye, dtype)
        elif name == "arange":
            return self.arange(call, dtype, pre)
        elif name == "linspace":
            return self.linspace(call, dtype, pre)
        elif name in NUMPY_WINDOWS:
            return self.window(name, self.scalar(call.args[0], pre))
        else:
            shape = self.shape_arg(call.args[0], pre)
        if name.startswith("empty"):
            return ArrayValue(shape, None, dtype)
        if name.startswith("zeros"):
            fill = b.const(0, dtype)
        elif name.startswith("ones"):
            fill = b.const(1, dtype)
        else:
            fill = b.cast(self.scalar(self.arg(call, 1, "fill_value"), pre), dtype)
        return ArrayValue(shape, lambda idx, body: clone(fill), dtype)

    def literal_array(self, elements: n.TupleExpr, dtype, pre: list) -> ArrayValue:
        """``np.array([[1, 2], [3, 4]])``: a new array, each number stored once (evaluated in order)."""
        shape, level = [], [elements]
        while all(isinstance(e, n.TupleExpr) for e in level):
            shape.append(len(level[0].elements))
            level = [x for e in level for x in e.elements]
        extents = [self.b.int(k) for k in shape]
        type = ArrayType(dtype, len(shape), "C")
        tmp = self.namer.fresh("literal", type)
        pre.append(n.Assign(self.b.name(tmp, type), self.allocation(extents, dtype), self.loc))
        for flat, value in enumerate(level):
            index, rest = [], flat
            for extent in reversed(shape):
                index.insert(0, self.b.int(rest % extent))
                rest //= extent
            store = n.Index(self.b.name(tmp, type), index, dtype, self.loc)
            pre.append(n.Assign(store, self.b.cast(self.scalar(value, pre), dtype), self.loc))
        return self.read_back(self.b.name(tmp, type), extents)

    def shape_arg(self, shape, pre: list) -> list:
        """Extents of a shape argument: ``n``, ``(n, m)``, ``a.shape``, a tuple local."""
        if isinstance(shape, n.TupleExpr):
            return [self.scalar(e, pre) for e in shape.elements]
        if isinstance(shape.type, TupleType):
            if isinstance(shape, n.Attribute) and shape.attr == "shape":
                return self.array(shape.value, pre).shape
            return [n.Index(clone(shape), [self.b.int(k)], INT64, self.loc)
                    for k in range(len(shape.type.elements))]
        return [self.scalar(shape, pre)]

    def arange(self, call: n.Call, dtype: ScalarType, pre: list) -> ArrayValue:
        b = self.b
        args = [self.scalar(a, pre) for a in call.args]
        if "dtype" in call.kwargs and len(args) > 3:
            args = args[:3]
        start, stop, step = (b.int(0), args[0], b.int(1)) if len(args) == 1 else \
            (args[0], args[1], args[2] if len(args) > 2 else b.int(1))
        c = const_int(step)
        if all(getattr(x.type, "is_int", False) for x in (start, stop, step)) and c is not None and c > 0:
            extent = b.sub(stop, start)
            if c != 1:
                extent = b.binop("//", b.add(extent, b.int(c - 1)), b.int(c), INT64)
        else:
            span = b.binop("/", b.binop("-", clone(stop), clone(start), FLOAT64), clone(step), FLOAT64)
            extent = b.cast(b.math("np.ceil", [span], FLOAT64), INT64)

        def element(idx, body):
            offset = clone(idx[0]) if c == 1 else b.binop("*", clone(idx[0]), clone(step),
                                                         promote(INT64, step.type))
            return b.cast(b.binop("+", clone(start), offset, dtype), dtype)

        return ArrayValue([extent], element, dtype)

    def linspace(self, call: n.Call, dtype: ScalarType, pre: list) -> ArrayValue:
        b = self.b
        start = b.cast(self.scalar(call.args[0], pre), dtype)
        stop = b.cast(self.scalar(call.args[1], pre), dtype)
        num = self.scalar(self.arg(call, 2, "num", b.int(50)), pre)
        if "endpoint" in call.kwargs:
            self.fail("np.linspace(endpoint=...)", call)

        def element(idx, body):
            last = b.builtin("max", [b.add(clone(num), b.int(-1)), b.int(1)], INT64)
            step = b.binop("/", b.binop("-", clone(stop), clone(start), dtype), b.cast(last, dtype), dtype)
            return b.binop("+", clone(start), b.binop("*", b.cast(clone(idx[0]), dtype), step, dtype), dtype)

        return ArrayValue([num], element, dtype)

    def window(self, name: str, m) -> ArrayValue:
        """``np.hamming(M)`` (hanning, bartlett, blackman): M points (none for M < 1, 1.0 for
        M = 1), point i of ``n = 1 - M + 2 i`` in Numba's order of operations (numba/np/arraymath.py)."""
        b = self.b

        def element(idx, body):
            points = b.binop("+", b.cast(b.sub(b.int(1), clone(m)), FLOAT64),
                             b.binop("*", b.cast(clone(idx[0]), FLOAT64), b.const(2.0, FLOAT64), FLOAT64), FLOAT64)
            last = b.cast(b.sub(clone(m), b.int(1)), FLOAT64)

            def cosine(factor):
                angle = b.binop("/", b.binop("*", b.const(factor, FLOAT64), clone(points), FLOAT64), clone(last),
                                FLOAT64)
                return b.math("np.cos", [angle], FLOAT64)

            def plus(*terms):
                total = terms[0]
                for term in terms[1:]:
                    total = b.binop("+", total, term, FLOAT64)
                return total

            def times(c, x):
                return b.binop("*", b.const(c, FLOAT64), x, FLOAT64)

            if name == "bartlett":
                ratio = b.binop("/", clone(points), clone(last), FLOAT64)
                rising = n.Compare("<=", clone(points), b.const(0.0, FLOAT64), BOOL, self.loc)
                value = n.IfExp(rising, b.binop("+", b.const(1.0, FLOAT64), ratio, FLOAT64),
                                b.binop("-", b.const(1.0, FLOAT64), clone(ratio), FLOAT64), FLOAT64, self.loc)
            elif name == "blackman":
                value = plus(b.const(0.42, FLOAT64), times(0.5, cosine(math.pi)), times(0.08, cosine(2.0 * math.pi)))
            else:
                a, c = (0.54, 0.46) if name == "hamming" else (0.5, 0.5)
                value = plus(b.const(a, FLOAT64), times(c, cosine(math.pi)))
            one = n.Compare("==", clone(m), b.int(1), BOOL, self.loc)
            return n.IfExp(one, b.const(1.0, FLOAT64), value, FLOAT64, self.loc)

        return ArrayValue([b.builtin("max", [clone(m), b.int(0)], INT64)], element, FLOAT64)

    def close_to(self, call: n.Call, pre: list):
        """``|a - b| <= atol + rtol * |b|`` (np.isclose's test, NaNs never close)."""
        b = self.b
        rtol = self.scalar(self.arg(call, 2, "rtol", n.Const(1e-05, FLOAT64, self.loc)), pre)
        atol = self.scalar(self.arg(call, 3, "atol", n.Const(1e-08, FLOAT64, self.loc)), pre)

        def test(x, y):
            x, y = b.cast(x, FLOAT64), b.cast(y, FLOAT64)
            gap = b.builtin("abs", [b.binop("-", x, y, FLOAT64)], FLOAT64)
            bound = b.binop("+", clone(atol), b.binop("*", clone(rtol), b.builtin("abs", [clone(y)], FLOAT64),
                                                      FLOAT64), FLOAT64)
            return n.Compare("<=", gap, bound, BOOL, self.loc)

        return test

    def square(self, x, dtype):
        x = self.b.cast(x, dtype)
        return self.b.binop("*", x, clone(x), dtype)
