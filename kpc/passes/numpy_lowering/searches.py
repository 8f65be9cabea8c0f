"""Searches of sorted data: np.searchsorted, np.digitize and np.interp, by the routines of kpc_order.hpp.

One value is a reader call (``ir.intrinsics.ORDER_READERS``: ``searchsorted``, ``digitize``,
``interp``) that runs in any execution space. An array of values is flattened into a 1-D
operand and searched by one routine call (``searchsorted_values``, ``digitize_values``,
``interp_values``) that writes a fresh result in order: Numba starts each search from the
previous value's result, so the results match Numba's even where the sorted operand is not
sorted. The errors (np.digitize's bins neither increasing nor decreasing, np.interp's empty or
mismatched sample points) are the routines' ValueErrors.

>>> from kpc.ir.nodes import NOLOC, Call, Const, Function, Name, Param
>>> from kpc.ir.printer import format_function
>>> from kpc.ir.types import ArrayType, FLOAT64, INT64
>>> from kpc.passes.numpy_lowering.elements import ElementLowering
>>> from kpc.passes.numpy_lowering.values import Namer
>>> vec = ArrayType(FLOAT64, 1, "C")
>>> f = Function("f", [Param("edges", vec), Param("x", vec)], [])
>>> low = ElementLowering(f, Namer(f), NOLOC)
>>> call = Call("np.searchsorted", [Name("edges", vec), Name("x", vec), Const(1)], "numpy",
...             type=ArrayType(INT64, 1, "C"))
>>> found = low.array(call, f.body)
>>> print(format_function(f))
func @f(edges: f64[:] C, x: f64[:] C) -> ?   role=entry
  found0: i64[:] C = np.empty((x.shape[0],), dtype=np.int64)
  searchsorted_values(edges, x, found0, True)
>>> str(found.element([Name("i0")], []))
'found0[i0]'
"""

from __future__ import annotations

from ...ir import nodes as n
from ...ir.types import BOOL, FLOAT64, INT64, NONE, ArrayType
from .numpy_names import short_name
from .values import ArrayValue, clone, const_int

# The NumPy functions lowered here.
SEARCHES = {"searchsorted", "digitize", "interp"}


class SortedSearches:
    """``ElementLowering``'s np.searchsorted, np.digitize and np.interp."""

    def search_operands(self, call: n.Call, pre: list) -> tuple:
        """(the values searched for, the other arguments in the routine's order, the result dtype)."""
        name = short_name(call.func)
        b = self.b
        if name == "searchsorted":
            a, v, side = call.args
            return v, [self.array_operand(a, pre)], [n.Const(const_int(side) == 1, BOOL, self.loc)], INT64
        if name == "digitize":
            x, bins, right = call.args
            return x, [self.array_operand(bins, pre)], [b.cast(self.scalar(right, pre), BOOL)], INT64
        x, xp, fp = call.args
        return x, [self.array_operand(xp, pre), self.array_operand(fp, pre)], [], FLOAT64

    def search_scalar(self, call: n.Call, pre: list):
        """The search of one value: a reader call."""
        name = short_name(call.func)
        value, arrays, flags, dtype = self.search_operands(call, pre)
        value = self.scalar(value, pre)
        if name == "interp":
            value = self.b.cast(value, FLOAT64)
        args = arrays + [value] if name == "searchsorted" else [value] + arrays
        return n.Call(name, args + flags, "builtin", {}, dtype, self.loc)

    def search_value(self, call: n.Call, pre: list) -> ArrayValue:
        """The searches of an array of values, flattened, into a fresh array of their shape."""
        name = short_name(call.func)
        value, arrays, flags, dtype = self.search_operands(call, pre)
        source = self.array(value, pre)
        if source.ndim == 1:
            values = self.array_operand(value, pre)
        else:
            values = self.materialize(self.flat(source, None), pre, "values")
        extent = self.b.shape_of(values, 0)
        type = ArrayType(dtype, 1, "C")
        out = self.b.name(self.namer.fresh("found", type), type)
        pre.append(n.Assign(out, self.allocation([extent], dtype), self.loc))
        args = arrays + [values] if name == "searchsorted" else [values] + arrays
        routine = n.Call(f"{name}_values", args + [clone(out)] + flags, "builtin", {}, NONE, self.loc)
        pre.append(n.ExprStmt(routine, self.loc))
        found = self.read_back(clone(out), [clone(extent)])
        return found if source.ndim == 1 else self.flat(found, [clone(e) for e in source.shape])
