"""Decide which entry functions a GPU build may run on the device, and why the others stay on the host."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.intrinsics import HOST_ROUTINES
from kpc.ir.queries import nested_bodies, own_exprs
from kpc.ir.types import ArrayType

from .manager import Pass, register

MEASURED = "device or host, measured at each call"


def _routines(function) -> list:
    """Host-only routines the function calls (``np.linalg.solve``, ...), as NumPy names."""
    names = {HOST_ROUTINES[node.func][0] for node in n.walk(function)
             if isinstance(node, n.Call) and node.kind == "builtin" and node.func in HOST_ROUTINES
             and node.func != "matmul"}
    return sorted(names)


def _launches(function, module, seen=None) -> bool:
    """Parallel regions (or a matrix product, which launches its own) in the function or a
    function it calls from host code."""
    seen = set() if seen is None else seen
    seen.add(function.name)
    for node in n.walk(function):
        if isinstance(node, n.For) and node.parallel is not None:
            return True
        if isinstance(node, n.Call) and node.kind == "builtin" and node.func == "matmul":
            return True
        if isinstance(node, n.Call) and node.kind == "kernel" and node.func not in seen \
                and node.func in module.functions and _launches(module.functions[node.func], module, seen):
            return True
    return False


# Calls with array arguments that do not read array memory on the host: ``len`` reads an extent,
# a matrix product launches its own kernel.
_NO_HOST_MEMORY = frozenset({"len", "matmul"})


def expr_touches_arrays(expr) -> bool:
    """Whether ``expr`` indexes an array, calls another kernel, or calls a routine on arrays that
    runs on the host (``np.searchsorted``'s ``searchsorted_values``, a sort, a shuffle: code the
    host runs over the arrays' memory, which device-only memory would make a crash).

    >>> from kpc.ir.types import FLOAT64, INT64
    >>> a = n.Name("a", type=ArrayType(FLOAT64, 1))
    >>> expr_touches_arrays(n.Call("searchsorted_values", [a, a, a], kind="builtin"))
    True
    >>> expr_touches_arrays(n.Call("len", [a], kind="builtin")), expr_touches_arrays(n.Name("k", type=INT64))
    (False, False)
    """
    for sub in n.walk(expr):
        if isinstance(sub, n.Index) and isinstance(getattr(sub.base, "type", None), ArrayType):
            return True
        if isinstance(sub, n.Call) and (sub.kind == "kernel" or sub.kind != "math" and sub.func not in _NO_HOST_MEMORY
                                        and any(isinstance(getattr(a, "type", None), ArrayType) for a in sub.args)):
            return True
    return False


def statements_touch_arrays(stmts) -> bool:
    """Whether statements of ``stmts`` outside parallel regions (a region's bounds included)
    index arrays or call other kernels."""
    for stmt in stmts:
        if isinstance(stmt, n.For) and stmt.parallel is not None:
            if any(expr_touches_arrays(e) for e in (stmt.start, stmt.stop, stmt.step) if e is not None):
                return True
            continue
        if any(expr_touches_arrays(e) for e in own_exprs(stmt) if e is not None):
            return True
        if any(statements_touch_arrays(block) for block in nested_bodies(stmt)):
            return True
    return False


def host_touches_arrays(function) -> bool:
    """Whether statements outside the function's parallel regions index arrays or call other
    kernels: on the device build those statements run on the host over memory both can reach
    (managed), so its arrays move between host and device between regions."""
    return statements_touch_arrays(function.body)


def placement(function, module) -> tuple:
    """``(device, reason)`` for an entry function of a GPU build."""
    routines = _routines(function)
    if routines:
        return False, f"host only: {', '.join(routines)} {'runs' if len(routines) == 1 else 'run'} on the host"
    if not _launches(function, module):
        return False, "host only: no parallel loop to run on the device"
    if host_touches_arrays(function):
        return True, (f"{MEASURED}; statements between its parallel regions touch arrays, so on the device "
                      "build its arrays move between host and device (the host usually wins)")
    return True, MEASURED


@register
class ChoosePlacement(Pass):
    """Record on each entry function whether a ``--space cuda`` build compiles it for the device.

    A function whose work is all serial gains nothing from the device, and one that calls a
    host-only routine (``np.linalg``, ``np.histogram``, ``np.cov``) cannot run there: those run
    on the host build only. The others get both builds and each call runs where it was
    measured faster, copies included (``kpc_placement.hpp``). Host spaces ignore the record.

    Before::

        func @scale(x: f64[:], s: f64) -> none   role=entry parallel
          parallel_for Range i: i64 in prange(0, len(x)):
            x[i] = x[i] * s

    After (report)::

        @scale (role entry)
          line 4, i in prange: parallel_for [Range]: prange
          placement (--space cuda): device or host, measured at each call
    """

    name = "choose-placement"
    transforms = False

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            if function.role in ("entry", "both"):
                function.placement = placement(function, module)
