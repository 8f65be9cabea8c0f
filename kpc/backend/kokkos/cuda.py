"""What the Kokkos C++ target does differently for ``--space cuda``.

The memory scheme is described in ``kpc_cuda.hpp``: views live in CUDA managed memory,
every parallel region is followed by ``Kokkos::fence()`` so host code after it sees its
writes, NumPy arguments are staged into managed memory (copied back only if the kernel
writes them), and CUDA arrays (CuPy) are used in place unless the entry dereferences
arrays from host code. This module decides, from the IR, which entries do that, and
adapts the bindings and the regions the generic emitter produces.
"""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.queries import nested_bodies, own_exprs
from kpc.ir.types import ArrayType

FENCE = "Kokkos::fence();  // cuda: host code after the region sees its writes"


def host_access(module, name: str, has_regions: dict, seen=None) -> bool:
    """Whether calling ``name`` from Python dereferences array memory on the host.

    True for a function without parallel regions (it runs on the host), and for one whose
    statements outside its regions index an array or call another kernel (conservative).
    """
    if not has_regions.get(name):
        return True
    function = module.functions[name]

    def touches(expr) -> bool:
        for sub in n.walk(expr):
            if isinstance(sub, n.Index) and isinstance(getattr(sub.base, "type", None), ArrayType):
                return True
            if isinstance(sub, n.Call) and sub.kind == "kernel":
                return True
        return False

    def visit(stmts) -> bool:
        for stmt in stmts:
            if isinstance(stmt, n.For) and stmt.parallel is not None:
                if any(touches(e) for e in (stmt.start, stmt.stop, stmt.step) if e is not None):
                    return True
                continue
            if any(touches(e) for e in own_exprs(stmt) if e is not None):
                return True
            if any(visit(block) for block in nested_bodies(stmt)):
                return True
        return False

    return visit(function.body)


def adapt_entry(entry, module, name: str, has_regions: dict) -> None:
    """Make a binding take NumPy or CUDA arrays (``kpc::cuda::from_array``)."""
    host = "true" if host_access(module, name, has_regions) else "false"
    device = "true" if has_regions.get(name) else "false"
    entry.host_access = host == "true"
    conversions = []
    for line in entry.conversions:
        if "kpc::from_numpy<" in line:
            line = line.replace("kpc::from_numpy<", "kpc::cuda::from_array<")
            assert line.endswith(");"), line
            line = line[:-2] + f", {host}, {device});"
        conversions.append(line)
    entry.conversions = conversions


def region_renderer(render):
    """``render`` followed by a fence (regions on a GPU are asynchronous); 1-D regions launched
    as grid-stride loops (``grid_stride``)."""

    def render_with_fence(model) -> str:
        return grid_stride(model, render(model)).rstrip("\n") + "\n" + FENCE

    return render_with_fence


def grid_stride(model, text: str) -> str:
    """Launch a 1-D parallel_for through ``kpc::cuda::grid_stride_for``: a fixed number of threads
    (four per resident thread slot of the GPU) each running a strided loop, instead of one thread per iteration. Kokkos 3.4 picks 64-thread blocks
    for a one-thread-per-element triad and reaches 51 % of an H200's bandwidth that way; a
    grid-stride loop reaches what a plain CUDA kernel does."""
    policy = getattr(model, "policy", "")
    pattern = getattr(model, "pattern", "")
    # Reductions keep Kokkos's own launch: it caps their grid at one block per thread of a block
    # (256 x 256 threads), which reached 63 % of an H200's bandwidth; grid-stride reductions 25 %.
    if not policy.startswith("Kokkos::RangePolicy<") or pattern != "for":
        return text
    bounds = policy.rsplit(">(", 1)[1][:-1]
    begin, end = (part.strip() for part in bounds.split(", ", 1))
    old = f"Kokkos::parallel_for({model.label}, {policy}, kpc_body);"
    new = f"kpc::cuda::grid_stride_for({model.label}, {begin}, {end}, kpc_body);"
    if text.count(old) != 1:
        return text
    return text.replace(old, new)


def finish_source(text: str) -> str:
    """Arrays a kernel allocates go to managed memory."""
    return text.replace("kpc::empty<", "kpc::cuda::empty<")
