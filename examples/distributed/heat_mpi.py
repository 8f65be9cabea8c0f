"""A 2-D heat equation over MPI ranks, its stencil a Numba kernel that kpc builds into Kokkos.

    mpiexec -n 4 python examples/distributed/heat_mpi.py            # 4 ranks, row blocks
    python examples/distributed/heat_mpi.py                           # one process: the same field
    mpiexec -n 2 python examples/distributed/heat_mpi.py --space cuda # a GPU per rank (CuPy arrays)

The grid's interior rows are split into one block per rank, each with a ghost row above and below
that the neighbours fill (``Isend``/``Irecv``, both directions at once) before every step. Each element's update is the same
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


def solve(kernels, comm, rows: int, cols: int, steps: int, xp=np, cuda_aware: bool = False):
    """Run ``steps`` steps on this rank's block; returns (its owned rows on the host, seconds per step)."""
    rank, size = comm.Get_rank(), comm.Get_size()
    first, last = row_blocks(rows, size)[rank]
    u = xp.asarray(initial_rows(first - 1, last + 1, rows, cols))
    v = u.copy()
    up, down = (rank - 1 if rank > 0 else None), (rank + 1 if rank < size - 1 else None)
    host_rows = np.empty((2, cols))  # ghost rows received on the host (GPU without CUDA-aware MPI)
    ghosts = ((0, up), (-1, down))  # each ghost row and the neighbour that fills it

    def exchange(w):
        """Fill w's ghost rows from the neighbours, both directions in flight at once (one message
        latency a step, not two as with a Sendrecv per direction)."""
        if size == 1:
            return
        staged = xp is not np and not cuda_aware
        if xp is not np:
            xp.cuda.runtime.deviceSynchronize()  # the step's kernel wrote the rows sent
        requests, outgoing = [], []
        for k, (row, source) in enumerate(ghosts):
            if source is not None:
                requests.append(comm.Irecv(host_rows[k] if staged else w[row], source=source))
        for row, to in ((1, up), (-2, down)):
            if to is not None:
                outgoing.append(xp.asnumpy(w[row]) if staged else w[row])
                requests.append(comm.Isend(outgoing[-1], dest=to))
        for request in requests:
            request.Wait()
        if staged:
            for k, (row, source) in enumerate(ghosts):
                if source is not None:
                    w[row] = xp.asarray(host_rows[k])

    exchange(u)
    kernels.heat_step(u, v, ALPHA)  # warm-up: loads the module, starts Kokkos
    u, v = v, u
    exchange(u)
    comm.Barrier()
    started = time.perf_counter()
    exchanging = 0.0
    for _ in range(steps - 1):
        kernels.heat_step(u, v, ALPHA)
        u, v = v, u
        before = time.perf_counter()
        exchange(u)  # (on a GPU: waits for the step's kernel first)
        exchanging += time.perf_counter() - before
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

    owned, seconds = solve(kernels, comm, rows, args.cols, args.steps, xp, args.cuda_aware)

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
          f"(ghost-row exchange, slowest rank: {exchange * 1e3:.3f} ms/step)")
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
