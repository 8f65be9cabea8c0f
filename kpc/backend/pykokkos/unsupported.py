"""The one way the PyKokkos emitter says "not this kernel": the kernel stays Numba, with a reason.

>>> from kpc.ir.nodes import Loc
>>> str(Unsupported("conditional expression in a device function", Loc("m.py", 4, 8), "use if/else"))
'm.py:4:9: conditional expression in a device function (use if/else)'
"""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.intrinsics import HOST_ROUTINES, ORDER_READERS, ORDER_ROUTINES
from kpc.ir.types import ArrayType
from kpc.ir.nodes import NOLOC, Loc


class Unsupported(Exception):
    """A construct the emitter cannot write as correct PyKokkos code (yet)."""

    def __init__(self, construct: str, loc: Loc = NOLOC, reason: str = ""):
        super().__init__(construct)
        self.construct = construct
        self.loc = loc
        self.reason = reason

    def __str__(self) -> str:
        text = f"{self.loc}: {self.construct}"
        return f"{text} ({self.reason})" if self.reason else text


def loc_of(node) -> Loc:
    return getattr(node, "loc", NOLOC) or NOLOC


def _is_complex(t) -> bool:
    return bool(getattr(t, "is_complex", False) or getattr(getattr(t, "dtype", None), "is_complex", False))


def require_numba_semantics(module, name: str) -> None:
    """Raise ``Unsupported`` when kernel ``name`` (or a function it calls) asks for checks PyKokkos cannot make,
    draws random numbers (``np.random``), calls a host routine (``np.linalg.solve``, ``np.histogram``, ...),
    computes with complex numbers or is (or calls) a ``@vectorize`` ufunc or a ``@stencil``.

    ``boundscheck=True``: PyKokkos views have no checked element access and a workunit cannot
    raise IndexError, so such a kernel stays Numba. Numba's ``error_model='python'`` is not
    kept either, but that only shows on a zero divisor: the PyKokkos target divides as C++
    does, which for floats is NumPy's answer (``1.0 / 0.0`` is inf, ``0.0 / 0.0`` nan, as
    under ``error_model='numpy'``) where Numba raises ZeroDivisionError.

    >>> from kpc.frontend import parse_module
    >>> m = parse_module(chr(10).join(["from numba import njit", "@njit(boundscheck=True)",
    ...                                "def f(a):", "    return a[0]"]), "m.py")
    >>> try:
    ...     require_numba_semantics(m, "f")
    ... except Unsupported as error:
    ...     print(error.construct)
    boundscheck=True in 'f'
    """
    import networkx as nx

    for other in [name, *sorted(nx.descendants(module.callgraph, name))]:
        function = module.functions[other]
        if function.options.get("stencil_of"):
            raise Unsupported(f"@stencil '{function.options['stencil_of']}'", function.loc,
                              "kpc writes a stencil as kernels the drop-in's stencil object calls, for the "
                              "Kokkos C++ target only; on the PyKokkos target the stencil stays Numba's")
        if function.options.get("vectorize") or function.options.get("ufunc_of") \
                or function.options.get("guvectorize") or function.options.get("gufunc_of"):
            ufunc = function.options.get("ufunc_of") or function.options.get("gufunc_of") or other
            raise Unsupported(f"ufunc '{ufunc}' (@vectorize or @guvectorize)", function.loc,
                              "kpc's ufunc object (loop selection, broadcasting of any rank, out=) is written "
                              "for the Kokkos C++ target only; on the PyKokkos target the ufunc stays Numba's")
        if function.options.get("boundscheck") is True:
            raise Unsupported(f"boundscheck=True in '{other}'", function.loc,
                              "PyKokkos has no checked element access and a workunit cannot raise IndexError")
        for node in [*function.params, *n.walk(function)]:
            if isinstance(node, n.Call) and node.kind == "builtin" and node.func in HOST_ROUTINES:
                raise Unsupported(f"{HOST_ROUTINES[node.func][0]}() in '{other}'", node.loc,
                                  "kpc computes it with a C++ host routine (kpc_linalg.hpp) that upstream PyKokkos "
                                  "has no counterpart of; the kernel stays Numba")
            if isinstance(node, n.Call) and node.kind == "builtin" and (node.func in ORDER_ROUTINES
                                                                       or node.func in ORDER_READERS):
                raise Unsupported(f"a sort, search or order statistic ({node.func}) in '{other}'", node.loc,
                                  "kpc orders arrays with C++ routines (kpc_order.hpp) that upstream PyKokkos has "
                                  "no counterpart of; the kernel stays Numba")
            if _is_complex(getattr(node, "type", None)) or isinstance(getattr(node, "value", None), complex) \
                    or isinstance(node, n.Call) and node.kind == "builtin" and node.func == "complex":
                raise Unsupported(f"complex numbers in '{other}'", loc_of(node),
                                  "upstream PyKokkos has no complex scalar or view type; the kernel stays Numba")
            if (isinstance(node, n.Assign) and isinstance(node.target, n.Name)
                    and any(p.name == node.target.id and isinstance(p.type, ArrayType) for p in function.params)):
                raise Unsupported(f"array parameter '{node.target.id}' rebound in '{other}'", node.loc,
                                  "a PyKokkos workunit's view arguments are fixed for the call (a rebound name "
                                  "such as `x = x.copy()` would still write the caller's array); the kernel "
                                  "stays Numba")
            if isinstance(node, n.Call) and node.kind == "random":
                raise Unsupported(f"{node.func}() in '{other}'", node.loc,
                                  "kpc maps np.random to Kokkos random pools, which upstream PyKokkos does not "
                                  "give workunits; the kernel stays Numba, and draws from Numba's generator")
