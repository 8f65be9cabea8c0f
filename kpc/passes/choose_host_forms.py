"""Choose the host-space form of Kokkos regions: element copies as memmoves, reductions in chunks of four accumulators."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.types import ArrayType

from .manager import Pass, register

ELEMENT_COPY = "element-copy"
CHUNKED_REDUCE = "chunked-reduce"


def region_pattern(info: n.ParallelInfo) -> str:
    """The pattern a region is launched with: ``reduce`` needs reductions and ``scan`` a scan
    variable; a region with neither runs as a ``for``."""
    if info.pattern == "reduce" and info.reductions:
        return "reduce"
    if info.pattern == "scan" and info.scan is not None:
        return "scan"
    return "for"


def copied_arrays(loop: n.For) -> tuple | None:
    """``(dst, src)`` when the body of ``loop`` is only ``dst[i] = src[i]`` (``i`` the loop's
    variable, a unit step), else None.

    >>> i, a, c = n.Name("i"), n.Name("a"), n.Name("c")
    >>> copied_arrays(n.For(i, n.Const(0), n.Name("m"), n.Const(1), [n.Assign(n.Index(c, [i]), n.Index(a, [i]))]))
    ('c', 'a')
    """
    if len(loop.body) != 1 or not (isinstance(loop.step, n.Const) and loop.step.value == 1):
        return None
    stmt = loop.body[0]
    if not (isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Index) and isinstance(stmt.value, n.Index)):
        return None
    names = []
    for access in (stmt.target, stmt.value):
        if not (isinstance(access.base, n.Name) and len(access.indices) == 1 and isinstance(access.indices[0], n.Name)
                and access.indices[0].id == loop.var.id):
            return None
        names.append(access.base.id)
    return tuple(names)


def _copy_refusal(loop: n.For, names: tuple, types: dict) -> str:
    """Why a region whose body is ``dst[i] = src[i]`` keeps its loop, or "" when it may run as
    a memmove per thread block (C-contiguous 1-D arrays of one dtype, ``dst`` writable)."""
    info = loop.parallel
    if info.policy != "Range":
        return f"a {info.policy} region"
    if info.paired:
        return "iterations paired"
    dst, src = names
    if dst == src:
        return f"{dst} copied onto itself"
    for name in names:
        t = types.get(name)
        if not (isinstance(t, ArrayType) and t.ndim == 1 and t.layout == "C"):
            return f"{name} is {t}, not a C-contiguous 1-D array"
    if types[dst].dtype != types[src].dtype:
        return f"{src} ({types[src].dtype}) converts to {dst} ({types[dst].dtype})"
    if types[dst].readonly:
        return f"{dst} is read-only"
    return ""


def _chunk_refusal(info: n.ParallelInfo) -> str:
    """Why a reduction region keeps Kokkos's reducer, or "" when host spaces may run it in chunks.
    Chunks of at least 1024 iterations would leave a few hundred long iterations to one thread."""
    if info.schedule == "dynamic":
        return "dynamic schedule"
    if info.policy == "Team":
        return "a Team region"
    if info.serial_work:
        return "iterations run loops of run-time trip count"
    if info.serial_below is None:
        return "work per iteration unknown"
    return ""


def _note(info: n.ParallelInfo, note: str) -> None:
    if note not in info.reason:
        info.reason = f"{info.reason}; {note}" if info.reason else note


@register
class ChooseHostForms(Pass):
    """Set ``host_form`` on regions that host spaces run in a faster form than a plain Kokkos launch.

    A 1-D Range region whose body is only ``dst[i] = src[i]`` between C-contiguous arrays of one
    dtype becomes an ``element-copy``: a ``memmove`` per thread block, as Numba's loop compiles to
    ``memcpy`` (glibc streams large blocks past the cache). A 1-D reduction with a static schedule
    and iterations of known, even work becomes a ``chunked-reduce``: chunks of iterations, each
    reduced into four local accumulators in turn (their chains of dependent updates overlap). The
    pass context names no execution space, so ``host_form`` says that the host form is allowed:
    the Kokkos emitter prints it for host spaces only, and CUDA keeps the plain launch (as for
    ``paired``). The reason says what was chosen, or why a candidate was not.

    Before::

        func @copy_sum(a: f64[:] C, c: f64[:] C) -> f64   role=entry parallel
          parallel_for Range i: i64 in prange(0, len(a)):
            c[i] = a[i]
          s: f64 = 0.0
          parallel_reduce(sum:s) Range i: i64 in prange(0, len(a)):
            s += a[i]
          return s

    After::

        func @copy_sum(a: f64[:] C, c: f64[:] C) -> f64   role=entry parallel
          parallel_for Range host=element-copy i: i64 in prange(0, len(a)):
            c[i] = a[i]
          s: f64 = 0.0
          parallel_reduce(sum:s) Range host=chunked-reduce i: i64 in prange(0, len(a)):
            s += a[i]
          return s

    After (report)::

        @copy_sum (role entry)
          line 4, i in prange: parallel_for [Range]: prange; serial below 32768 iterations (~1 operations each); element copy: memmove per thread block on host spaces
          line 7, i in prange: parallel_reduce (sum: s) [Range]: prange; sum reduction of s; serial below 5462 iterations (~6 operations each); reduction: 4 accumulators per chunk on host spaces
    """

    name = "choose-host-forms"
    transforms = False

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            types = {p.name: p.type for p in function.params}
            types.update(function.locals)
            for loop in n.walk(function):
                if not isinstance(loop, n.For) or loop.parallel is None:
                    continue
                info = loop.parallel
                info.host_form = ""
                pattern = region_pattern(info)
                if info.policy == "MDRange" and info.depth > 1:
                    if pattern == "reduce":
                        _note(info, "reduction not chunked: an MDRange region")
                    continue
                if pattern == "reduce":
                    why = _chunk_refusal(info)
                    if not why:
                        info.host_form = CHUNKED_REDUCE
                    _note(info, f"reduction not chunked: {why}" if why else
                          "reduction: 4 accumulators per chunk on host spaces")
                elif pattern == "for" and (names := copied_arrays(loop)) is not None:
                    why = _copy_refusal(loop, names, types)
                    if not why:
                        info.host_form = ELEMENT_COPY
                    _note(info, f"no element copy: {why}" if why else
                          "element copy: memmove per thread block on host spaces")
