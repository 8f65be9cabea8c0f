"""infer-view-dims: view ranks on function interfaces through the call graph; row arguments become explicit subviews.

The pass (after ``infer-types``) checks every call edge: each array argument has
the rank and dtype of the callee's parameter, and all call sites of a callee agree
(otherwise a diagnostic names both sites). It then rewrites every subview index to
spell its trailing dimensions, so that emitters see a subview: ``cluster[i]`` of a
2-D ``cluster`` becomes ``cluster[i, :]``.

Before (after ``infer-types``)::

    func @potential(cluster: f64[:, :]) -> f64
      ...
          r: f64 = call @distance(cluster[i], cluster[j])

After::

    func @potential(cluster: f64[:, :]) -> f64
      ...
          r: f64 = call @distance(cluster[i, :], cluster[j, :])

Without signatures (generic mode, the PyKokkos target) this file also provides the
analysis ``param_uses`` that ``infer-types`` asks for: from the uses of each parameter
(number of indices, ``.shape[k]``, ``n, m = a.shape``, ``len(a)``, locals taken as rows,
and through calls, callees first) it decides which parameters are arrays and of which
rank, and which scalars are integers. ``kernel_b(item)`` reading ``item[0]`` makes
``item`` 1-D; ``kernel_a`` calling ``kernel_b(cluster[i])`` makes ``cluster`` 2-D.
Operands of ``np.dot``/``@``/``np.outer`` must be arrays, even when they are expressions:
a product that must be an array is read as matrix-vector (``np.dot(A.T, np.dot(A, x))``
makes ``A`` 2-D), and an element-wise operand makes its array-looking names arrays. A
name updated in place with an array is an array of that rank (``A += np.outer(x, y)``
makes ``A`` 2-D: a scalar parameter could not take the result).

>>> from kpc.frontend import parse_module
>>> from kpc.passes.manager import PassContext, run_pipeline
>>> m = parse_module('''
... from numba import njit
... @njit
... def first(item):
...     return item[0]
... @njit
... def total(cluster):
...     s = 0.0
...     for i in range(cluster.shape[0]):
...         s += first(cluster[i])
...     return s
... ''', "m.py")
>>> _ = run_pipeline(m, PassContext(), ["infer-types", "infer-view-dims"])
>>> print(format_function(m.functions["total"]))  # doctest: +NORMALIZE_WHITESPACE
func @total(cluster: f64[:, :]) -> f64   role=entry
  # assumed: cluster: f64[:, :] (no signature; dtype float64 assumed; rank 2: cluster[i] passed to @first as item, which is at least 1-D)
  s: f64 = 0.0
  for i: i64 in range(0, cluster.shape[0]):
    s += call @first(cluster[i, :])
  return s
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kpc.ir import nodes as n
from kpc.ir.intrinsics import NUMPY_BOUND, NUMPY_RANDOM, NUMPY_UFUNCS
from kpc.ir.diagnostics import KpcError, Note
from kpc.ir.nodes import format_expr
from kpc.ir.queries import elementwise_call
from kpc.ir.printer import format_function  # noqa: F401  (doctest)
from kpc.ir.types import NONE, SLICE, ArrayType, ScalarType

from .manager import Pass, register
from .numpy_typing import is_vector_cov

_ARRAY_FIRST_NUMPY = {"sum", "prod", "min", "max", "amin", "amax", "mean", "std", "var", "argmin",
                      "argmax", "any", "all", "cumsum", "cumprod", "copy", "empty_like", "zeros_like",
                      "ones_like", "full_like", "ravel", "reshape", "transpose", "sort", "argsort",
                      "diff", "trace", "nansum", "nanmean", "nanmin", "nanmax", "median",
                      "count_nonzero", "linalg.norm", "triu", "tril", "flip", "fliplr", "flipud",
                      "linalg.solve", "linalg.inv", "linalg.cholesky", "histogram", "cov", "percentile",
                      "quantile", "corrcoef"}
# Of those, the ones whose second argument is not an axis (np.percentile(a, 50): q).
_SECOND_NOT_AXIS = {"reshape", "percentile", "quantile", "corrcoef", "transpose"}
# NumPy functions whose first argument has 2 dimensions at least (np.cov: where kpc translates it).
_MATRIX_FIRST = {"triu", "tril", "fliplr", "linalg.solve", "linalg.inv", "linalg.cholesky", "cov", "fill_diagonal"}
_BITWISE = {"&", "|", "^", "<<", ">>"}
# Calls whose result has the rank of their first argument.
_SAME_RANK = {"np.empty_like", "np.zeros_like", "np.ones_like", "np.full_like", "np.copy", ".copy",
              "np.ascontiguousarray", "np.asarray", ".astype", "np.triu", "np.tril", "np.flip",
              "np.fliplr", "np.flipud", "np.sinc"}
_MATRIX_NUMPY = {"dot", "vdot", "matmul", "outer"}
_PRODUCTS = {"np.dot", "np.matmul", ".dot"}
_SHAPE_FIRST_NUMPY = {"empty", "zeros", "ones", "full", "eye", "identity", "arange"}
def _same_rank_root(expr):
    """The array whose rank ``expr`` has, through calls that keep their argument's rank
    (``np.cumsum(np.cumsum(img, axis=0), axis=1)``: ``img``)."""
    while isinstance(expr, n.Call) and expr.args and (
            expr.func in _SAME_RANK or expr.func in ("np.cumsum", ".cumsum") and "axis" in expr.kwargs):
        expr = expr.args[0]
    return expr


# The top of the rank lattice: no NumPy (or Numba) array has more dimensions, so a rank
# bound above it can only come from rebindings that keep adding dimensions; it is a conflict.
MAX_RANK = 32


@dataclass
class Fact:
    """A rank fact with the place and words that justify it (for assumptions and diagnostics)."""

    rank: int
    loc: n.Loc
    reason: str


@dataclass
class ParamUse:
    """What the body (and the callees) of a function say about one generic parameter."""

    array: bool = False
    exact: Fact | None = None
    lower: Fact | None = None
    integer: str = ""
    integer_elements: str = ""
    # ``exact`` is only the least rank the uses need (a callee's argument may have more)
    least_only: bool = False

    @property
    def rank(self) -> int | None:
        if self.exact is not None:
            return self.exact.rank
        if self.lower is not None:
            return self.lower.rank
        return None

    @property
    def reason(self) -> str:
        fact = self.exact or self.lower
        return fact.reason if fact else "used as an array"


@dataclass
class _Symbol:
    array: bool = False
    exact: Fact | None = None
    lower: Fact | None = None
    integer: str = ""
    integer_elements: str = ""
    element_of: str = ""
    relations: list = field(default_factory=list)
    # the expressions assigned to the name (``b = keys[i] % nbins``, ``b += ...``): an integer
    # name makes them integers
    values: list = field(default_factory=list)


class _FunctionUses:
    """Collects and solves the rank constraints of one function's names."""

    def __init__(self, function: n.Function, callee_uses: dict, module, source: str):
        self.function = function
        self.callee_uses = callee_uses
        self.module = module
        self.source = source
        self.symbols: dict = {}
        self.params = {p.name for p in function.params}
        # Expressions that must be arrays (operands of np.dot, @, np.outer), with the minimum rank and why.
        self.demands: list = []
        self.updates: list = []
        # ``a, b = value``: ``value`` is an array, of one more dimension than its names
        self.unpacks: list = []
        # ``target = base[...]``: related once the names used as arrays are known (``solve``)
        self.views: list = []

    def sym(self, name: str) -> _Symbol:
        if name not in self.symbols:
            self.symbols[name] = _Symbol()
        return self.symbols[name]

    def conflict(self, name: str, first: Fact, second: Fact) -> KpcError:
        return KpcError.at(
            second.loc, f"conflicting ranks for '{name}' in kernel '{self.function.name}': "
                        f"{second.reason} here, but {first.reason}",
            "rank conflict", "pass arrays of one rank to each parameter; take rows with a[i, :] "
                             "and elements with a[i, j]", self.source, notes=[Note(first.reason, first.loc)])

    def beyond_top(self, name: str, fact: Fact) -> KpcError:
        return KpcError.at(
            fact.loc, f"the rank of '{name}' in kernel '{self.function.name}' grows past {MAX_RANK} "
                      f"dimensions: {fact.reason}", "rank conflict",
            "give each view its own name: Numba types a variable with one rank", self.source)

    def set_exact(self, name: str, fact: Fact) -> bool:
        if fact.rank > MAX_RANK:
            raise self.beyond_top(name, fact)
        symbol = self.sym(name)
        symbol.array = True
        if symbol.exact is not None:
            if symbol.exact.rank != fact.rank:
                raise self.conflict(name, symbol.exact, fact)
            return False
        if symbol.lower is not None and symbol.lower.rank > fact.rank:
            raise self.conflict(name, symbol.lower, fact)
        symbol.exact = fact
        return True

    def set_lower(self, name: str, fact: Fact) -> bool:
        if fact.rank > MAX_RANK:
            raise self.beyond_top(name, fact)
        symbol = self.sym(name)
        changed = not symbol.array
        symbol.array = True
        if symbol.exact is not None:
            if symbol.exact.rank < fact.rank:
                raise self.conflict(name, symbol.exact, fact)
            return changed
        if symbol.lower is None or symbol.lower.rank < fact.rank:
            symbol.lower = fact
            return True
        return changed

    # -- collection
    def collect(self) -> None:
        # np.cov(x)[()]: Numba's 0-d covariance of a 1-D x, read as a scalar.
        self.vector_covs = {id(node.base) for node in n.walk(self.function)
                            if isinstance(node, n.Index) and not node.indices and is_vector_cov(node.base)}
        for node in n.walk(self.function):
            if isinstance(node, n.Assign):
                self.assignment(node.target, node.value)
            elif isinstance(node, n.For):
                for bound in (node.start, node.stop, node.step):
                    self.integer_use(bound, f"a bound of the loop over {node.var.id}")
            elif isinstance(node, n.Index):
                self.index(node)
            elif isinstance(node, n.Attribute) and isinstance(node.value, n.Name):
                # A local's .dtype says nothing of its rank: a list's item local (frontend.lists)
                # holds the numbers appended to it.
                if node.attr != "dtype" or node.value.id in {p.name for p in self.function.params}:
                    self.sym(node.value.id).array = True
            elif isinstance(node, n.Call):
                self.call(node)
            elif isinstance(node, n.BinOp) and node.op in _BITWISE:
                self.integer_use(node.left, f"an operand of {node.op}")
                self.integer_use(node.right, f"an operand of {node.op}")
            elif isinstance(node, n.BinOp) and node.op in ("%", "//"):
                for this, other in ((node.left, node.right), (node.right, node.left)):
                    if isinstance(other, n.Const) and type(other.value) is int:
                        self.integer_use(this, f"an operand of {node.op} with an integer constant")
            elif isinstance(node, n.BinOp) and node.op == "@":
                for operand in (node.left, node.right):
                    self.array_use(operand, "an operand of @")
                    self.demands.append((operand, 1, f"{format_expr(operand)} is an operand of @"))
            elif isinstance(node, n.UnaryOp) and node.op == "~":
                self.integer_use(node.operand, "an operand of ~")
            elif isinstance(node, n.AugAssign) and node.op in _BITWISE:
                self.integer_use(node.target, f"a target of {node.op}=")
                self.integer_use(node.value, f"an operand of {node.op}=")
            elif isinstance(node, n.AugAssign) and isinstance(node.target, n.Name):
                self.updates.append(node)
                if node.op in ("+", "-", "*", "//", "%"):
                    self.sym(node.target.id).values.append(node.value)

    def array_use(self, expr, reason: str) -> None:
        if isinstance(expr, n.Name):
            self.set_lower(expr.id, Fact(1, expr.loc, reason))
        elif isinstance(expr, (n.Compare, n.BinOp)):
            # ``x > 0`` where an array is needed: with a constant on one side, the other is the array.
            left, right = (expr.left, expr.right)
            if isinstance(right, n.Const) or isinstance(left, n.Const):
                self.array_use(left if isinstance(right, n.Const) else right, reason)

    def integer_use(self, expr, reason: str) -> None:
        if isinstance(expr, n.Name):
            symbol = self.sym(expr.id)
            symbol.integer = symbol.integer or reason
        elif isinstance(expr, n.Index) and isinstance(expr.base, n.Name):
            symbol = self.sym(expr.base.id)
            symbol.integer_elements = symbol.integer_elements or f"its elements are used as {reason}"
        elif isinstance(expr, n.BinOp) and expr.op in ("+", "-", "*", "//", "%"):
            self.integer_use(expr.left, reason)
            self.integer_use(expr.right, reason)
        elif isinstance(expr, n.UnaryOp) and expr.op == "-":
            self.integer_use(expr.operand, reason)
        elif isinstance(expr, n.Call) and expr.kind == "builtin" and expr.func in ("min", "max"):
            for arg in expr.args:  # max(n, 1) is an integer only when n is one
                self.integer_use(arg, reason)

    def assignment(self, target, value) -> None:
        if isinstance(target, n.Name):
            self.sym(target.id).values.append(value)
            if isinstance(value, n.Name):
                self.relate(value.id, target.id, 0, value.loc)
            elif isinstance(value, n.Index) and isinstance(value.base, n.Name):
                self.views.append((value, target.id))
                self.sym(target.id).element_of = value.base.id
            elif isinstance(value, n.Call) and value.kind == "numpy" and value.func in _SAME_RANK \
                    and value.args and isinstance(value.args[0], n.Name):
                self.relate(value.args[0].id, target.id, 0, value.loc)
        elif isinstance(target, n.TupleExpr) and isinstance(value, n.Attribute) and value.attr == "shape" \
                and isinstance(value.value, n.Name):
            name = value.value.id
            count = len(target.elements)
            self.set_exact(name, Fact(count, value.loc, f"unpacked as {count} dimensions "
                                                       f"({format_expr(target)} = {name}.shape)"))
        elif isinstance(target, n.TupleExpr) and not isinstance(value, n.TupleExpr):
            self.unpacks.append((target, value))
            for element in target.elements:
                if isinstance(element, n.Name):
                    self.sym(element.id).values.append(value)  # an index unpacked from a row: integers

    def relate(self, source: str, target: str, delta: int, loc: n.Loc) -> None:
        """rank(source) = rank(target) + delta (``target = source[...]`` or ``target = source``)."""
        self.sym(source).relations.append((target, delta, loc))
        self.sym(target).relations.append((source, -delta, loc))

    def index(self, node: n.Index) -> None:
        for item in node.indices:
            if isinstance(item, n.Slice):
                for part in (item.lower, item.upper, item.step):
                    self.integer_use(part, "a slice bound")
            elif isinstance(item, n.Compare):
                # a[labels == c]: a parameter compared inside an index is a mask's array
                for side in (item.left, item.right):
                    if isinstance(side, n.Name) and side.id in self.params and not self.sym(side.id).integer:
                        self.set_lower(side.id, Fact(1, item.loc, f"compared into the mask {format_expr(item)}"))
            else:
                self.integer_use(item, "an index")
        base = node.base
        if isinstance(base, n.Name):
            count = len(node.indices) - _none_count(node)
            self.set_lower(base.id, Fact(count, node.loc, f"indexed as {format_expr(node)}"))
        elif isinstance(base, n.Attribute) and base.attr == "shape" and isinstance(base.value, n.Name) \
                and len(node.indices) == 1 and isinstance(node.indices[0], n.Const) \
                and isinstance(node.indices[0].value, int):
            k = node.indices[0].value
            rank = k + 1 if k >= 0 else -k
            self.set_lower(base.value.id, Fact(rank, node.loc, f"{format_expr(node)} is read"))

    def call(self, node: n.Call) -> None:
        if node.kind == "builtin" and node.func == "len" and node.args and isinstance(node.args[0], n.Name):
            self.set_lower(node.args[0].id, Fact(1, node.loc, f"{format_expr(node)} is read"))
        elif node.kind == "numpy":
            self.numpy_call(node)
        elif node.kind == "random":
            self.random_call(node)
        elif node.kind == "kernel":
            self.kernel_call(node)

    def random_call(self, node: n.Call) -> None:
        """The seed, ``randint``'s bounds, sizes and ``rand``/``randn`` extents are integers."""
        name = node.func[len("np.random."):]
        if name in ("seed", "rand", "randn", "randint"):
            integers = node.args
        else:
            integers = node.args[-1:] if len(node.args) == len(NUMPY_RANDOM[name]) else []
        for arg in integers:
            for part in arg.elements if isinstance(arg, n.TupleExpr) else [arg]:
                self.integer_use(part, f"an integer argument of {node.func}()")

    def numpy_call(self, node: n.Call) -> None:
        name = node.func[3:] if node.func.startswith("np.") else node.func[1:]
        method = node.func.startswith(".")
        # np.cov(m, y): m and y are 1-D or 2-D; np.cov(x)[()]: x is 1-D.
        paired = name == "cov" and len(node.args) > 1 and not (
            isinstance(node.args[1], n.Const) and node.args[1].value is None)
        matrix_first = name in _MATRIX_FIRST and not paired and id(node) not in self.vector_covs
        root = _same_rank_root(node.args[0]) if node.args else None
        if name == "reshape":
            for extent in node.args[1:]:
                for part in extent.elements if isinstance(extent, n.TupleExpr) else [extent]:
                    self.integer_use(part, f"an extent of {node.func}()")
        if (method or name in _ARRAY_FIRST_NUMPY) and isinstance(root, n.Name):
            array = root.id
            axis = node.kwargs.get("axis")
            if axis is None and not method and name not in _SECOND_NOT_AXIS and len(node.args) > 1:
                axis = node.args[1]
            axes = []
            if name == "transpose":
                axes = node.args[1:] or ([node.kwargs["axes"]] if "axes" in node.kwargs else [])
            if len(axes) == 1 and isinstance(axes[0], n.TupleExpr):
                axes = axes[0].elements
            if axes:
                why = f"transposed by {len(axes)} axes in {format_expr(node)}"
                self.set_exact(array, Fact(len(axes), node.loc, why))
            elif isinstance(axis, n.Const) and isinstance(axis.value, int) and not isinstance(axis.value, bool):
                k = axis.value
                rank = k + 1 if k >= 0 else -k
                self.set_lower(array, Fact(rank, node.loc, f"reduced along axis {k} in {format_expr(node)}"))
            elif matrix_first:
                self.set_lower(array, Fact(2, node.loc, f"passed to {node.func}, which needs 2 dimensions"))
            else:
                self.set_lower(array, Fact(1, node.loc, f"passed to {node.func}"))
        if name == "histogram" and len(node.args) > 1 and isinstance(node.args[1], n.Name):
            # A name: the number of bins, or the edges if it is used as an array elsewhere.
            self.integer_use(node.args[1], f"the number of bins in {node.func}()")
        if name == "cov" and len(node.args) > 4:
            self.integer_use(node.args[4], f"ddof in {node.func}()")
        if name == "where" and len(node.args) == 1:
            self.array_use(node.args[0], f"passed to {node.func} alone")
        if name == "bincount" and node.args and isinstance(node.args[0], n.Name):
            symbol = self.sym(node.args[0].id)
            symbol.integer_elements = symbol.integer_elements or f"its elements are counted by {node.func}()"
        integer_params = {"roll": (1,), "diag": (1,), "bincount": (2,)}.get(name, ())
        for k in integer_params:
            if len(node.args) > k:
                self.integer_use(node.args[k], f"an integer argument of {node.func}()")
        if name in NUMPY_BOUND:
            weighted = name == "bincount" and len(node.args) > 1 and not (
                isinstance(node.args[1], n.Const) and node.args[1].value is None)
            arrays = node.args[:2] if name in ("linalg.solve", "convolve", "kron") or paired or weighted \
                else node.args[:1]
            # The sorted operands (np.digitize's x and np.interp's x may be scalars).
            arrays = {"digitize": node.args[1:2], "interp": node.args[1:3]}.get(name, arrays)
            for k, arg in enumerate(arrays):
                rank = 2 if k == 0 and matrix_first else 1
                self.array_use(arg, f"passed to {node.func}")
                self.demands.append((arg, rank, f"{format_expr(arg)} is passed to {node.func}"))
        if name == "corrcoef" and not (isinstance(node.args[1], n.Const) and node.args[1].value is None):
            for arg in node.args[1:2]:  # y (x is the first argument of NUMPY_BOUND's)
                self.array_use(arg, f"passed to {node.func}")
                self.demands.append((arg, 1, f"{format_expr(arg)} is passed to {node.func}"))
        if name in _MATRIX_NUMPY or (method and name == "dot"):
            for arg in node.args:
                self.array_use(arg, f"passed to {node.func}")
                self.demands.append((arg, 1, f"{format_expr(arg)} is passed to {node.func}"))
        if name in _SHAPE_FIRST_NUMPY and node.args:
            shape = node.args[0]
            parts = shape.elements if isinstance(shape, n.TupleExpr) else [shape]
            for part in parts:
                self.integer_use(part, f"a shape in {node.func}()")

    def kernel_call(self, node: n.Call) -> None:
        callee = self.module.functions.get(node.func)
        if callee is None:
            return
        uses = self.callee_uses.get(node.func, {})
        for param, arg in zip(callee.params, node.args):
            declared = param.type
            if isinstance(declared, ArrayType):
                rank, why = declared.ndim, f"{declared.ndim}-D by its signature"
            elif isinstance(declared, ScalarType):
                if declared.is_int:
                    self.integer_use(arg, f"passed to @{callee.name} as {param.name}, an integer")
                continue
            else:
                use = uses.get(param.name)
                if use is None:
                    continue
                if use.integer and not use.array:
                    self.integer_use(arg, f"passed to @{callee.name} as {param.name}, used as an integer")
                    continue
                if not use.array or use.rank is None:
                    continue
                rank, why = use.rank, f"{use.rank}-D"
                if use.least_only:
                    # the callee's uses give only a least rank (``x @ W``, ``s[i].max()``): it takes
                    # more dimensions too, typed for each call's arguments, so the argument gets only
                    # that least rank
                    why = f"at least {use.rank}-D"
            settle = self.set_lower if why.startswith("at least") else self.set_exact
            if isinstance(arg, n.Name):
                settle(arg.id, Fact(rank, arg.loc, f"{arg.id} passed to @{callee.name} as "
                                                   f"{param.name}, which is {why}"))
            elif isinstance(arg, n.Index) and isinstance(arg.base, n.Name):
                total = rank + _int_count(arg) - _none_count(arg)
                settle(arg.base.id, Fact(total, arg.loc, f"{format_expr(arg)} passed to "
                                                         f"@{callee.name} as {param.name}, which is {why}"))

    # -- solution
    def relate_views(self) -> None:
        """``target = base[...]``: rank(base) = rank(target) + the integer indices, less the
        ``np.newaxis`` ones; an index that is a name used as an array (``values[order]`` with
        ``order.shape[0]`` read) selects along one axis and keeps it (a 1-D index array)."""
        for value, target in self.views:
            arrays = sum(1 for i in value.indices if isinstance(i, n.Name) and i.id in self.symbols
                         and self.symbols[i.id].array)
            delta = _int_count(value) - _none_count(value) - arrays
            self.relate(value.base.id, target, delta, value.loc)

    def solve(self) -> None:
        self.relate_views()
        self.integers_through_assignments()
        for name, symbol in list(self.symbols.items()):
            if symbol.integer and symbol.element_of:
                source = self.sym(symbol.element_of)
                source.integer_elements = source.integer_elements or \
                    f"its elements (as {name}) are used as {symbol.integer}"
        self.check_relations()
        self.propagate()
        # Every round raises some rank bound, and bounds stop at MAX_RANK: the cap is never reached
        # unless that reasoning breaks, and then a diagnostic beats a hang.
        for _ in range(MAX_RANK * max(1, len(self.symbols)) + 1):
            if not self.apply_demands():
                return
            self.propagate()
        raise KpcError.at(self.function.loc, f"kpc could not settle the array ranks of kernel "
                                             f"'{self.function.name}'", "rank inference",
                          "give the kernel a signature (--signature or @njit(\"...\"))", self.source)

    def integers_through_assignments(self) -> None:
        """A name used as an integer makes what is assigned to it integers, until nothing changes.

        ``b = keys[i] % nbins; counts[b] += 1``: ``b`` is an index, so ``keys[i] % nbins`` is an
        integer, so are ``nbins`` and the elements of ``keys`` (a float operand of ``%`` would
        make ``b`` a float, which Numba rejects as an index). Elements used as integers make the
        elements of the array a view was taken from integers too (``row = keys[i]``).
        Terminates: each round sets a name's ``integer`` or ``integer_elements`` once, or stops.
        """
        changed = True
        while changed:
            changed = False
            for name, symbol in list(self.symbols.items()):
                before = [(s.integer, s.integer_elements) for s in self.symbols.values()]
                for value in symbol.values:
                    if symbol.integer:
                        self.integer_use(value, f"assigned to {name}, which is used as {symbol.integer}")
                    if symbol.integer_elements and isinstance(value, n.Name | n.Index) and \
                            isinstance(value.base if isinstance(value, n.Index) else value, n.Name):
                        base = value.base.id if isinstance(value, n.Index) else value.id
                        source = self.sym(base)
                        if not source.integer_elements:
                            source.integer_elements = f"{symbol.integer_elements} (through {name})"
                changed |= before != [(s.integer, s.integer_elements) for s in self.symbols.values()]

    def check_relations(self) -> None:
        """Raise a conflict where assignments bind one name to views of two ranks.

        ``Xi = Xi[0]`` (or ``a = b[0]`` with ``b = a``) asks rank(Xi) = rank(Xi) - 1: Numba
        rejects it (a variable has one type), and rank propagation around such a cycle would
        never stop. Each name gets an offset from the first name of its group of related
        names; a second path with another offset is the conflict.
        """
        offset: dict = {}
        for start in list(self.symbols):
            if start in offset:
                continue
            offset[start] = 0
            group, stack = [start], [start]
            while stack:
                name = stack.pop()
                for other, delta, loc in self.symbols[name].relations:
                    # rank(name) = rank(other) + delta
                    want = offset[name] - delta
                    if other not in offset:
                        offset[other] = want
                        group.append(other)
                        stack.append(other)
                    elif offset[other] != want:
                        raise self.rebinding(other, (offset[other], want), group, offset, loc)

    def rebinding(self, name: str, offsets: tuple, group: list, offset: dict, loc: n.Loc) -> KpcError:
        """The diagnostic of ``name`` bound to views of two ranks (two ``offsets`` from its group's first name).

        The ranks are spelled when a name of the group has a known rank (``n, m = a.shape``, a
        callee's parameter); otherwise their difference is.
        """
        known = next((m for m in group if self.sym(m).exact is not None), None)
        if known is not None:
            fact = self.sym(known).exact
            ranks = sorted({fact.rank - offset[known] + o for o in offsets}, reverse=True)
            both = " and ".join(_rank_words(r) if r >= 0 else f"rank {r}" for r in ranks)
            notes = [Note(fact.reason, fact.loc)]
        else:
            both = f"arrays of two ranks, one {abs(offsets[0] - offsets[1])} above the other"
            notes = []
        error = KpcError.at(
            loc, f"variable '{name}' in kernel '{self.function.name}' is bound to {both}",
            "rank conflict", f"Numba gives a variable one type: bind the new view to a new name "
                             f"({name}_view = ...)", self.source, notes=notes)
        error.rebinding_at = (self.function.name, name, loc)  # infer-types tries split_rebinding first
        return error

    def apply_demands(self) -> bool:
        """Make the operands of products (and the names updated in place with arrays) arrays; True if a fact changed.

        Which operand of an element-wise expression is the array is a guess: the operands already
        known to be arrays, otherwise every operand that is not an integer or a constant.
        """
        changed = False
        for expr, rank, reason in self.demands:
            changed |= self.demand(expr, rank, reason)
        for target, value in self.unpacks:
            if isinstance(value, n.Call) and value.kind != "numpy":
                continue  # a kernel's tuple
            rank = 1 + max((self.known_rank(e) or 0 for e in target.elements), default=0)
            changed |= self.demand(value, rank, f"{format_expr(value)} is unpacked into {format_expr(target)}")
        for update in self.updates:
            rank = self.known_rank(update.value)
            if rank is not None:
                reason = (f"{update.target.id} {update.op}= {format_expr(update.value)} updates it "
                          f"with a {rank}-D array")
                changed |= self.demand(update.target, rank, reason)
        return changed

    def known_rank(self, expr) -> int | None:
        """A lower bound on the rank of ``expr`` from the facts so far; None if it may be a scalar."""
        if isinstance(expr, n.Name):
            symbol = self.symbols.get(expr.id)
            if symbol is None or not symbol.array:
                return None
            fact = symbol.exact or symbol.lower
            return fact.rank if fact is not None else 1
        if isinstance(expr, n.Attribute):
            return self.known_rank(expr.value) if expr.attr == "T" else None
        if isinstance(expr, n.UnaryOp):
            return self.known_rank(expr.operand) if expr.op != "not" else None
        if isinstance(expr, n.Index):
            base = self.known_rank(expr.base)
            rank = None if base is None else base - _int_count(expr) + _none_count(expr)
            return rank if rank is not None and rank > 0 else None
        if isinstance(expr, (n.BinOp, n.Compare)):
            if isinstance(expr, n.BinOp) and expr.op == "@":
                return self.product_rank(expr.left, expr.right)
            return _max_rank([self.known_rank(expr.left), self.known_rank(expr.right)])
        if isinstance(expr, n.Call) and expr.kind == "numpy":
            return self.call_rank(expr)
        return None

    def call_rank(self, call: n.Call) -> int | None:
        func, args = call.func, call.args
        if func in _PRODUCTS and len(args) == 2:
            return self.product_rank(args[0], args[1])
        if func == "np.outer":
            return 2
        if func in ("np.eye", "np.identity", "np.linalg.inv", "np.linalg.cholesky", "np.cov"):
            return 2
        if func == "np.linalg.solve" and len(args) == 2:
            return self.known_rank(args[1])
        if func in ("np.arange", "np.linspace", "np.append", "np.unique", "np.hamming", "np.hanning",
                    "np.bartlett", "np.blackman"):
            return 1
        if func == "np.kron" and len(args) == 2:
            return _max_rank([self.known_rank(a) for a in args])
        if func in ("np.searchsorted", "np.digitize", "np.interp") and len(args) > 1:
            # A result per searched value: np.searchsorted's v, the others' x.
            return self.known_rank(args[1] if func == "np.searchsorted" else args[0])
        if func[3:] in _SHAPE_FIRST_NUMPY and args:
            return len(args[0].elements) if isinstance(args[0], n.TupleExpr) else 1
        if func in _SAME_RANK and args:
            return self.known_rank(args[0])
        if func == "np.where" or func[3:] in NUMPY_UFUNCS:
            return _max_rank([self.known_rank(a) for a in args])
        return None

    def product_rank(self, left, right) -> int | None:
        """np.dot / @: a matrix with anything gives an array; two vectors give a scalar."""
        ranks = [self.known_rank(left) or 1, self.known_rank(right) or 1]
        if min(ranks) >= 2:
            return 2
        return 1 if max(ranks) >= 2 else None

    def demand(self, expr, rank: int, reason: str) -> bool:
        """Make ``expr`` an array of rank ``rank`` at least, guessing through its operands; True if a fact changed."""
        known = self.known_rank(expr)
        if known is not None and known >= rank:
            return False
        if isinstance(expr, n.Name):
            symbol = self.sym(expr.id)
            if symbol.integer or (symbol.exact is not None and symbol.exact.rank < rank):
                return False
            return self.set_lower(expr.id, Fact(rank, expr.loc, reason))
        if isinstance(expr, n.Attribute) and expr.attr == "T":
            return self.demand(expr.value, rank, reason)
        if isinstance(expr, n.UnaryOp) and expr.op in ("-", "+"):
            return self.demand(expr.operand, rank, reason)
        if isinstance(expr, n.Index):
            return self.demand(expr.base, rank + _int_count(expr) - _none_count(expr), reason)
        if isinstance(expr, n.BinOp) and expr.op == "@":
            return self.demand_product(expr, expr.left, expr.right, rank, reason)
        if isinstance(expr, n.Call) and expr.kind == "numpy" and expr.func in _PRODUCTS and len(expr.args) == 2:
            return self.demand_product(expr, expr.args[0], expr.args[1], rank, reason)
        if isinstance(expr, n.BinOp) and expr.op not in _BITWISE:
            operands = [expr.left, expr.right]
        elif isinstance(expr, n.Call) and expr.kind == "numpy" and expr.func[3:] in NUMPY_UFUNCS:
            operands = list(expr.args)
        else:
            return False
        arrays = [o for o in operands if self.known_rank(o) is not None]
        changed = False
        for operand in arrays or operands:
            changed |= self.demand(operand, rank, reason)
        return changed

    def demand_product(self, product, left, right, rank: int, reason: str) -> bool:
        """A product that must be an array: matrix-vector (the left operand 2-D) unless it must be 2-D."""
        why = f"{format_expr(product)} must be an array ({reason}), so {{}} is taken as a matrix"
        changed = self.demand(left, 2, why.format(format_expr(left)))
        if rank >= 2:
            changed |= self.demand(right, 2, why.format(format_expr(right)))
        return changed

    def propagate(self) -> None:
        """Carry rank facts along ``target = source[...]`` relations until nothing changes.

        Terminates: ``check_relations`` ruled out cycles that change rank, each change raises a
        rank bound (or sets ``array``/``exact`` once), and bounds stop at ``MAX_RANK``.
        """
        changed = True
        while changed:
            changed = False
            for name, symbol in list(self.symbols.items()):
                for other, delta, loc in symbol.relations:
                    # rank(name) = rank(other) + delta
                    target = self.sym(other)
                    if symbol.array and not target.array:
                        target.array = True
                        changed = True
                    if symbol.exact is not None:
                        rank = symbol.exact.rank - delta
                        changed |= self.set_exact(other, Fact(rank, symbol.exact.loc, symbol.exact.reason))
                    if symbol.lower is not None and symbol.lower.rank - delta > 0:
                        rank = symbol.lower.rank - delta
                        changed |= self.set_lower(other, Fact(rank, symbol.lower.loc, symbol.lower.reason))

    def param_uses(self) -> dict:
        uses = {}
        for param in self.function.params:
            symbol = self.symbols.get(param.name, _Symbol())
            use = ParamUse(symbol.array, symbol.exact, symbol.lower, symbol.integer, symbol.integer_elements)
            if use.array and use.exact is None and use.lower is not None:
                # A generic callee that indexes its parameter k times takes a k-D view.
                use.exact = use.lower
                use.least_only = True
            uses[param.name] = use
        return uses


def _max_rank(ranks: list) -> int | None:
    known = [r for r in ranks if r is not None]
    return max(known) if known else None


def _int_count(node: n.Index) -> int:
    """The indices that drop a dimension: not slices, ``None`` nor a comparison (``x[x > 0]``, a
    boolean mask of ``x``'s rank, 1 as Numba has them: the result is 1-D like ``x``)."""
    return sum(1 for i in node.indices if not isinstance(i, (n.Slice, n.Compare))
               and not (isinstance(i, n.Const) and i.value is None))


def _none_count(node: n.Index) -> int:
    return sum(1 for i in node.indices if isinstance(i, n.Const) and i.value is None)


def param_uses(module) -> dict:
    """``{function: {param: ParamUse}}`` for every function, callees analysed first."""
    result = {}
    for name in module.bottom_up():
        function = module.functions[name]
        uses = _FunctionUses(function, result, module, module.source)
        uses.collect()
        uses.solve()
        result[name] = uses.param_uses()
    return result


# --------------------------------------------------------------------------- the pass


@register
class InferViewDims(Pass):
    """Check array ranks across call edges; spell subview indices with trailing full slices."""

    name = "infer-view-dims"

    def apply(self, ctx, module) -> None:
        for callee in module.functions:
            self.check_sites(module, callee)
        for function in module.functions.values():
            for node in n.walk(function):
                if isinstance(node, n.Index):
                    _spell_subview(node)

    def check_sites(self, module, callee: str) -> None:
        function = module.functions[callee]
        first_site = {}
        for caller in module.callers(callee):
            for site in module.sites(caller, callee):
                if elementwise_call(function, site.call):
                    continue
                for param, arg in zip(function.params, site.call.args):
                    ptype, atype = param.type, arg.type
                    if not isinstance(ptype, ArrayType) and not isinstance(atype, ArrayType):
                        continue
                    rank = atype.ndim if isinstance(atype, ArrayType) else 0
                    if param.name in first_site:
                        other_loc, other_rank = first_site[param.name]
                        if other_rank != rank:
                            raise KpcError.at(
                                site.loc, f"conflicting views for parameter '{param.name}' of '{callee}': "
                                          f"{_rank_words(rank)} here, {_rank_words(other_rank)} at {other_loc}",
                                "rank conflict", "pass arrays of one rank to each parameter",
                                module.source, notes=[Note(f"{_rank_words(other_rank)} passed here", other_loc)])
                    else:
                        first_site[param.name] = (site.loc, rank)
                    want = ptype.ndim if isinstance(ptype, ArrayType) else 0
                    same_dtype = not (isinstance(ptype, ArrayType) and isinstance(atype, ArrayType)) \
                        or ptype.dtype == atype.dtype
                    if want != rank or not same_dtype:
                        raise KpcError.at(
                            site.loc, f"argument {format_expr(arg)} of type {atype} does not match parameter "
                                      f"'{param.name}: {ptype}' of '{callee}'", "rank conflict",
                            "pass an array of the parameter's rank and dtype", module.source,
                            notes=[Note(f"'{callee}' declared here", function.loc)])


def _rank_words(rank: int) -> str:
    return "a scalar" if rank == 0 else f"a {rank}-D array"


def _spell_subview(node: n.Index) -> None:
    base, result = node.base.type, node.type
    if not (isinstance(base, ArrayType) and isinstance(result, ArrayType)):
        return
    if any(isinstance(i.type, ArrayType) for i in node.indices):
        return
    used = sum(1 for i in node.indices if i.type != NONE)
    for _ in range(base.ndim - used):
        node.indices.append(n.Slice(type=SLICE, loc=node.loc))
