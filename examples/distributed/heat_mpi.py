"""A 2-D heat equation over MPI ranks, its stencil a Numba kernel that kpc builds into Kokkos.

    mpiexec -n 4 python examples/distributed/heat_mpi.py            # 4 ranks, row blocks
    python examples/distributed/heat_mpi.py                           # one process: the same field
    mpiexec -n 2 python examples/distributed/heat_mpi.py --space cuda # a GPU per rank (CuPy arrays)

The grid's interior rows are split into one block per rank, each with a ghost row above and below
that the neighbours fill (``Isend``/``Irecv``, both directions at once) every step: a step updates
the two edge rows first, sends them, and updates the rest of the block while they travel. Each element's update is the same
arithmetic on the same values whatever the split, so the gathered field is the one process's bit for
bit (``--check`` recomputes it on rank 0 and compares); the printed SHA-256 says the same across
runs. Rank 0 builds ``heat_kernels.py`` with ``kpc.build`` (``--signature`` types, ahead of time, as a
batch job should: the other ranks then only load the cached module) before the others import it.

``--space cuda`` keeps each rank's block in device memory (CuPy) on the GPU kpc gave the rank
(node-local rank mod GPUs); ghost rows go through host buffers, or straight from device memory with
``--cuda-aware`` on a CUDA-aware MPI. ``--weak ROWS`` gives every rank ROWS rows (weak scaling).
Without mpi4py the script runs as one process.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ALPHA = 0.2


class OneProcess:
    """What the script uses of an MPI communicator, for a run without mpi4py."""

    rank, size = 0, 1

    def Get_rank(self):
        return 0

    def Get_size(self):
        return 1

    def Barrier(self):
        pass

    def bcast(self, value, root=0):
        return value

    def gather(self, value, root=0):
        return [value]

    def allreduce(self, value, op=None):
        return value


def communicator(use_mpi: bool = True):
    if not use_mpi:
        return OneProcess(), None
    try:
        from mpi4py import MPI
    except (ImportError, RuntimeError, OSError):  # no mpi4py, or mpi4py without an MPI library
        return OneProcess(), None
    return MPI.COMM_WORLD, MPI


def build_kernels(comm, space: str, out: Path):
    """Rank 0 builds the kernels (a cache hit after the first run); the others wait, then import."""
    import kernels_build

    if comm.Get_rank() == 0:
        kernels_build.build(space, out)
    comm.Barrier()
    return kernels_build.load(out)


def initial_rows(first: int, last: int, rows: int, cols: int) -> np.ndarray:
    """Global rows ``first .. last - 1`` of the initial field (hot top edge, a wave inside)."""
    i = np.arange(first, last, dtype=np.float64)[:, None]
    j = np.arange(cols, dtype=np.float64)[None, :]
    u = np.sin(np.pi * i / (rows - 1)) * np.sin(2.0 * np.pi * j / (cols - 1))
    u[:, 0] = u[:, -1] = 0.0
    u[i[:, 0] == 0] = 1.0
    u[i[:, 0] == rows - 1] = 0.0
    return u


def row_blocks(rows: int, size: int) -> list:
    """Each rank's interior rows ``[first, last)`` of a grid of ``rows`` rows (0 and rows-1 fixed)."""
    bounds = np.linspace(1, rows - 1, size + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]


def solve(kernels, comm, rows: int, cols: int, steps: int, xp=np, cuda_aware: bool = False, overlap: bool = True):
    """Run ``steps`` steps on this rank's block; returns (its owned rows on the host, seconds per step).

    With ``overlap`` (the default) a step updates the two rows the neighbours need first, starts
    their exchange, and updates the rest of the block while the rows travel; without it, the whole
    block is updated and then the rows are exchanged (``--no-overlap``, to compare)."""
    rank, size = comm.Get_rank(), comm.Get_size()
    first, last = row_blocks(rows, size)[rank]
    u = xp.asarray(initial_rows(first - 1, last + 1, rows, cols))
    v = u.copy()
    up, down = (rank - 1 if rank > 0 else None), (rank + 1 if rank < size - 1 else None)
    staged = xp is not np and not cuda_aware  # GPU rows through host buffers
    received = np.empty((2, cols))  # ghost rows received on the host (staged)
    sent = np.empty((2, cols))  # rows sent from the host (staged)
    ghosts = ((0, up), (-1, down))  # each ghost row and the neighbour that fills it
    edges = ((1, up), (-2, down))  # each row a neighbour needs and that neighbour
    # On a GPU the rows are copied on a stream of their own, so the copies and the interior's kernel
    # (on the stream kpc's calls follow, CuPy's default) run at the same time.
    side = xp.cuda.Stream(non_blocking=True) if staged else None

    def start(w, ready=None):
        """Post the receives of w's ghost rows and the sends of its edge rows; ``ready``: an event
        after the kernels that wrote the edge rows (GPU)."""
        requests = []
        for k, (row, source) in enumerate(ghosts):
            if source is not None:
                requests.append(comm.Irecv(received[k] if staged else w[row], source=source))
        if xp is not np:
            if ready is None:
                xp.cuda.runtime.deviceSynchronize()  # the kernels wrote the rows sent
            elif staged:
                side.wait_event(ready)
            else:
                ready.synchronize()
        if staged:
            for k, (row, to) in enumerate(edges):
                if to is not None:
                    w[row].get(stream=side, out=sent[k])
            side.synchronize()
        for k, (row, to) in enumerate(edges):
            if to is not None:
                requests.append(comm.Isend(sent[k] if staged else w[row], dest=to))
        return requests

    def finish(w, requests):
        for request in requests:
            request.Wait()
        if staged:
            for k, (row, source) in enumerate(ghosts):
                if source is not None:
                    w[row].set(received[k], stream=side)
            arrived = xp.cuda.Event()
            arrived.record(side)
            xp.cuda.get_current_stream().wait_event(arrived)  # the next step's kernels read them

    def step(u, v):
        """v from u, with v's ghost rows filled by the neighbours; returns the seconds spent
        waiting for (or doing) the exchange."""
        if size == 1:
            kernels.heat_step(u, v, ALPHA)
            return 0.0
        if not overlap:
            kernels.heat_step(u, v, ALPHA)
            before = time.perf_counter()
            finish(v, start(v))
            return time.perf_counter() - before
        kernels.heat_step(u[:3], v[:3], ALPHA)  # v's first edge row
        kernels.heat_step(u[-3:], v[-3:], ALPHA)  # and its last
        ready = None
        if xp is not np:
            ready = xp.cuda.Event()
            ready.record()
        if xp is np:
            requests = start(v)
            kernels.heat_step(u[1:-1], v[1:-1], ALPHA)  # the rows between, while the edges travel
        else:
            kernels.heat_step(u[1:-1], v[1:-1], ALPHA)  # queued: runs while the edges travel
            requests = start(v, ready)
        before = time.perf_counter()
        finish(v, requests)
        return time.perf_counter() - before

    step(u, v)  # warm-up: loads the module, starts Kokkos
    u, v = v, u
    comm.Barrier()
    started = time.perf_counter()
    exchanging = 0.0
    for _ in range(steps - 1):
        exchanging += step(u, v)
        u, v = v, u
    if xp is not np:
        xp.cuda.runtime.deviceSynchronize()
    comm.Barrier()
    seconds = (time.perf_counter() - started) / max(steps - 1, 1)
    solve.exchange_seconds = exchanging / max(steps - 1, 1)
    owned = u[1:-1]
    return (owned if xp is np else xp.asnumpy(owned)), seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=514, help="grid rows, boundary included (default 514)")
    parser.add_argument("--cols", type=int, default=514, help="grid columns, boundary included (default 514)")
    parser.add_argument("--weak", type=int, metavar="ROWS", help="ROWS interior rows per rank (weak scaling)")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--space", choices=("openmp", "serial", "cuda"), default="openmp")
    parser.add_argument("--out", type=Path, help="where kpc writes the module (default: beside this file)")
    parser.add_argument("--cuda-aware", action="store_true", help="send ghost rows from device memory")
    parser.add_argument("--check", action="store_true", help="rank 0 recomputes the field in one block")
    parser.add_argument("--no-gather", action="store_true", help="skip gathering the field (timing runs)")
    parser.add_argument("--no-mpi", action="store_true", help="run as one process even where mpi4py is installed")
    parser.add_argument("--no-overlap", action="store_true",
                        help="update the whole block, then exchange (default: edge rows first, exchanged "
                             "while the rest is updated)")
    args = parser.parse_args(argv)

    comm, mpi = communicator(not args.no_mpi)
    rank, size = comm.Get_rank(), comm.Get_size()
    rows = args.weak * size + 2 if args.weak else args.rows
    out = args.out or HERE / f"out_{args.space}"
    kernels = build_kernels(comm, args.space, out)
    xp = np
    if args.space == "cuda":
        import cupy as xp

        from kpc.runtime.rank_layout import device_id

        # The arrays go where this rank's Kokkos runs: kpc's choice, made the same way.
        xp.cuda.Device(max(device_id(device_count=xp.cuda.runtime.getDeviceCount())[0], 0)).use()

    owned, seconds = solve(kernels, comm, rows, args.cols, args.steps, xp, args.cuda_aware, not args.no_overlap)

    from kpc.runtime import kokkos_session

    layout = kokkos_session.layout()
    places = comm.gather((rank, layout["local_rank"], layout["threads"], layout["device"], layout.get("cores", "")))
    slowest = comm.allreduce(seconds, op=mpi.MAX) if mpi is not None else seconds
    exchange = comm.allreduce(solve.exchange_seconds, op=mpi.MAX) if mpi is not None else solve.exchange_seconds
    parts = None if args.no_gather else comm.gather(owned)
    if rank != 0:
        return 0
    for r, local_rank, threads, device, cores in places:
        where = f"GPU {device}" if device >= 0 else "host"
        print(f"rank {r}: node-local rank {local_rank}, {threads} threads, {where}; {cores}")
    cells = (rows - 2) * (args.cols - 2)
    print(f"{size} ranks, {rows} x {args.cols} grid, {args.steps} steps, space {args.space}: "
          f"{slowest * 1e3:.3f} ms/step, {cells / slowest / 1e9:.3f} Gcell/s "
          f"(ghost-row exchange{'' if args.no_overlap else ' after the interior'}, slowest rank: "
          f"{exchange * 1e3:.3f} ms/step)")
    if parts is None:
        return 0
    field = np.vstack([initial_rows(0, 1, rows, args.cols), *parts, initial_rows(rows - 1, rows, rows, args.cols)])
    print(f"field sum {field.sum():.12e} sha256 {hashlib.sha256(np.ascontiguousarray(field).tobytes()).hexdigest()}")
    if args.check:
        whole, _ = solve(kernels, OneProcess(), rows, args.cols, args.steps, xp)
        single = np.vstack([initial_rows(0, 1, rows, args.cols), whole, initial_rows(rows - 1, rows, rows, args.cols)])
        same = np.array_equal(field, single)
        print(f"check: {size} ranks {'equal' if same else 'DIFFER from'} one process bit for bit")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
