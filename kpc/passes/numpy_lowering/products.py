"""Matrix products: a dot-product loop per element, a ``matmul`` routine call on the host, a vector dot hoisted, np.kron.

>>> from kpc.ir.nodes import NOLOC, BinOp, Function, Name, Param
>>> from kpc.ir.types import ArrayType, FLOAT64
>>> from kpc.ir.printer import format_function
>>> from kpc.passes.numpy_lowering.elements import ElementLowering
>>> from kpc.passes.numpy_lowering.values import Namer
>>> vec, mat = ArrayType(FLOAT64, 1, "C"), ArrayType(FLOAT64, 2, "C")
>>> f = Function("f", [Param("A", mat), Param("x", vec)], [])
>>> low = ElementLowering(f, Namer(f), NOLOC)
>>> value = low.array(BinOp("@", Name("A", mat), Name("x", vec), type=vec), [])
>>> [str(e) for e in value.shape], str(value.element([Name("r")], f.body))
(['A.shape[0]'], 'dot0')
>>> print(format_function(f))
func @f(A: f64[:, :] C, x: f64[:] C) -> ?   role=entry
  dot0: f64 = 0.0
  for i0: i64 in range(0, A.shape[1]):
    dot0 += A[r, i0] * x[i0]
"""

from __future__ import annotations

from ...ir import nodes as n
from ...ir.types import BOOL, INT64, NONE, ArrayType, promote
from ..aliasing import is_subview_expr
from .values import ArrayValue, clone, has_ufunc


class MatrixProducts:
    """``ElementLowering``'s matrix and vector products, and the Kronecker product."""

    def kron(self, call: n.Call, pre: list) -> ArrayValue:
        """``np.kron(a, b)``: element ``(i * bm + k, j * bn + l)`` is ``a[i, j] * b[k, l]`` (a
        1-D operand is one row), in the operands' promoted type, stored in ``a``'s dtype as
        Numba does; of two 1-D arrays, the one row."""
        b = self.b
        dtype = call.type.dtype
        a, c = (self.array(arg, pre) for arg in call.args)
        product = promote(a.dtype, c.dtype)
        operands = []
        for value in (a, c):
            if value.costly:
                value = self.read_back(self.materialize(value, pre), value.shape)
            operands.append(value)
        a, c = operands
        rows = [b.int(1) if v.ndim == 1 else clone(v.shape[0]) for v in (a, c)]
        cols = [clone(v.shape[-1]) for v in (a, c)]
        c_rows, c_cols = (self.local(name, clone(e), pre) for name, e in (("brows", rows[1]), ("bcols", cols[1])))

        def at(value, row, col):
            return [col] if value.ndim == 1 else [row, col]

        def pair(i, j, k, l, body):
            x = b.cast(a.element(at(a, i, j), body), product)
            y = b.cast(c.element(at(c, k, l), body), product)
            return b.cast(b.binop("*", x, y, product), dtype)

        def element(idx, body):
            row, col = (b.int(0), idx[0]) if len(idx) == 1 else idx
            i, k = b.binop("//", clone(row), clone(c_rows), INT64), b.binop("%", clone(row), clone(c_rows), INT64)
            j, l = b.binop("//", clone(col), clone(c_cols), INT64), b.binop("%", clone(col), clone(c_cols), INT64)
            return pair(i, j, k, l, body)

        cols_out = b.mul(cols[0], clone(c_cols))
        shape = [cols_out] if call.type.ndim == 1 else [b.mul(rows[0], clone(c_rows)), cols_out]
        # Written whole, block by block as Numba does: (i, k, j, l) -> (i * bm + k, j * bn + l).
        blocks = None
        if call.type.ndim == 2:
            def position(idx):
                i, k, j, l = idx
                return [b.add(b.mul(clone(i), clone(c_rows)), clone(k)), b.add(b.mul(clone(j), clone(c_cols)), clone(l))]

            blocks = ([clone(rows[0]), clone(c_rows), clone(cols[0]), clone(c_cols)],
                      lambda idx, body: pair(clone(idx[0]), clone(idx[2]), clone(idx[1]), clone(idx[3]), body),
                      position, None)
        return ArrayValue(shape, element, dtype, blocks=blocks)

    def matmul(self, left, right, dtype, pre: list, node) -> ArrayValue:
        """``A @ x``, ``x @ A``, ``A @ B``: computed by the ``matmul`` routine where
        ``products`` allows it, else each element is a dot product over the shared axis."""
        if self.products and left.type.ndim + right.type.ndim > 2:
            return self.matmul_routine(left, right, dtype, pre, node)
        b = self.b
        a, c = self.array(left, pre), self.array(right, pre)
        # Every element of an operand is read once per row or column of the result: one that
        # runs an inner loop or a transcendental ufunc is computed once, into a temporary.
        a = self.read_back(self.materialize(a, pre), a.shape) if a.costly or has_ufunc(left) else a
        c = self.read_back(self.materialize(c, pre), c.shape) if c.costly or has_ufunc(right) else c
        if (a.ndim, c.ndim) not in ((2, 1), (1, 2), (2, 2)):
            self.fail(f"`{node}` with operands of rank {a.ndim} and {c.ndim}", node)
        shape = ([a.shape[0]] if a.ndim == 2 else []) + ([c.shape[1]] if c.ndim == 2 else [])
        inner_extent = a.shape[-1]

        def element(idx, body):
            acc = self.namer.fresh("dot", dtype)
            k = b.name(self.namer.fresh("i", INT64), INT64)
            row = [clone(idx[0]), clone(k)] if a.ndim == 2 else [clone(k)]
            col = [clone(k), clone(idx[-1])] if c.ndim == 2 else [clone(k)]
            inner = []
            x = b.cast(a.element(row, inner), dtype)
            y = b.cast(c.element(col, inner), dtype)
            inner.append(n.AugAssign(b.name(acc, dtype), "+", b.binop("*", x, y, dtype), loc=self.loc))
            body.append(n.Assign(b.name(acc, dtype), b.const(0, dtype), self.loc))
            body.append(b.loop(k.id, clone(inner_extent), inner))
            return b.name(acc, dtype)

        return ArrayValue(shape, element, dtype, costly=True, blocks=self.row_by_row(a, c, dtype))

    def row_by_row(self, a: ArrayValue, c: ArrayValue, dtype):
        """``A @ B`` and ``x @ B`` written whole (``ArrayValue.blocks``): each result row set to 0,
        then ``a[i, k] * b[k, :]`` added for k in order (each element still sums in the order
        of ``k``): the inner loop reads rows of ``B``, not its columns."""
        if c.ndim != 2:
            return None
        b = self.b

        def element(idx, body):
            row = [clone(idx[0]), clone(idx[1])] if a.ndim == 2 else [clone(idx[0])]
            x = b.cast(a.element(row, body), dtype)
            return b.binop("*", x, b.cast(c.element([clone(idx[-2]), clone(idx[-1])], body), dtype), dtype)

        shape = ([clone(a.shape[0])] if a.ndim == 2 else []) + [clone(a.shape[-1]), clone(c.shape[1])]
        position = (lambda idx: [idx[0], idx[2]]) if a.ndim == 2 else (lambda idx: [idx[1]])
        return (shape, element, position, (b.const(0, dtype), None))

    def matmul_routine(self, left, right, dtype, pre: list, node) -> ArrayValue:
        """``out = np.empty(shape)`` and ``matmul(a, b, out)``: a routine the backend
        runs as one call (BLAS where it can). Operands are passed as views, a transpose of a
        view as that view with a flag (``matmul(A, y, out, ta=True)`` for ``A.T @ y``: nothing copied)
        and a scalar factor as ``alpha``; other operands are
        computed into temporaries first. The routine checks the inner extents (Numba's
        ValueError)."""
        b = self.b
        operands, flags, scale = [], {}, None
        for operand in (left, right):
            # A scalar factor of an operand (``alpha * A @ B``) scales the product instead.
            if isinstance(operand, n.BinOp) and operand.op == "*":
                factor, rest = (operand.left, operand.right) if not isinstance(operand.left.type, ArrayType) \
                    else (operand.right, operand.left)
                if not isinstance(factor.type, ArrayType) and isinstance(rest.type, ArrayType) \
                        and rest.type.ndim == operand.type.ndim and rest.type.dtype == dtype:
                    factor = self.scalar(factor, pre)
                    scale = factor if scale is None else b.binop("*", scale, factor, promote(scale.type, factor.type))
                    operand = rest
            transposed = isinstance(operand, n.Attribute) and operand.attr == "T" \
                and operand.value.type.ndim == 2 and is_subview_expr(operand.value) \
                and not self.reads_through(operand.value)
            operands.append(self.array_operand(operand.value if transposed else operand, pre))
            if transposed:
                flags["tb" if operands[1:] else "ta"] = b.const(True, BOOL)
        a, c = operands
        ta, tb = "ta" in flags, "tb" in flags
        if scale is not None:
            flags["alpha"] = b.cast(scale, dtype)
        rows = [b.shape_of(a, 1 if ta else 0)] if a.type.ndim == 2 else []
        cols = [b.shape_of(c, 0 if tb else 1)] if c.type.ndim == 2 else []
        shape = rows + cols
        type = ArrayType(dtype, len(shape), "C")
        out = self.namer.fresh("prod", type)
        pre.append(n.Assign(b.name(out, type), self.allocation(shape, dtype), self.loc))
        pre.append(n.ExprStmt(n.Call("matmul", [a, c, b.name(out, type)], "builtin", flags, NONE, self.loc),
                              self.loc))
        return self.read_back(b.name(out, type), shape)

    def reduce_matmul_scalar(self, node: n.BinOp, pre: list) -> n.Expr:
        """``x @ y`` / ``np.dot(x, y)`` of two 1-D arrays: a hoisted sum of products."""
        dtype = node.type
        a, c = self.array(node.left, pre), self.array(node.right, pre)
        if a.ndim != 1 or c.ndim != 1:
            self.fail(f"`{node}` with operands of rank {a.ndim} and {c.ndim}", node)

        def element(idx, body):
            x = self.b.cast(a.element(idx, body), dtype)
            y = self.b.cast(c.element(idx, body), dtype)
            return self.b.binop("*", x, y, dtype)

        return self.reduce_all("sum", ArrayValue(a.shape, element, dtype), dtype, pre, node)
