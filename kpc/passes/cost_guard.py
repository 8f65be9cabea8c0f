"""Let tiny parallel regions run serially: below a trip-count threshold dispatch overhead dominates."""

from __future__ import annotations

from kpc.ir import nodes as n

from .manager import Pass, register

# Iterations below which a region with straight-line iterations runs serially.
# A Kokkos OpenMP dispatch costs about 1-3 us on the 2-core reference machine
# (PERFORMANCE_NOTES.md), i.e. a few hundred cheap iterations; 512 is the
# starting point, to be re-measured with the benchmark suite. Emitted code reads
# the environment variable KPC_SERIAL_THRESHOLD at run time: when set, its
# integer value replaces ``ParallelInfo.serial_below`` (0 disables the guard).
SERIAL_THRESHOLD = 512


def iterations_contain_loops(loop: n.For, module) -> bool:
    """True when one iteration of the region runs a loop (its own or in a called function)."""
    body = loop.body
    for _ in range(max(1, loop.parallel.depth if loop.parallel else 1) - 1):
        body = body[0].body if body and isinstance(body[0], n.For) else body
    seen: set = set()
    pending = [body]
    while pending:
        for node in n.walk(pending.pop()):
            if isinstance(node, (n.For, n.While)):
                return True
            if isinstance(node, n.Call) and node.kind == "kernel" and node.func in module.functions \
                    and node.func not in seen:
                seen.add(node.func)
                pending.append(module.functions[node.func].body)
    return False


@register
class CostGuard(Pass):
    """Set ``serial_below`` on regions whose iterations are straight-line code.

    The guard compares the region's iteration count (the product of the
    collapsed extents for an MDRange) with ``serial_below`` at run time and runs
    the region serially below it. Regions whose iterations contain loops (the
    Lennard-Jones ``prange`` with its inner ``j`` loop) do enough work per
    iteration to be worth a dispatch at any size and keep ``serial_below=None``.

    Before::

        func @scale(x: f64[:], a: f64) -> none   role=entry
          parallel_for Range i: i64 in range(0, len(x)):
            x[i] = a * x[i]

    After (report)::

        @scale (role entry)
          line 4, i in range: parallel_for [Range]: independent writes to x[i]; serial below 512 iterations
    """

    name = "cost-guard"
    transforms = False

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            for node in n.walk(function):
                if isinstance(node, n.For) and node.parallel is not None:
                    info = node.parallel
                    if iterations_contain_loops(node, module):
                        info.serial_below = None
                    else:
                        info.serial_below = SERIAL_THRESHOLD
                        note = f"serial below {SERIAL_THRESHOLD} iterations"
                        if note not in info.reason:
                            info.reason = f"{info.reason}; {note}" if info.reason else note
