"""A block-wise kpc kernel over a large Dask array: ``map_blocks`` on threads or on worker processes.

    python examples/distributed/dask_blocks.py                           # threaded scheduler
    python examples/distributed/dask_blocks.py --workers 2 --threads 1   # LocalCluster, 2 processes

``heat_kernels.smooth_energy`` (a Numba kernel) is built by kpc into ``out_openmp/``; that folder goes
on the workers' ``PYTHONPATH``, so the drop-in module imports there and its functions travel to
the workers pickled by reference (module and name), never by value. Each worker process runs its
own Kokkos with as many threads as the worker has (kpc asks the worker), so ``--workers W
--threads T`` uses W x T cores. In one process (the threaded scheduler, or the threads of one
worker) kernels run one at a time, each on all of Kokkos' threads, with the GIL released. The
result is compared with the Numba kernel's, and the time printed is the best of ``--repeats``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def build_kernels(out: Path):
    import kernels_build

    kernels_build.build("openmp", out)
    # Worker processes start with this environment: the drop-in module must import there too.
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(out), os.environ.get("PYTHONPATH")]))
    return kernels_build.load(out)


def field(size: int, chunk: int):
    import dask.array as da

    return da.fromfunction(lambda i, j: np.sin(i * 1e-3) + np.cos(j * 2e-3), shape=(size, size),
                           chunks=chunk, dtype=np.float64)


def threads_of_workers(client) -> dict:
    """Each worker's Kokkos threads (after its first kernel) and why."""

    def report():
        from kpc.runtime import kokkos_session

        layout = kokkos_session.layout()
        return layout.get("threads"), layout.get("threads_reason")

    return client.run(report)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=4096, help="the array is SIZE x SIZE float64")
    parser.add_argument("--chunk", type=int, default=512)
    parser.add_argument("--workers", type=int, default=0, help="LocalCluster process workers (0: threaded scheduler)")
    parser.add_argument("--threads", type=int, default=1, help="threads per worker (LocalCluster)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "out_openmp")
    args = parser.parse_args(argv)

    kernels = build_kernels(args.out)
    import dask

    client = cluster = None
    if args.workers:
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=args.threads, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    x = field(args.size, args.chunk)
    y = x.map_blocks(kernels.smooth_energy, dtype=np.float64)
    best = float("inf")
    for _ in range(args.repeats):
        started = time.perf_counter()
        total = float(y.sum().compute())
        best = min(best, time.perf_counter() - started)
    # The reference: the Numba kernel on the same blocks, in this process.
    reference = float(x.map_blocks(numba_kernel(), dtype=np.float64).sum().compute(scheduler="threads"))
    where = (f"LocalCluster {args.workers} workers x {args.threads} threads" if client else
             f"threaded scheduler ({dask.config.get('num_workers', None) or os.cpu_count()} threads)")
    print(f"{where}: {args.size} x {args.size}, blocks {args.chunk}: {best:.3f} s, "
          f"{args.size * args.size / best / 1e6:.1f} Melem/s")
    if client is not None:
        for worker, (threads, why) in sorted(threads_of_workers(client).items()):
            print(f"  worker {worker}: Kokkos {threads} threads ({why})")
        client.close()
        cluster.close()
    same = np.isclose(total, reference, rtol=1e-12, atol=0.0)
    print(f"sum {total:.12e}, Numba {reference:.12e}: {'match' if same else 'MISMATCH'}")
    return 0 if same else 1


def numba_kernel():
    """The source's Numba ``smooth_energy`` (a module of another name than the drop-in's)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("heat_kernels_numba", HERE / "heat_kernels.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.smooth_energy


if __name__ == "__main__":
    sys.exit(main())
