"""Result types of NumPy functions, array methods and ``np.random`` draws, as Numba types them (before lower-numpy).

>>> from kpc.ir.types import FLOAT32, INT64, ArrayType, TupleType
>>> print(numpy_call(n.Call("np.zeros", [n.TupleExpr([n.Const(3), n.Const(4)])]), [TupleType((INT64, INT64))], {}))
f64[:, :] C
>>> column_sums = n.Call(".sum", [n.Name("a")], kwargs={"axis": n.Const(0)})
>>> print(numpy_call(column_sums, [ArrayType(FLOAT32, 2)], {"axis": INT64}))
f32[:] C
"""

from __future__ import annotations

from kpc.ir import intrinsics as lib
from kpc.ir import nodes as n
from kpc.ir.types import BOOL, FLOAT64, INT32, INT64, NONE, ArrayType, ScalarType, TupleType, Type

from . import numba_rules as rules
from .numba_rules import TypingFailure


def numpy_call(node: n.Call, args: list, kwargs: dict) -> Type:
    """The result type of a NumPy function or array method (before ``lower-numpy``)."""
    method = node.func.startswith(".")
    name = node.func[1:] if method else node.func[3:]
    if not method and name in lib.NUMPY_UFUNCS:
        if kwargs:
            raise TypingFailure(f"np.{name}() keyword arguments ({', '.join(kwargs)}) are not supported")
        return rules.ufunc_result(lib.NUMPY_UFUNCS[name], args)
    if name in lib.NUMPY_REDUCTIONS:
        return _reduction(node, name, args, kwargs, method)
    if name in lib.NUMPY_ALLOCATIONS:
        return _allocation(name, args, kwargs)
    if name in lib.NUMPY_LIKE:
        base = _array(args, 0, node.func)
        fill = 2 if name == "full_like" else 1
        dtype = kwargs.get("dtype") or (args[fill] if len(args) > fill else None)
        dtype = rules.dtype_arg(dtype) if dtype is not None else base.dtype
        return ArrayType(dtype, base.ndim, "C")
    handler = _OTHER.get((method, name)) or _OTHER.get((None, name))
    if handler is None:
        raise TypingFailure(f"{node.func}() is not supported with these arguments")
    return handler(node, args, kwargs)


def random_call(node: n.Call, args: list) -> Type:
    """The result type of ``np.random.<f>(...)`` (arguments bound by the frontend), as Numba
    types it: float64 draws, ``randint`` in the integer type of its bounds, an int64 array for
    ``randint(..., size)``; ``seed`` returns nothing.

    >>> print(random_call(n.Call("np.random.randint", [n.Const(0), n.Const(9)]), [INT32, INT32]))
    i32
    >>> print(random_call(n.Call("np.random.normal", [n.Const(0.0), n.Const(1.0), n.Const(3)]), [FLOAT64] * 2 + [INT64]))
    f64[:] C
    """
    name = node.func[len("np.random."):]
    if name in ("rand", "randn"):
        if not all(isinstance(a, ScalarType) and a.is_int for a in args):
            raise TypingFailure(f"{node.func}() takes integer extents, got {', '.join(map(str, args))}")
        return ArrayType(FLOAT64, len(args), "C") if args else FLOAT64
    if name == "seed":
        if len(args) != 1 or not (isinstance(args[0], ScalarType) and args[0].is_int):
            raise TypingFailure(f"np.random.seed() takes one integer, got {', '.join(map(str, args)) or 'nothing'}")
        return NONE
    arity = len(lib.NUMPY_RANDOM[name])
    size = args[arity - 1] if len(args) == arity and args[-1] != NONE else None
    bounds = args[:arity - 1]
    if name == "randint":
        if not bounds:
            raise TypingFailure("np.random.randint() needs an upper bound")
        ints = [a for a in bounds if a != NONE]
        if not all(isinstance(a, ScalarType) and a.is_int for a in ints):
            raise TypingFailure(f"np.random.randint() bounds must be integers, got {', '.join(map(str, ints))}")
        element = INT64 if size is not None else ints[0] if len(ints) == 1 else rules.unify(ints[0], ints[1])
    else:
        if not all(isinstance(a, ScalarType) and not a.is_complex for a in bounds):
            raise TypingFailure(f"{node.func}() parameters must be real numbers, got {', '.join(map(str, bounds))}")
        element = FLOAT64
    return element if size is None else ArrayType(element, rules.shape_rank(size), "C")


def _array(args: list, i: int, what: str) -> ArrayType:
    if len(args) <= i or not isinstance(args[i], ArrayType):
        got = args[i] if len(args) > i else "nothing"
        raise TypingFailure(f"{what}() needs an array argument, got {got}")
    return args[i]


def _reduction(node: n.Call, name: str, args: list, kwargs: dict, method: bool) -> Type:
    if not args:
        raise TypingFailure(f"{node.func}() needs an array")
    base = args[0]
    if isinstance(base, ScalarType):
        return rules.reduction_dtype(name, base)
    base = _array(args, 0, node.func)
    dtype = rules.reduction_dtype(name, base.dtype)
    axis_node = node.kwargs.get("axis")
    if axis_node is None and len(node.args) > 1:
        axis_node = node.args[1]
    if axis_node is None:
        return dtype
    if not (isinstance(axis_node, n.Const) and isinstance(axis_node.value, int)):
        raise TypingFailure(f"{node.func}(axis=...) needs a constant axis")
    axis = axis_node.value
    if not -base.ndim <= axis < base.ndim:
        raise TypingFailure(f"axis {axis} is out of range for {base}")
    if name in ("any", "all", "median", "count_nonzero"):
        raise TypingFailure(f"{node.func}() with an axis is not supported")
    ndim = base.ndim - 1
    return dtype if ndim == 0 else ArrayType(dtype, ndim, "C")


def _allocation(name: str, args: list, kwargs: dict) -> Type:
    if not args:
        raise TypingFailure(f"np.{name}() needs a shape")
    rank = rules.shape_rank(args[0])
    position = 2 if name == "full" else 1
    dtype = kwargs.get("dtype") or (args[position] if len(args) > position else None)
    if dtype is not None:
        element = rules.dtype_arg(dtype)
    elif name == "full":
        if len(args) < 2:
            raise TypingFailure("np.full() needs a fill value")
        fill = args[1]
        if not isinstance(fill, ScalarType):
            raise TypingFailure(f"np.full() fill value must be a number, got {fill}")
        element = fill
    else:
        element = FLOAT64
    return ArrayType(element, rank, "C")


def _arange(node, args, kwargs):
    if not 1 <= len(args) <= 3:
        raise TypingFailure("np.arange() takes 1 to 3 arguments")
    if "dtype" in kwargs:
        return ArrayType(rules.dtype_arg(kwargs["dtype"]), 1, "C")
    for t in args:
        if not isinstance(t, ScalarType):
            raise TypingFailure(f"np.arange() bounds must be numbers, got {t}")
    dtype = INT64 if all(t.is_int or t.is_bool for t in args) else FLOAT64
    return ArrayType(dtype, 1, "C")


def _linspace(node, args, kwargs):
    return ArrayType(FLOAT64, 1, "C")


def _window(node, args, kwargs):
    """``np.hamming(M)`` and the other windows: float64 points, M an integer (Numba's TypingError else)."""
    if len(args) != 1 or not (isinstance(args[0], ScalarType) and args[0].is_int):
        raise TypingFailure(f"{node.func}(): M must be an integer")
    return ArrayType(FLOAT64, 1, "C")


def _sinc(node, args, kwargs):
    """``np.sinc(x)``: float64 of a number; of an array, an array of its dtype (Numba fills
    ``np.zeros_like(x)``)."""
    x = args[0] if len(args) == 1 else None
    dtype = x.dtype if isinstance(x, ArrayType) else x
    if not isinstance(dtype, ScalarType) or dtype.is_complex or dtype.is_bool:
        raise TypingFailure(f"np.sinc() of {x} is not supported (real numbers and arrays)")
    return ArrayType(dtype, x.ndim, "C") if isinstance(x, ArrayType) else FLOAT64


def _shuffle(node, args, kwargs):
    """``np.random.shuffle(x)`` shuffles ``x`` in place, returns None (kpc: a 1-D ``x``)."""
    if len(args) != 1 or not isinstance(args[0], ArrayType) or args[0].ndim != 1:
        raise TypingFailure(f"np.random.shuffle() of {args[0] if args else 'nothing'} (kpc shuffles a 1-D array)")
    return NONE


def _eye(node, args, kwargs):
    dtype = rules.dtype_arg(kwargs["dtype"]) if "dtype" in kwargs else FLOAT64
    return ArrayType(dtype, 2, "C")


def _dot(node, args, kwargs):
    if len(args) != 2:
        raise TypingFailure(f"{node.func}() takes two arrays")
    return rules.matmul(args[0], args[1])


def _vdot(node, args, kwargs):
    result = _dot(node, args, kwargs)
    return result if isinstance(result, ScalarType) else result.dtype


def _outer(node, args, kwargs):
    a, b = _array(args, 0, node.func), _array(args, 1, node.func)
    return ArrayType(rules.unify(a.dtype, b.dtype), 2, "C")


def _where(node, args, kwargs):
    if len(args) == 1:
        return _nonzero(node, args, kwargs)
    if len(args) != 3:
        raise TypingFailure("np.where() needs three arguments (condition, x, y)")
    dtypes = [rules.dtype_of(t) for t in args[1:]]
    dtype = dtypes[0] if dtypes[0] == dtypes[1] else rules.unify(dtypes[0], dtypes[1])
    ndim = max((t.ndim for t in args if isinstance(t, ArrayType)), default=0)
    return dtype if ndim == 0 else ArrayType(dtype, ndim, "C")


def _same_c(node, args, kwargs):
    base = _array(args, 0, node.func)
    return ArrayType(base.dtype, base.ndim, "C")


def _same(node, args, kwargs):
    return _array(args, 0, node.func)


def _transpose(node, args, kwargs):
    """``a.transpose()``, ``a.transpose(2, 0, 1)``, ``a.transpose((2, 0, 1))``, ``np.transpose(a, axes)``:
    one integer axis per dimension (a view of layout A, as in Numba)."""
    base = _array(args, 0, node.func)
    axes = args[1:] or ([kwargs["axes"]] if "axes" in kwargs else [])
    if not axes:
        return rules.attribute_type(base, "T")
    if len(axes) == 1 and isinstance(axes[0], TupleType):
        axes = list(axes[0].elements)
    if len(axes) != base.ndim or not all(isinstance(t, ScalarType) and t.is_int for t in axes):
        raise TypingFailure(f"{node.func}() of a {base} takes {base.ndim} integer axes")
    return ArrayType(base.dtype, base.ndim, "A")


def _flat(node, args, kwargs):
    base = _array(args, 0, node.func)
    return ArrayType(base.dtype, 1, "C")


def _reshape(node, args, kwargs):
    base = _array(args, 0, node.func)
    shape = args[1:]
    if len(shape) == 1:
        rank = rules.shape_rank(shape[0])
    elif shape and all(isinstance(t, ScalarType) and t.is_int for t in shape):
        rank = len(shape)
    else:
        raise TypingFailure("reshape() needs a shape")
    return ArrayType(base.dtype, rank, "C")


def _cumulative(node, args, kwargs):
    """``np.cumsum(a)`` flattens; ``np.cumsum(a, axis)`` keeps ``a``'s rank (Numba has no
    ``np.cumprod`` along an axis)."""
    base = _array(args, 0, node.func)
    name = node.func.lstrip(".").replace("np.", "")
    axis = node.kwargs.get("axis", node.args[1] if len(node.args) > 1 else None)
    if axis is None or isinstance(axis, n.Const) and axis.value is None:
        return ArrayType(rules.reduction_dtype(name, base.dtype), 1, "C")
    if name != "cumsum":
        raise TypingFailure(f"{node.func}() with an axis is not supported (Numba: np.cumsum only)")
    if not (isinstance(axis, n.Const) and isinstance(axis.value, int) and not isinstance(axis.value, bool)):
        raise TypingFailure(f"{node.func}(axis=...) needs a constant axis")
    if not -base.ndim <= axis.value < base.ndim:
        raise TypingFailure(f"axis {axis.value} is out of range for {base}")
    return ArrayType(rules.reduction_dtype(name, base.dtype), base.ndim, "C")


def _astype(node, args, kwargs):
    base = _array(args, 0, node.func)
    dtype = kwargs.get("dtype") or (args[1] if len(args) > 1 else None)
    if dtype is None:
        raise TypingFailure(".astype() needs a dtype")
    return ArrayType(rules.dtype_arg(dtype), base.ndim, "C")


def _fill(node, args, kwargs):
    _array(args, 0, node.func)
    if len(args) != 2 or not isinstance(args[1], ScalarType):
        raise TypingFailure(".fill() needs one number")
    return NONE


def _item(node, args, kwargs):
    return _array(args, 0, node.func).dtype


def _clip(node, args, kwargs):
    base = args[0]
    if isinstance(base, ScalarType):
        return base
    base = _array(args, 0, node.func)
    return ArrayType(base.dtype, base.ndim, "C")


def _norm(node, args, kwargs):
    base = _array(args, 0, node.func)
    return base.dtype if base.dtype.is_float else FLOAT64


def _sort_method(node, args, kwargs):
    _array(args, 0, node.func)
    return NONE


def _argsort(node, args, kwargs):
    """``np.argsort(a[, kind])``: Numba takes a 1-D array only (the frontend turned ``kind`` into
    ``stable=``)."""
    base = _array(args, 0, node.func)
    if base.ndim != 1:
        raise TypingFailure(f"{node.func}() of a {base.ndim}-D array (Numba sorts the indices of 1-D arrays only)")
    _orderable(base, node.func)
    return ArrayType(INT64, 1, "C")


def _sort(node, args, kwargs):
    base = _array(args, 0, node.func)
    _orderable(base, node.func)
    return ArrayType(base.dtype, base.ndim, "C")


def _orderable(base: ArrayType, what: str) -> None:
    if base.dtype.is_complex:
        raise TypingFailure(f"{what}() of complex numbers (kpc orders real numbers only)")


def _percentile(node, args, kwargs):
    """``np.percentile(a, q)`` / ``np.quantile(a, q)``: float64, a 1-D array for an array ``q``
    (flattened, as Numba)."""
    if len(args) != 2 or kwargs:
        raise TypingFailure(f"{node.func}() takes an array and q (kpc: no other arguments)")
    a, q = args
    _orderable(_real_array(a, f"{node.func}()"), node.func)
    if isinstance(q, ScalarType) and not q.is_complex:
        return FLOAT64
    if isinstance(q, ArrayType) and not q.dtype.is_complex:
        return FLOAT64 if q.ndim == 0 else ArrayType(FLOAT64, 1, "C")
    raise TypingFailure(f"{node.func}(q=...) takes a number or an array of numbers, got {q}")


def _corrcoef(node, args, kwargs):
    """``np.corrcoef(x, y=None, rowvar=True)`` of real arrays: float64, a scalar for one 1-D ``x``
    (Numba divides its 0-d covariance by itself), else the matrix of ``np.cov(x, y, rowvar)``."""
    x, y, rowvar = args
    for t in (x, y) if y != NONE else (x,):
        if _real_array(t, "np.corrcoef()").ndim > 2:
            raise TypingFailure(f"np.corrcoef() of a {t.ndim}-D array")
    if not (isinstance(rowvar, ScalarType) and not rowvar.is_complex):
        raise TypingFailure(f"np.corrcoef(rowvar=...) takes a boolean, got {rowvar}")
    if y == NONE and x.ndim == 1:
        return FLOAT64
    return ArrayType(FLOAT64, 2, "C")


def _diff(node, args, kwargs):
    base = _array(args, 0, node.func)
    return ArrayType(base.dtype, base.ndim, "C")


def _triangle(node, args, kwargs):
    base = _array(args, 0, node.func)
    if base.ndim != 2:
        raise TypingFailure(f"{node.func}() of a {base.ndim}-D array (kpc: 2-D only)")
    return ArrayType(base.dtype, 2, "C")


def _flip(node, args, kwargs):
    """``np.flip(a[, axis])``, ``np.fliplr``, ``np.flipud``: a reversed view of ``a`` (the
    lowering reads through it; written through, it is rejected as other strided views)."""
    base = _array(args, 0, node.func)
    least = {"np.fliplr": 2, "np.flipud": 1}.get(node.func, 1)
    if base.ndim < least:
        raise TypingFailure(f"{node.func}() of a {base.ndim}-D array")
    return ArrayType(base.dtype, base.ndim, "A")


def _trace(node, args, kwargs):
    return _array(args, 0, node.func).dtype


def _isclose(node, args, kwargs):
    ndim = max((t.ndim for t in args[:2] if isinstance(t, ArrayType)), default=0)
    return BOOL if ndim == 0 else ArrayType(BOOL, ndim, "C")


def _allclose(node, args, kwargs):
    return BOOL


def _round(node, args, kwargs):
    base = args[0] if args else None
    if isinstance(base, ArrayType):
        return ArrayType(base.dtype, base.ndim, "C")
    if isinstance(base, ScalarType) and not base.is_bool:
        # Numba: float64 for any float (float32 too), int64 for any integer.
        return FLOAT64 if base.is_float else INT64 if base.is_int else base
    raise TypingFailure("np.round() needs a number or an array")


def _join(node, args, kwargs):
    name = node.func[3:]
    if len(args) != 1 or not isinstance(args[0], TupleType) or not args[0].elements or \
            not all(isinstance(e, ArrayType) for e in args[0].elements):
        raise TypingFailure(f"np.{name}() needs a tuple of arrays")
    arrays = args[0].elements
    dtype = arrays[0].dtype
    for a in arrays[1:]:
        dtype = rules.unify(dtype, a.dtype)
    ndim = max(a.ndim for a in arrays)
    if name == "stack":
        ndim += 1
    elif name == "vstack":
        ndim = max(ndim, 2)
    return ArrayType(dtype, ndim, "C")


def _linalg(node, args, kwargs):
    """``np.linalg.solve/inv/cholesky`` as Numba types them: a float (or complex) 2-D ``a``, a
    1-D or 2-D ``b`` of the same dtype; the result has ``a``'s dtype and ``b``'s rank."""
    name = node.func
    arrays = args[:2] if name == "np.linalg.solve" else args[:1]
    for k, t in enumerate(arrays):
        if not isinstance(t, ArrayType):
            raise TypingFailure(f"{name}() only supported for array types, got {t}")
        if not (k == 0 and t.ndim == 2 or k == 1 and t.ndim in (1, 2)):
            raise TypingFailure(f"{name}() only supported on {'2-D' if k == 0 else '1 and 2-D'} arrays, got {t}")
        if t.dtype.is_complex:
            raise TypingFailure(f"{name}() of complex arrays (kpc: float32 and float64 only)")
        if not t.dtype.is_float:
            raise TypingFailure(f"{name}() only supported on float and complex arrays, got {t}")
    if len(arrays) == 2 and arrays[0].dtype != arrays[1].dtype:
        raise TypingFailure(f"{name}() only supports inputs that have homogeneous dtypes, got {arrays[0]} "
                            f"and {arrays[1]}")
    return ArrayType(arrays[0].dtype, arrays[-1].ndim, "C")


def _real_array(t, what: str) -> ArrayType:
    if not isinstance(t, ArrayType) or t.dtype.is_complex:
        raise TypingFailure(f"{what} needs an array of real numbers, got {t}")
    return t


def _histogram(node, args, kwargs):
    """``np.histogram(a, bins: int, range=None | (lo, hi))`` -> ``(counts i64[:], edges f64[:])``;
    ``np.histogram(a, edges)`` of a 1-D array of edges -> ``(counts i64[:], edges)``, the edges as
    given (Numba returns the same array and ignores ``range``)."""
    a, bins, bounds = args
    if _real_array(a, "np.histogram()").ndim != 1:
        raise TypingFailure(f"np.histogram() of a {a.ndim}-D array (kpc: 1-D only)")
    if isinstance(bins, ArrayType):
        if _real_array(bins, "np.histogram(bins=...)").ndim != 1 or bins.dtype.is_bool:
            raise TypingFailure(f"np.histogram(bins=...) takes a number of bins or a 1-D array of numbers "
                                f"(the bin edges), got {bins}")
        return TupleType((ArrayType(INT64, 1, "C"), bins))
    if not (isinstance(bins, ScalarType) and bins.is_int):
        raise TypingFailure(f"np.histogram(bins=...) takes an integer number of bins or a 1-D array of bin edges "
                            f"in kpc, got {bins}")
    if bounds != NONE and not (isinstance(bounds, TupleType) and len(bounds.elements) == 2 and all(
            isinstance(e, ScalarType) and not e.is_complex for e in bounds.elements)):
        raise TypingFailure(f"np.histogram(range=...) takes a pair of numbers, got {bounds}")
    return TupleType((ArrayType(INT64, 1, "C"), ArrayType(FLOAT64, 1, "C")))


def is_vector_cov(node) -> bool:
    """``np.cov(m)`` without ``y`` (a 0-d array in Numba where ``m`` is 1-D)."""
    return isinstance(node, n.Call) and node.func == "np.cov" and len(node.args) > 1 \
        and isinstance(node.args[1], n.Const) and node.args[1].value is None


def vector_cov(args) -> Type:
    """``np.cov(x)`` of a 1-D ``x`` read as a scalar (``np.cov(x)[()]``, ``np.cov(x) * 2``,
    ``np.sqrt(np.cov(x))``: Numba's 0-d array gives a float64 there): float64."""
    if isinstance(args[0], ArrayType) and args[0].ndim == 1:
        _cov_options(args)
        _real_array(args[0], "np.cov()")
        return FLOAT64
    return _cov(None, args, {})


def _cov_options(args) -> None:
    rowvar, bias, ddof = args[2:]
    for what, t in (("rowvar", rowvar), ("bias", bias)):
        if not (isinstance(t, ScalarType) and (t.is_bool or t.is_int)):
            raise TypingFailure(f"np.cov({what}=...) takes a boolean, got {t}")
    if ddof != NONE and not (isinstance(ddof, ScalarType) and (ddof.is_int or ddof.is_bool)):
        raise TypingFailure(f"np.cov(ddof=...) takes an integer in kpc, got {ddof}")


def _cov(node, args, kwargs):
    """``np.cov(m, y=None, rowvar=True, bias=False, ddof=None)`` of a 2-D ``m``, or of a 1-D or
    2-D ``m`` and ``y`` (their rows stacked): float64, as Numba."""
    m, y, rowvar, bias, ddof = args
    _real_array(m, "np.cov()")
    if y != NONE:
        _real_array(y, "np.cov(m, y)")
        for what, t in (("m", m), ("y", y)):
            if t.ndim > 2:
                raise TypingFailure(f"np.cov(): {what} has more than 2 dimensions")
    elif m.ndim == 1:
        raise TypingFailure("np.cov() of one 1-D array returns a 0-d array in Numba, which kpc does not "
                            "represent; kpc translates it read as a scalar (np.cov(x)[()], np.cov(x) * s with "
                            "a scalar s, np.sqrt(np.cov(x))), a 2-D m, or m and y")
    elif m.ndim != 2:
        raise TypingFailure("np.cov(): m has more than 2 dimensions")
    _cov_options(args)
    return ArrayType(FLOAT64, 2, "C")


def _literal_array(node, args, kwargs):
    """``np.array`` of a (nested) tuple of numbers: the rank of the nesting, the dtype Numba gives
    (``dtype=`` or the numbers' unified type); ``np.array`` of an array: a C-contiguous copy."""
    if not args:
        raise TypingFailure("np.array() needs an argument")
    dtype = kwargs.get("dtype") or (args[1] if len(args) > 1 else None)
    if isinstance(args[0], ArrayType):
        base = args[0]
        return ArrayType(rules.dtype_arg(dtype) if dtype is not None else base.dtype, base.ndim, "C")
    shape, level = [], [args[0]]
    while level and all(isinstance(t, TupleType) for t in level):
        widths = {len(t.elements) for t in level}
        if len(widths) != 1:
            raise TypingFailure("np.array() of rows of different lengths")
        shape.append(widths.pop())
        level = [e for t in level for e in t.elements]
    if not shape or not all(isinstance(t, ScalarType) for t in level):
        raise TypingFailure(f"np.array() takes numbers or arrays here, got {args[0]}")
    if dtype is not None:
        return ArrayType(rules.dtype_arg(dtype), len(shape), "C")
    element = level[0]
    for t in level[1:]:
        element = rules.unify(element, t)
        if element is None:
            raise TypingFailure("np.array() of numbers with no common type")
    return ArrayType(element, len(shape), "C")


# --- array functions of issue 32: np.roll, np.convolve, np.bincount, np.diag, np.fill_diagonal,
# np.nonzero / np.flatnonzero / np.where(cond), as Numba types them.

def _integer(t, what: str) -> None:
    if not (isinstance(t, ScalarType) and t.is_int):
        raise TypingFailure(f"{what} must be an integer, got {t}")


def _roll(node, args, kwargs):
    """``np.roll(a, shift)``: ``a``'s dtype and shape, C order (Numba has no ``axis``)."""
    base = _array(args, 0, node.func)
    _integer(args[1], "np.roll(shift=...)")
    return ArrayType(base.dtype, base.ndim, "C")


def _convolve(node, args, kwargs):
    """``np.convolve(a, v, mode)`` of 1-D arrays: the promoted dtype."""
    a, v = _array(args, 0, node.func), _array(args, 1, node.func)
    for t in (a, v):
        if t.ndim != 1:
            raise TypingFailure(f"np.convolve() of a {t.ndim}-D array (1-D only)")
        if t.dtype.is_bool or t.dtype.is_complex:
            raise TypingFailure(f"np.convolve() of {t.dtype} arrays (kpc: integers and floats)")
    return ArrayType(rules.unify(a.dtype, v.dtype), 1, "C")


def _bincount(node, args, kwargs):
    """``np.bincount(x, weights=None, minlength=0)``: int64 counts, float64 weighted sums."""
    x, weights, minlength = args
    if not (isinstance(x, ArrayType) and x.ndim == 1 and x.dtype.is_int):
        raise TypingFailure(f"np.bincount() needs a 1-D array of integers, got {x}")
    if weights != NONE and not (isinstance(weights, ArrayType) and weights.ndim == 1
                                and not weights.dtype.is_complex):
        raise TypingFailure(f"np.bincount(weights=...) needs a 1-D array of numbers, got {weights}")
    _integer(minlength, "np.bincount(minlength=...)")
    return ArrayType(INT64 if weights == NONE else FLOAT64, 1, "C")


def _diag(node, args, kwargs):
    """``np.diag(v, k=0)``: a 1-D ``v`` gives a matrix, a 2-D one its k-th diagonal."""
    base = _array(args, 0, node.func)
    if base.ndim not in (1, 2):
        raise TypingFailure(f"np.diag() of a {base.ndim}-D array (Numba: 1-D or 2-D)")
    _integer(args[1], "np.diag(k=...)")
    return ArrayType(base.dtype, 3 - base.ndim, "C")


def _fill_diagonal(node, args, kwargs):
    """``np.fill_diagonal(a, val, wrap=False)`` writes ``a`` in place, returns None."""
    base, val, wrap = args
    if not isinstance(base, ArrayType) or base.ndim < 2:
        raise TypingFailure(f"np.fill_diagonal() needs an array of 2 dimensions or more, got {base}")
    if not (isinstance(val, ScalarType) or isinstance(val, ArrayType)) or rules.dtype_of(val).is_complex:
        raise TypingFailure(f"np.fill_diagonal(val=...) takes a number or an array of numbers, got {val}")
    if not (isinstance(wrap, ScalarType) and (wrap.is_bool or wrap.is_int)):
        raise TypingFailure(f"np.fill_diagonal(wrap=...) takes a boolean, got {wrap}")
    return NONE


def _nonzero(node, args, kwargs):
    """``np.nonzero(a)`` / ``np.where(a)``: one int64 array of indices per dimension."""
    base = _array(args, 0, node.func)
    return TupleType((ArrayType(INT64, 1, "C"),) * base.ndim)


def _flatnonzero(node, args, kwargs):
    _array(args, 0, node.func)
    return ArrayType(INT64, 1, "C")


# --- searches of sorted data (issue 32): np.searchsorted, np.digitize, np.interp, as Numba types them.

def _real_value(t, what: str):
    """A real number or an array of real numbers (kpc: not complex, not a datetime)."""
    if isinstance(t, ArrayType):
        return _real_array(t, what)
    if not (isinstance(t, ScalarType) and not t.is_complex):
        raise TypingFailure(f"{what} takes a real number or an array of real numbers, got {t}")
    return t


def _indices_like(t) -> Type:
    """int64 indices, one per value of ``t`` (an array keeps its shape)."""
    return ArrayType(INT64, t.ndim, "C") if isinstance(t, ArrayType) else INT64


def _vector(t, what: str) -> ArrayType:
    if _real_array(t, what).ndim != 1:
        raise TypingFailure(f"{what} needs a 1-D array, got {t}")
    return t


def _append(node, args, kwargs):
    """``np.append(arr, values)``: both flattened, joined, in their promoted dtype (a scalar counts
    as an array of its type, as Numba's ``np.asarray``); kpc: no axis."""
    arr, values, axis = args
    dtypes = [rules.dtype_of(_real_value(t, f"np.append({what}=...)")) for what, t in (("arr", arr), ("values", values))]
    if axis != NONE:
        raise TypingFailure("np.append() along an axis is not translated by kpc (only axis=None: a 1-D result)")
    return ArrayType(rules.unify(*dtypes), 1, "C")


def _unique(node, args, kwargs):
    """``np.unique(ar)``: the sorted distinct values, 1-D, in ``ar``'s dtype."""
    return ArrayType(_real_array(args[0], "np.unique()").dtype, 1, "C")


def _kron(node, args, kwargs):
    """``np.kron(a, b)`` of 1-D or 2-D arrays: in ``a``'s dtype, 1-D when both are; kpc: no
    scalars. (Numba refuses strided operands; kpc's types guessed without a signature are
    strided, so kpc translates them.)"""
    for t in args:
        if not isinstance(t, ArrayType) or t.dtype.is_complex:
            raise TypingFailure(f"np.kron() of {t} is not translated by kpc (arrays of real numbers only)")
        if t.ndim > 2:
            raise TypingFailure("np.kron() only supported on 1 and 2-D arrays")
    return ArrayType(args[0].dtype, max(t.ndim for t in args), "C")


def _searchsorted(node, args, kwargs):
    """``np.searchsorted(a, v, side)``: an int64 index per value of ``v`` (a scalar for one)."""
    a, v, _ = args
    _vector(a, "np.searchsorted(a, ...)")
    return _indices_like(_real_value(v, "np.searchsorted(v=...)"))


def _digitize(node, args, kwargs):
    """``np.digitize(x, bins, right=False)``: an int64 bin index per value of ``x``."""
    x, bins, right = args
    _vector(bins, "np.digitize(bins=...)")
    if not (isinstance(right, ScalarType) and (right.is_bool or right.is_int)):
        raise TypingFailure(f"np.digitize(right=...) takes a boolean, got {right}")
    return _indices_like(_real_value(x, "np.digitize(x=...)"))


def _interp(node, args, kwargs):
    """``np.interp(x, xp, fp)`` of real 1-D ``xp`` and ``fp``: float64, a scalar for one ``x``
    (kpc: a complex ``fp`` is not translated)."""
    x, xp, fp = args
    _vector(xp, "np.interp(xp=...)")
    _vector(fp, "np.interp(fp=...)")
    x = _real_value(x, "np.interp(x=...)")
    return ArrayType(FLOAT64, x.ndim, "C") if isinstance(x, ArrayType) else FLOAT64


_OTHER = {
    (False, "array"): _literal_array, (False, "asarray"): _literal_array,
    (None, "arange"): _arange, (None, "linspace"): _linspace, (None, "eye"): _eye,
    (None, "identity"): _eye, (False, "sinc"): _sinc, (False, "random.shuffle"): _shuffle, (False, "hamming"): _window, (False, "hanning"): _window,
    (False, "bartlett"): _window, (False, "blackman"): _window, (None, "dot"): _dot, (None, "matmul"): _dot, (None, "vdot"): _vdot,
    (None, "outer"): _outer, (None, "where"): _where, (None, "copy"): _same_c,
    (True, "asarray"): _same, (None, "ascontiguousarray"): _same_c, (None, "transpose"): _transpose,
    (None, "ravel"): _flat, (True, "flatten"): _flat, (None, "reshape"): _reshape,
    (None, "cumsum"): _cumulative, (None, "cumprod"): _cumulative, (True, "astype"): _astype,
    (True, "fill"): _fill, (True, "item"): _item, (None, "clip"): _clip, (False, "linalg.norm"): _norm,
    (False, "sort"): _sort, (True, "sort"): _sort_method, (None, "argsort"): _argsort,
    (None, "diff"): _diff, (None, "trace"): _trace, (None, "isclose"): _isclose,
    (None, "allclose"): _allclose, (False, "round"): _round, (False, "around"): _round,
    (False, "concatenate"): _join, (False, "stack"): _join, (False, "hstack"): _join,
    (False, "vstack"): _join, (True, "dot"): _dot, (False, "triu"): _triangle, (False, "tril"): _triangle,
    (False, "flip"): _flip, (False, "fliplr"): _flip, (False, "flipud"): _flip,
    (False, "linalg.solve"): _linalg, (False, "linalg.inv"): _linalg, (False, "linalg.cholesky"): _linalg,
    (False, "histogram"): _histogram, (False, "cov"): _cov,
    (False, "percentile"): _percentile, (False, "quantile"): _percentile, (False, "corrcoef"): _corrcoef,
    (False, "roll"): _roll, (False, "convolve"): _convolve, (False, "bincount"): _bincount,
    (False, "diag"): _diag, (False, "fill_diagonal"): _fill_diagonal, (False, "nonzero"): _nonzero,
    (False, "flatnonzero"): _flatnonzero, (False, "searchsorted"): _searchsorted, (False, "digitize"): _digitize,
    (False, "interp"): _interp, (False, "append"): _append, (False, "unique"): _unique, (False, "kron"): _kron,
}
