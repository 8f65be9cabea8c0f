"""Where this process sits among MPI ranks and Dask workers: the threads and the GPU its Kokkos takes.

Launchers tell each rank its place through environment variables; kpc reads those of Open MPI,
MVAPICH2, MPICH's Hydra and Intel MPI (both ``MPI_LOCALRANKID``), and Slurm's ``srun``, in that
order, so an ``mpiexec`` run inside a Slurm allocation goes by the ``mpiexec``'s variables. Nothing
is asked of MPI itself: Kokkos is initialized at a module's first call, which may come before (or
without) ``MPI_Init``.

**Threads** of the host execution space, first that applies: ``KPC_NUM_THREADS``; inside a Dask
worker, the worker's thread count (Dask sets ``OMP_NUM_THREADS=1`` in the workers it spawns, against
libraries that would start a pool per task thread; kpc runs one kernel of a process at a time, on
all of Kokkos' threads, so the worker's threads are the right size); ``OMP_NUM_THREADS``;
``NUMBA_NUM_THREADS``; with several ranks on the node, the node's cores divided among them (and no
more than the cores the launcher bound this rank to), so that ranks never oversubscribe a node;
otherwise Kokkos' default, every core.

**Device**: ``KPC_DEVICE_ID`` or ``KOKKOS_DEVICE_ID`` when set, else the node-local rank modulo the
GPUs the process sees (``--kokkos-map-device-id-by=mpi_rank``): ranks 0 and 1 of a node with two
GPUs take GPUs 0 and 1.

>>> layout = rank_layout({"OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_SIZE": "8",
...                       "OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_LOCAL_SIZE": "4"})
>>> layout
RankLayout(launcher='Open MPI', rank=5, size=8, local_rank=1, local_size=4)
>>> host_threads({}, layout, cores=16, bound_cores=16)
(4, '16 cores / 4 ranks on this node')
>>> host_threads({"OMP_NUM_THREADS": "2"}, layout, cores=16, bound_cores=16)
(2, 'OMP_NUM_THREADS')
>>> device_id({}, layout, device_count=2)
(1, 'node-local rank 1 of 4 ranks, 2 GPUs')
"""

from __future__ import annotations

import os
import re
import sys
from typing import NamedTuple, Optional


class RankLayout(NamedTuple):
    """This process's place: ``launcher`` None (and rank 0 of 1) when no launcher started it."""

    launcher: Optional[str]
    rank: int
    size: int
    local_rank: int
    local_size: int


# (launcher, rank, size, local rank, ranks on this node): the variables each launcher sets.
_LAUNCHERS = (
    ("Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE"),
    ("MVAPICH2", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK",
     "MV2_COMM_WORLD_LOCAL_SIZE"),
    ("MPICH/Intel MPI", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
    ("Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", None),
)


def _integer(environ, name) -> Optional[int]:
    text = environ.get(name, "").strip() if name else ""
    return int(text) if text.isdigit() else None


def slurm_tasks_on_node(environ) -> Optional[int]:
    """Tasks of this step on this node, from ``SLURM_STEP_TASKS_PER_NODE`` (``"4(x2),3"``) and
    ``SLURM_NODEID``. Not from ``SLURM_TASKS_PER_NODE``, the allocation's: a batch script's own
    Python is one process however many tasks the job asked for.

    >>> slurm_tasks_on_node({"SLURM_STEP_TASKS_PER_NODE": "4(x2),3", "SLURM_NODEID": "2"})
    3
    """
    text = environ.get("SLURM_STEP_TASKS_PER_NODE")
    node = _integer(environ, "SLURM_NODEID") or 0
    if not text:
        return None
    counts = []
    for part in text.split(","):
        match = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", part.strip())
        if match is None:
            return None
        counts += [int(match.group(1))] * int(match.group(2) or 1)
    return counts[node] if node < len(counts) else None


def rank_layout(environ=None) -> RankLayout:
    """The layout the launcher's variables describe (``os.environ`` by default).

    >>> rank_layout({"PMI_RANK": "1", "PMI_SIZE": "2", "MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "2"})
    RankLayout(launcher='MPICH/Intel MPI', rank=1, size=2, local_rank=1, local_size=2)
    >>> rank_layout({})
    RankLayout(launcher=None, rank=0, size=1, local_rank=0, local_size=1)
    """
    environ = os.environ if environ is None else environ
    for launcher, rank, size, local_rank, local_size in _LAUNCHERS:
        local = _integer(environ, local_rank)
        if local is None:
            continue
        ranks_here = _integer(environ, local_size) if local_size else slurm_tasks_on_node(environ)
        return RankLayout(launcher, _integer(environ, rank) or 0, _integer(environ, size) or 1, local,
                          max(ranks_here or 1, local + 1))
    return RankLayout(None, 0, 1, 0, 1)


def dask_worker_threads() -> Optional[int]:
    """The threads of the Dask workers living in this process (one in a worker process that a
    nanny started; several, sharing one Kokkos, in a ``LocalCluster(processes=False)``), None
    where there are none or ``distributed`` was never imported (a worker always has)."""
    distributed = sys.modules.get("distributed")
    if distributed is None:
        return None
    try:
        workers = list(distributed.Worker._instances)
    except (AttributeError, TypeError):
        return None
    threads = sum(getattr(getattr(worker, "state", worker), "nthreads", 0) or 0 for worker in workers)
    return threads if threads > 0 else None


def _positive(environ, name) -> Optional[int]:
    text = environ.get(name, "").split(",")[0].strip()
    return int(text) if text.isdigit() and int(text) > 0 else None


def host_threads(environ=None, layout=None, cores=None, bound_cores=None, worker_threads=None) -> tuple:
    """``(threads, why)`` for Kokkos' host execution space; threads -1 is Kokkos' default.

    >>> host_threads({}, RankLayout(None, 0, 1, 0, 1), cores=16, bound_cores=16)
    (-1, "Kokkos' default")
    >>> host_threads({}, RankLayout('Slurm', 0, 4, 0, 4), cores=16, bound_cores=2)
    (2, '2 cores bound to this rank')
    >>> host_threads({"OMP_NUM_THREADS": "1"}, RankLayout(None, 0, 1, 0, 1), worker_threads=4)
    (4, 'Dask worker threads')
    """
    environ = os.environ if environ is None else environ
    explicit = _positive(environ, "KPC_NUM_THREADS")
    if explicit:
        return explicit, "KPC_NUM_THREADS"
    if worker_threads:
        return worker_threads, "Dask worker threads"
    for name in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS"):
        threads = _positive(environ, name)
        if threads:
            return threads, name
    layout = rank_layout(environ) if layout is None else layout
    if layout.local_size > 1:
        cores = cores or os.cpu_count() or 1
        share = max(1, cores // layout.local_size)
        if bound_cores is not None and bound_cores < share:
            return bound_cores, f"{bound_cores} cores bound to this rank"
        return share, f"{cores} cores / {layout.local_size} ranks on this node"
    return -1, "Kokkos' default"


def bound_core_count() -> Optional[int]:
    """Cores this process may run on (its affinity mask), None where the system does not say."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def rank_cores(environ, layout, threads, allowed) -> tuple:
    """``(cores, why)``: the cores to confine this rank to, or None, where several ranks share a node
    and nothing has placed them: each then keeps its own slice of the cores it may run on (its
    threads are started after, and stay there), as ``mpiexec --bind-to core`` would. MPICH's
    Hydra binds nothing by default, and ranks whose threads roam the node evict each other's caches.
    Left alone: one rank on the node, ``KPC_BIND_RANKS=0``, ``OMP_PLACES`` set, or an affinity
    mask smaller than the node's share (the launcher bound the rank).

    >>> rank_cores({}, RankLayout('MPICH/Intel MPI', 1, 4, 1, 4), 4, list(range(16)))
    ([4, 5, 6, 7], 'cores 4-7 of 16: node-local rank 1 x 4 threads')
    >>> rank_cores({}, RankLayout('Slurm', 1, 4, 1, 4), 2, [6, 7])[0] is None
    True
    """
    if layout.local_size <= 1 or threads <= 0 or not allowed:
        return None, "one rank on this node" if layout.local_size <= 1 else "no thread count"
    if environ.get("KPC_BIND_RANKS", "").strip() == "0":
        return None, "KPC_BIND_RANKS=0"
    if environ.get("OMP_PLACES"):
        return None, "OMP_PLACES"
    cores = sorted(allowed)
    if len(cores) < layout.local_size * threads:
        return None, f"{len(cores)} cores allowed: placed by the launcher"
    mine = cores[layout.local_rank * threads:(layout.local_rank + 1) * threads]
    return mine, (f"cores {mine[0]}-{mine[-1]} of {len(cores)}: node-local rank {layout.local_rank} "
                  f"x {threads} threads")


def confine_rank(threads: int) -> str:
    """Confine this process to its rank's cores (``rank_cores``) before Kokkos starts its threads;
    says what was done."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return "no affinity on this system"
    cores, why = rank_cores(os.environ, rank_layout(), threads, allowed)
    if cores is None:
        return f"not confined ({why})"
    try:
        os.sched_setaffinity(0, cores)
    except OSError as error:
        return f"not confined ({error})"
    return why


def device_id(environ=None, layout=None, device_count=0) -> tuple:
    """``(device, why)``: the GPU this process's Kokkos takes; -1 leaves it to Kokkos.

    >>> device_id({"KPC_DEVICE_ID": "3"}, RankLayout(None, 0, 1, 0, 1), device_count=4)
    (3, 'KPC_DEVICE_ID')
    >>> device_id({}, RankLayout('Slurm', 2, 4, 2, 4), device_count=2)
    (0, 'node-local rank 2 of 4 ranks, 2 GPUs')
    """
    environ = os.environ if environ is None else environ
    for name in ("KPC_DEVICE_ID", "KOKKOS_DEVICE_ID"):
        text = environ.get(name, "").strip()
        if text.isdigit():
            return int(text), name
    if device_count <= 0:
        return -1, "no GPU"
    layout = rank_layout(environ) if layout is None else layout
    if layout.launcher is None:
        return -1, f"Kokkos' default of {device_count} GPUs (no MPI launcher)"
    return (layout.local_rank % device_count,
            f"node-local rank {layout.local_rank} of {layout.local_size} ranks, {device_count} GPUs")


def visible_gpu_count(environ=None) -> int:
    """GPUs a process here would see, without initializing CUDA (``kpc doctor``): the entries of
    ``CUDA_VISIBLE_DEVICES`` when set, else the NVIDIA driver's list of GPUs."""
    environ = os.environ if environ is None else environ
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([entry for entry in visible.split(",") if entry.strip() and not entry.strip().startswith("-")])
    try:
        return len(os.listdir("/proc/driver/nvidia/gpus"))
    except OSError:
        return 0


def describe(environ=None, gpu_build=False, device_count=None) -> list:
    """``kpc doctor``'s lines: this process's rank, the threads and (for a GPU build) the device
    its Kokkos would take.

    >>> print("\\n".join(describe({"SLURM_PROCID": "3", "SLURM_NTASKS": "8", "SLURM_LOCALID": "1",
    ...                              "SLURM_STEP_TASKS_PER_NODE": "4(x2)", "SLURM_NODEID": "0",
    ...                              "OMP_NUM_THREADS": "4"}, gpu_build=True, device_count=2)))
    Rank        3 of 8 (Slurm), node-local 1 of 4
    Threads     4 (OMP_NUM_THREADS)
    Device      GPU 1 (node-local rank 1 of 4 ranks, 2 GPUs)
    """
    environ = os.environ if environ is None else environ
    layout = rank_layout(environ)
    if layout.launcher is None:
        lines = ["Rank        none (no MPI launcher's variables)"]
    else:
        lines = [f"Rank        {layout.rank} of {layout.size} ({layout.launcher}), "
                 f"node-local {layout.local_rank} of {layout.local_size}"]
    threads, why = host_threads(environ, layout, bound_cores=bound_core_count())
    lines.append(f"Threads     {'every core' if threads < 0 else threads} ({why})")
    if gpu_build:
        count = visible_gpu_count(environ) if device_count is None else device_count
        device, why = device_id(environ, layout, count)
        lines.append(f"Device      {'Kokkos chooses' if device < 0 else f'GPU {device}'} ({why})")
    return lines

