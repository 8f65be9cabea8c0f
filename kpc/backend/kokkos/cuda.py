"""What the Kokkos C++ target does differently for ``--space cuda``.

The memory scheme is described in ``kpc_cuda.hpp``: views live in CUDA managed memory,
parallel regions are followed by ``Kokkos::fence()`` where host code after them may touch
their arrays (``needs_fences``), NumPy arguments are staged into device memory, or managed memory
where host code may touch them (copied back only if the kernel writes them), and CUDA arrays (CuPy) are used in place unless the entry dereferences
arrays from host code. This module decides, from the IR, which entries do that, and
adapts the bindings and the regions the generic emitter produces.
"""

from __future__ import annotations

from kpc.passes.choose_placement import host_touches_arrays

FENCE = "Kokkos::fence();  // cuda: host code after the region sees its writes"


def host_access(module, name: str, has_regions: dict) -> bool:
    """Whether calling ``name`` from Python dereferences array memory on the host.

    True for a function without parallel regions (it runs on the host), and for one whose
    statements outside its regions index an array or call another kernel (conservative).
    """
    return not has_regions.get(name) or host_touches_arrays(module.functions[name])


def needs_fences(module, host_variants) -> bool:
    """Whether the regions of a specialization are followed by ``Kokkos::fence()``: when the host
    code of one of its functions (``host_variants``: those emitted for host code) reads or
    writes array memory, which a region still running could be changing. Otherwise regions
    queue on the device without a host round trip each (a time loop around a stencil), and the
    entry's result waits for them once (``call_scope::result``)."""
    return any(host_touches_arrays(module.functions[name]) for name in host_variants)


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


def region_renderer(render, fenced: bool = True):
    """``render`` followed by a fence when ``fenced`` (regions on a GPU are asynchronous:
    ``needs_fences``); 1-D regions launched by ``kpc::cuda::range_for`` (``flat_launch``)."""

    def render_for_cuda(model) -> str:
        text = flat_launch(model, render(model))
        return text.rstrip("\n") + "\n" + FENCE if fenced else text

    return render_for_cuda


def flat_launch(model, text: str) -> str:
    """Launch a 1-D parallel_for through ``kpc::cuda::range_for``: one thread per iteration in
    blocks of 256 with 32-bit index arithmetic (a grid-stride loop past 2^31 iterations), instead
    of Kokkos's RangePolicy launch. Kokkos 3.4 picks 64-thread blocks for a one-thread-per-element
    triad and reaches 51 % of an H200's bandwidth that way, Kokkos 4.6 2.5 TB/s; ``range_for``
    reaches what CuPy's own elementwise kernel does (kpc_cuda.hpp)."""
    policy = getattr(model, "policy", "")
    pattern = getattr(model, "pattern", "")
    # Reductions keep Kokkos's own launch: it caps their grid at one block per thread of a block
    # (256 x 256 threads), which reached 63 % of an H200's bandwidth; grid-stride reductions 25 %.
    if not policy.startswith("Kokkos::RangePolicy<") or pattern != "for":
        return text
    bounds = policy.rsplit(">(", 1)[1][:-1]
    begin, end = (part.strip() for part in bounds.split(", ", 1))
    old = f"Kokkos::parallel_for({model.label}, {policy}, kpc_body);"
    new = f"kpc::cuda::range_for({model.label}, {begin}, {end}, kpc_body);"
    if text.count(old) != 1:
        return text
    return text.replace(old, new)


def finish_source(text: str) -> str:
    """Arrays a kernel allocates go to managed memory."""
    return text.replace("kpc::empty<", "kpc::cuda::empty<")
