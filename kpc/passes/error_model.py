"""error-model: mark the scalar ``/ // %`` whose zero divisor raises ZeroDivisionError, as in Numba.

Numba's default ``error_model='python'`` raises ZeroDivisionError for a scalar division
or modulo by zero (``1.0 / 0.0`` too), while array expressions follow NumPy (inf, nan,
or 0 for integers) and ``@njit(error_model='numpy')`` makes scalars follow NumPy as well.
The pass runs after typing and before ``lower-numpy``: the divisions it sees with a
scalar type are the user's scalar ones; the element operations ``lower-numpy`` makes
from array expressions come later, unmarked. The Kokkos emitter turns a marked division
into a checked one (``kpc::truediv``), which flags the error for the binding to raise
once the kernel returns.

Before (after ``infer-types``), ``checked`` shown beside each division::

    func @ratio(x: f64[:], d: f64) -> f64[:]
      r: f64 = x[0] / d        # checked=False
      return x / d             # checked=False (an array expression)

After::

    func @ratio(x: f64[:], d: f64) -> f64[:]
      r: f64 = x[0] / d        # checked=True
      return x / d             # checked=False

>>> from kpc.frontend import parse_module
>>> from kpc.passes.manager import PassContext, run_pipeline
>>> source = '''
... from numba import njit
... @njit
... def ratio(x, d):
...     r = x[0] / d
...     return x / d
... @njit(error_model="numpy")
... def quiet(a, b):
...     return a / b
... '''
>>> m = parse_module(source, "m.py", signatures={"ratio": "(f8[:], f8)", "quiet": "(f8, f8)"})
>>> _ = run_pipeline(m, PassContext(), ["infer-types", "error-model"])
>>> def divisions(name):
...     return [(format_expr(d), d.checked) for d in n.walk(m.functions[name]) if isinstance(d, n.BinOp)]
>>> divisions("ratio")
[('x[0] / d', True), ('x / d', False)]
>>> divisions("quiet")
[('a / b', False)]
"""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.nodes import format_expr  # noqa: F401  (doctest)
from kpc.ir.types import ScalarType

from .manager import Pass, register

DIVISIONS = {"/", "//", "%"}
ERROR_MODELS = ("python", "numpy")


@register
class ErrorModel(Pass):
    """Mark scalar divisions and modulos of ``error_model='python'`` functions as raising on a zero divisor."""

    name = "error-model"
    transforms = False

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            if function.options.get("error_model", "python") != "python":
                continue
            for node in _python_model_nodes(function):
                if isinstance(node, n.BinOp) and node.op in DIVISIONS and isinstance(node.type, ScalarType):
                    node.checked = True
                elif isinstance(node, n.AugAssign) and node.op in DIVISIONS \
                        and isinstance(_target_type(function, node.target), ScalarType):
                    node.checked = True


def _python_model_nodes(function: n.Function):
    """The nodes of ``function`` outside its ``prange`` loops when it is ``parallel=True``.

    Numba compiles the body of such a loop (a parfor) with ``error_model='numpy'``: a zero
    divisor there gives inf, nan or 0, while the same division before the loop raises.
    """
    parallel = function.options.get("parallel") is True
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if parallel and isinstance(node, n.For) and node.kind == "prange":
            stack += [node.start, node.stop, node.step]
            continue
        yield node
        stack += [child for child in n.children(node) if child is not None]


def _target_type(function: n.Function, target):
    if isinstance(target, n.Name):
        return function.locals.get(target.id) or next((p.type for p in function.params if p.name == target.id),
                                                      None)
    return getattr(target, "type", None)
