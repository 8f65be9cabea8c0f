"""A reference interpreter of lowered (scalar) IR, to check lower-numpy against NumPy.

It runs exactly the form lower-numpy produces: scalar statements and loops,
element indexing, ``x.shape[k]``, math/builtin calls, casts and the one
allocation form ``np.empty((e0, ...), dtype=...)``, and calls of the other kernels in
``functions``. Any array-level node left raises, so a test that evaluates a lowered
function also checks nothing was missed.
"""

from __future__ import annotations

import builtins

import cmath
import math

import numpy as np

from kpc.ir import nodes as n
from kpc.ir.intrinsics import VALUE_ERRORS
from kpc.ir.types import ArrayType

_MATH = {"sqrt": math.sqrt, "exp": math.exp, "log": math.log, "log1p": math.log1p, "sin": math.sin,
         "cos": math.cos, "tan": math.tan, "atan2": math.atan2, "tanh": math.tanh, "fabs": math.fabs,
         "floor": math.floor, "ceil": math.ceil, "isnan": math.isnan, "isinf": math.isinf, "isfinite": math.isfinite,
         "hypot": math.hypot, "atan": math.atan, "arctan": math.atan, "arctan2": math.atan2,
         "rint": lambda x: np.rint(x).item()}
_BIN = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
        "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
        "**": lambda a, b: a ** b, "&": lambda a, b: a & b, "|": lambda a, b: a | b,
        "^": lambda a, b: a ^ b, "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b}
_CMP = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


_FUNCTIONS = "@functions"  # the env entry that holds the callable kernels (no IR name starts with @)


def run(function: n.Function, *args, functions=None):
    """``function`` called with ``args``; a call of another kernel runs that kernel of ``functions``."""
    env = {p.name: a for p, a in zip(function.params, args)}
    env[_FUNCTIONS] = functions or {}
    try:
        _block(function.body, env)
    except _Return as r:
        return r.value
    return None


def _block(stmts, env):
    for s in stmts:
        _stmt(s, env)


def _stmt(s, env):
    if isinstance(s, n.Assign):
        _store(s.target, _expr(s.value, env), env)
    elif isinstance(s, n.AugAssign):
        _store(s.target, _BIN[s.op](_expr(s.target, env), _expr(s.value, env)), env)
    elif isinstance(s, n.For):
        for i in range(_expr(s.start, env), _expr(s.stop, env), _expr(s.step, env)):
            env[s.var.id] = i
            try:
                _block(s.body, env)
            except _Continue:
                continue
            except _Break:
                break
    elif isinstance(s, n.While):
        while _expr(s.test, env):
            try:
                _block(s.body, env)
            except _Continue:
                continue
            except _Break:
                break
    elif isinstance(s, n.If):
        _block(s.body if _expr(s.test, env) else s.orelse, env)
    elif isinstance(s, n.Return):
        raise _Return(None if s.value is None else _expr(s.value, env))
    elif isinstance(s, n.ExprStmt):
        _expr(s.value, env)
    elif isinstance(s, n.Break):
        raise _Break()
    elif isinstance(s, n.Raise):
        raise getattr(builtins, s.exception)(*([s.message] if s.has_message else []))
    elif isinstance(s, n.Continue):
        raise _Continue()
    else:
        raise TypeError(f"cannot run {type(s).__name__}")


def _store(target, value, env):
    if isinstance(target, n.Name):
        env[target.id] = value
    elif isinstance(target, n.TupleExpr):
        for t, v in zip(target.elements, value):
            _store(t, v, env)
    else:
        _element_index(target, env)
        env[target.base.id][tuple(_expr(i, env) for i in target.indices)] = value


def _element_index(node, env):
    if isinstance(node.type, ArrayType) or not isinstance(node.base, (n.Name, n.Attribute)):
        raise TypeError(f"array-level index left: {node}")


def _view_entry(entry, env):
    """A subview index: an integer or a unit-step slice (what Kokkos subviews take)."""
    if isinstance(entry, n.Slice):
        if entry.step is not None:
            raise TypeError(f"strided subview left: {entry}")
        return slice(*(None if p is None else _expr(p, env) for p in (entry.lower, entry.upper)))
    return _expr(entry, env)


def _broadcast_operands(*shapes):
    """NumPy's check of operands of ``shapes`` (a slice's extent below 0 is empty)."""
    return np.broadcast_shapes(*(tuple(max(e, 0) for e in s) for s in shapes))


def _broadcast_into(target, *shapes):
    """NumPy's check of a value of ``shapes`` stored into an array of shape ``target``."""
    value = np.broadcast_to(np.empty(()), _broadcast_operands(*shapes))
    np.broadcast_to(value, _broadcast_operands(target))


def _histogram(x, bins, *rest):
    """``histogram(x, bins[, lo, hi], counts, edges)``: NumPy's (Numba's for these inputs)."""
    counts, edges = rest[-2:]
    counts[...], edges[...] = np.histogram(x, bins, range=tuple(rest[:2]) if len(rest) == 4 else None)


def _histogram_edges(x, edges, counts):
    """``histogram_edges(x, edges, counts)``: NumPy's counts for an array of edges."""
    counts[...] = np.histogram(x, edges)[0]


def _cov(m, rowvar, bias, given, ddof, out):
    out[...] = np.cov(m, rowvar=rowvar, bias=bias, ddof=ddof if given else None)


def _cov_xy(m, y, rowvar, bias, given, ddof, out):
    out[...] = np.cov(m, y, rowvar=rowvar, bias=bias, ddof=ddof if given else None)


def _fill(function):
    """A host routine that writes ``function`` of its inputs into its last argument."""
    def routine(*args):
        args[-1][...] = function(*args[:-1])
    return routine


def _matmul(a, b, out, ta=False, tb=False, alpha=1):
    """``matmul(a, b, out[, ta=True][, tb=True][, alpha=s])``: out = alpha * (a' @ b')."""
    out[...] = alpha * ((a.T if ta else a) @ (b.T if tb else b))


def _searched(function):
    """A search routine: ``function`` of its two inputs and its flag (last) into its third argument."""
    def routine(first, second, out, flag):
        out[...] = function(first, second, flag)
    return routine


def _sort_rows(a):
    a[...] = np.sort(a, axis=-1)


def _quantile_values(q, out, s, scale):
    out[...] = np.percentile(s, q * scale)


def _argsort(keys, order, stable):
    order[...] = np.argsort(keys, kind="stable")  # the corpus's keys for the default order are distinct


# The order routines and readers (ir.intrinsics.ORDER_ROUTINES, ORDER_READERS), computed with NumPy.
_ORDER_ROUTINES = {"sort_rows": _sort_rows, "argsort": _argsort, "median_sorted": lambda s: float(np.median(s)),
                   "quantile_sorted": lambda s, q, scale: float(np.percentile(s, q * scale)),
                   "searchsorted": lambda a, v, right: int(np.searchsorted(a, v, "right" if right else "left")),
                   "digitize": lambda x, bins, right: int(np.digitize(x, bins, right)),
                   "interp": lambda x, xp, fp: float(np.interp(x, xp, fp)),
                   "searchsorted_values": _searched(lambda a, v, right: np.searchsorted(a, v, "right" if right
                                                                                         else "left")),
                   "digitize_values": _searched(lambda x, bins, right: np.digitize(x, bins, right)),
                   "interp_values": _fill(np.interp), "unique_count": lambda s: np.unique(s).shape[0],
                   "unique_values": _fill(np.unique),
                   # a sort is one of the orders a selection may leave
                   "select_median": _sort_rows, "select_quantile": lambda s, q, scale: _sort_rows(s),
                   "quantile_values": _quantile_values}
def _bincount_length(x, *rest):
    """``bincount_length(x[, weights], minlength)``: the length of NumPy's result (and its errors)."""
    return np.bincount(x, *rest[:-1], minlength=rest[-1]).shape[0]


def _bincount(x, *rest):
    """``bincount(x[, weights], out)``: NumPy's counts or weighted sums."""
    rest[-1][...] = np.bincount(x, *rest[:-1], minlength=rest[-1].shape[0])


def _value_check(ok, error):
    """``value_check(ok, k)``: NumPy's ValueError ``VALUE_ERRORS[k]`` where ``ok`` is false."""
    if not ok:
        raise ValueError(VALUE_ERRORS[error])


# The host routines lower-numpy calls (ir.intrinsics.HOST_ROUTINES), computed with NumPy.
def _flat_element(a, p):
    """``flat_element(a, p)``: the element at C-order position ``p``, which must lie inside ``a``."""
    if not 0 <= p < a.size:
        raise IndexError(f"flat_element position {p} outside an array of {a.size} elements")
    return a.flat[p].item()


_HOST_ROUTINES = {"linalg_solve": _fill(np.linalg.solve), "linalg_inv": _fill(np.linalg.inv),
                  "linalg_cholesky": _fill(np.linalg.cholesky), "histogram": _histogram, "histogram_edges": _histogram_edges,
                  "cov": _cov, "cov_xy": _cov_xy, "matmul": _matmul, "bincount_length": _bincount_length,
                  "bincount": _bincount, "value_check": _value_check}


def _expr(e, env):
    if isinstance(e, n.Const):
        return e.value
    if isinstance(e, n.GlobalConst):
        return e.value
    if isinstance(e, n.Name):
        return env[e.id]
    if isinstance(e, n.Index) and isinstance(e.type, ArrayType) and isinstance(e.base, n.Name):
        return env[e.base.id][tuple(_view_entry(i, env) for i in e.indices)]
    if isinstance(getattr(e, "type", None), ArrayType) and not isinstance(e, (n.Call, n.Name)):
        raise TypeError(f"array-level expression left: {e}")
    if isinstance(e, n.BinOp):
        return _BIN[e.op](_expr(e.left, env), _expr(e.right, env))
    if isinstance(e, n.UnaryOp):
        v = _expr(e.operand, env)
        return {"-": lambda: -v, "+": lambda: +v, "not": lambda: not v, "~": lambda: ~v}[e.op]()
    if isinstance(e, n.Compare):
        return _CMP[e.op](_expr(e.left, env), _expr(e.right, env))
    if isinstance(e, n.BoolOp):  # short-circuit, as Python and C++ do (`c >= w or out[r, c]`)
        values = (_expr(v, env) for v in e.values)
        return all(values) if e.op == "and" else any(values)
    if isinstance(e, n.IfExp):
        return _expr(e.body, env) if _expr(e.test, env) else _expr(e.orelse, env)
    if isinstance(e, n.Cast):
        return np.dtype(e.to.numpy_name).type(_expr(e.value, env)).item()
    if isinstance(e, n.Index):
        if isinstance(e.base, n.Attribute) and e.base.attr == "shape":
            base = e.base.value  # a named array, or a slice of one (`L[j + 1:, :j].shape[0]`)
            array = env[base.id] if isinstance(base, n.Name) else _expr(base, env)
            return array.shape[_expr(e.indices[0], env)]
        if isinstance(env.get(getattr(e.base, "id", None)), tuple):
            return env[e.base.id][_expr(e.indices[0], env)]
        _element_index(e, env)
        return env[e.base.id][tuple(_expr(i, env) for i in e.indices)].item()
    if isinstance(e, n.TupleExpr):
        return tuple(_expr(x, env) for x in e.elements)
    if isinstance(e, n.Attribute) and e.attr in ("shape", "size"):
        return getattr(env[e.value.id], e.attr)
    if isinstance(e, n.Attribute) and e.attr in ("real", "imag"):
        return getattr(_expr(e.value, env), e.attr)
    if isinstance(e, n.Call):
        if e.kind == "numpy":
            if e.func != "np.empty":
                raise TypeError(f"NumPy call left: {e}")
            return np.full(_expr(e.args[0], env), 7777, dtype=e.type.dtype.numpy_name)
        args = [_expr(a, env) for a in e.args]
        if e.kind == "kernel":
            return run(env[_FUNCTIONS][e.func], *args, functions=env[_FUNCTIONS])
        if e.kind == "math":
            if any(isinstance(a, complex) for a in args):
                name = e.func.split(".")[-1]
                if name in ("conj", "conjugate"):
                    return args[0].conjugate()
                return getattr(cmath, name)(*args)
            return _MATH[e.func.split(".")[-1]](*args)
        if e.kind == "builtin":
            return {"abs": abs, "min": min, "max": max, "len": len, "int": int, "float": float, "round": round,
                    "bool": bool, "broadcast_operands": _broadcast_operands,
                    "broadcast_into": _broadcast_into, "flat_element": _flat_element, **_HOST_ROUTINES, **_ORDER_ROUTINES}[e.func](
                        *args, **{k: _expr(v, env) for k, v in e.kwargs.items()})
    raise TypeError(f"cannot evaluate {type(e).__name__}: {e}")
