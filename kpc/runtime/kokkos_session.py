"""Kokkos initialization, once per process, shared by every kpc module; calls from any thread.

``libkokkoscore`` is a shared library, so ``Kokkos::is_initialized()`` is one state
for all compiled kpc modules of a process: the first module loaded initializes
Kokkos through its ``_kpc_initialize`` export, later ones find it initialized, and
one ``atexit`` handler finalizes it when the interpreter exits. When something else
(PyKokkos, another library) initialized Kokkos first, kpc leaves finalization to it.

The thread count of the OpenMP execution space is ``KPC_NUM_THREADS``, else a Dask
worker's thread count, else ``OMP_NUM_THREADS``, else ``NUMBA_NUM_THREADS`` (so a script
tuned for Numba keeps its setting), else, with several MPI ranks on the node, the node's
cores divided among them, else Kokkos' default (every core); on a GPU build the device is
chosen by the node-local MPI rank (``kpc.runtime.rank_layout``). Kokkos' warning about an
unset ``OMP_PROC_BIND`` is turned off: kpc initializes with warnings disabled.

**Threads.** kpc functions may be called from any Python thread, concurrently; the
calls run one at a time. Kokkos 3.x's OpenMP space dispatches parallel regions only
from its master thread (the one that initialized it), so the module that starts the
session records that thread's instance, and a call from another thread borrows it for
its duration (``kpc::borrowed_host_space`` in ``kpc_compat.hpp``), its regions running
on that thread's own OpenMP team. Two calls borrowing at once would share the
instance's reduction buffers, so a process-wide lock serializes calls; it also makes
each module's error flag (integer division by zero) belong to the call that holds it.
This was chosen over a dispatch thread, which would cost every call, the main thread's
too, a hand-off between threads (microseconds against kpc's sub-microsecond overhead),
and over per-thread execution-space instances, which Kokkos 3.4's OpenMP space does not
have. The lock is one per process, but each compiled module is its own shared object
(loaded ``RTLD_LOCAL``), so the module that starts the session creates it and this
module hands it, as a capsule, to every module loaded after (``_kpc_attach_session``); the
generator state of ``np.random`` in kernels is shared the same way (``_kpc_attach_random``).
(When another library initialized Kokkos 3 on a thread other than the one that starts
the session, there is no master to borrow, and other threads fail as Kokkos makes them.)
An uncontended call pays one ``try_lock``; a contended one waits without the GIL. The
GIL is released while a kernel runs (kernels never touch Python objects; the ones whose
specialization allocates NumPy arrays keep it, and so do loop-free ones, which return
sooner than releasing it costs), so other Python threads run meanwhile.

**fork.** Kokkos' OpenMP worker threads do not exist in a forked child, and libgomp
there waits for them forever (a CUDA context does not survive fork either). A child
forked after the parent started the session raises ``RuntimeError`` at its first kpc
call, before any OpenMP call, telling to use the ``spawn`` or ``forkserver`` start
method (a ``pthread_atfork`` handler marks the session; this module checks the process
id on its slow paths), and its exit does not finalize Kokkos. This holds for Serial
modules too: their Kokkos was initialized with the OpenMP space beside. A child forked
before any kpc call, or a spawned one, starts its own session.
"""

from __future__ import annotations

import atexit
import os
import threading

def _new_state() -> dict:
    return {"session": None, "module": None, "owned": False, "finalized": False, "pid": None, "random": None}


# One session per Kokkos library in the process (``_kpc_kokkos_identity``, an address in it):
# one for most processes; two where a --space cuda module runs its host build against a CPU
# Kokkos and its device build against a CUDA one (kpc.runtime.placement). ``_state`` is the
# first one started, the host's.
_sessions: dict = {}
_state = _new_state()
_lock = threading.Lock()
# Why Kokkos got its threads and device (``layout()``), filled when kpc initializes it.
_layout: dict = {}

FORKED_CHILD_MESSAGE = (
    "kpc: this process was forked from one that had already run kpc kernels, and Kokkos (its OpenMP "
    "threads, a CUDA context) does not survive fork(); start worker processes with the 'spawn' or "
    "'forkserver' method instead (multiprocessing.get_context('spawn'), or "
    "concurrent.futures.ProcessPoolExecutor(mp_context=...))"
)


class KokkosFinalized(RuntimeError):
    """Kokkos was finalized in this process; it cannot be initialized again."""


class ForkedChild(RuntimeError):
    """This process was forked after its parent ran kpc kernels; kpc cannot run in it."""


def thread_count(environ=None) -> int:
    """Threads for Kokkos' host execution space, -1 for Kokkos' default (``rank_layout.host_threads``;
    a Dask worker's threads count only for ``os.environ``).

    >>> thread_count({"OMP_NUM_THREADS": "3", "NUMBA_NUM_THREADS": "8"}), thread_count({"NUMBA_NUM_THREADS": "2"})
    (3, 2)
    >>> thread_count({})
    -1
    """
    return _host_threads(environ)[0]


def _host_threads(environ=None) -> tuple:
    from .rank_layout import bound_core_count, dask_worker_threads, host_threads

    worker_threads = dask_worker_threads() if environ is None else None
    bound = bound_core_count() if environ is None else None
    return host_threads(environ, bound_cores=bound, worker_threads=worker_threads)


def _initialize(module) -> None:
    """Initialize Kokkos through ``module`` with this process's threads and, on a GPU build, device."""
    from .rank_layout import confine_rank, device_id

    threads, _layout["threads_reason"] = _host_threads()
    _layout["cores"] = confine_rank(threads)
    initialize_on = getattr(module, "_kpc_initialize_on", None)
    if initialize_on is None:  # a module of an older kpc
        module._kpc_initialize(threads)
        return
    count = module._kpc_device_count()
    device, reason = device_id(device_count=count)
    if count > 0 or "device_reason" not in _layout:  # the host build of a GPU module sees no GPU
        _layout["device_reason"] = reason
    initialize_on(threads, device)


def layout() -> dict:
    """What this process's Kokkos was given and why, once a kpc module initialized it: ``threads``
    (of the host space), ``threads_reason``, ``device`` (-1: none) and ``device_reason``; also the
    MPI ``rank``, ``size``, ``local_rank``, ``local_size`` and ``launcher`` (``kpc doctor``)."""
    from .rank_layout import rank_layout

    found = dict(rank_layout()._asdict())
    found.update(_layout)
    for state in [_state] + [state for state in _sessions.values() if state is not _state]:
        module = state["module"]
        if module is None:
            continue
        found.setdefault("threads", module._kpc_concurrency())
        device = getattr(module, "_kpc_device_id", lambda: -1)()
        if device >= 0:
            found["device"] = device
    found.setdefault("device", -1)
    return found


def check_process() -> None:
    """Raise ``ForkedChild`` in a child forked after this process's session started.

    >>> check_process()  # no session in this process yet, or this is the process that started it
    """
    if _state["pid"] is not None and _state["pid"] != os.getpid():
        raise ForkedChild(FORKED_CHILD_MESSAGE)
    for state in list(_sessions.values()):
        if state["pid"] is not None and state["pid"] != os.getpid():
            raise ForkedChild(FORKED_CHILD_MESSAGE)


def _state_of(module) -> dict:
    """The session state of the Kokkos library ``module`` uses (modules of an older kpc, which
    do not say, share the first)."""
    identity = getattr(module, "_kpc_kokkos_identity", None)
    if identity is None:
        return _state
    state = _sessions.get(identity)
    if state is None:
        first = not any(other is _state for other in _sessions.values())
        state = _sessions[identity] = _state if first else _new_state()
    return state


def ensure_initialized(module) -> None:
    """Attach ``module`` (a compiled kpc module) to the session of its Kokkos library, starting
    it (and initializing that Kokkos) if needed."""
    check_process()  # before the lock, which a parent's thread may have held when it forked
    with _lock:
        state = _state_of(module)
        if state["session"] is None:
            if state["finalized"]:
                raise KokkosFinalized("Kokkos was finalized in this process; kpc modules cannot run after that")
            if not module._kpc_is_initialized():
                _initialize(module)
                if not any(other["owned"] for other in [_state, *_sessions.values()]):
                    atexit.register(finalize)
                state["owned"] = True
            # On this thread, right after initialization: it is the one Kokkos made its master.
            state["session"] = module._kpc_start_session()
            state["module"] = module
            state["pid"] = os.getpid()
        else:
            module._kpc_attach_session(state["session"])
        # Modules whose kernels call np.random share one generator state (kpc_random.hpp):
        # the first creates it, the others attach to it.
        attach_random = getattr(module, "_kpc_attach_random", None)
        if attach_random is not None:
            state["random"] = attach_random(state["random"])


def finalize() -> None:
    """Finalize each Kokkos kpc initialized (registered with ``atexit``); never in a forked child,
    the device's before the host's."""
    states = [state for state in _sessions.values() if state is not _state] + [_state]
    for state in states:
        module = state["module"]
        if module is None or not state["owned"] or state["finalized"] or state["pid"] != os.getpid():
            continue
        module._kpc_finalize()
        state["finalized"] = True


def concurrency() -> int | None:
    """Threads of the host execution space, once a kpc module initialized Kokkos."""
    module = _state["module"]
    return None if module is None else module._kpc_concurrency()


def guard_sites() -> list:
    """What the cost guard measured where its model was unsure (``kpc::guard_site``): one
    ``(region label, size class, serial runs, parallel runs, best serial ns, best parallel
    ns)`` per size class a region timed (class ``c`` holds work from ``2**(c/2)`` up); []
    before a module initialized Kokkos. Placement sites (``kpc_placement.hpp``) are listed
    too, labelled ``place:<function>``, host runs as serial and device runs as parallel."""
    sites = []
    for state in [_state] + [state for state in _sessions.values() if state is not _state]:
        if state["module"] is not None:
            sites += list(state["module"]._kpc_guard_sites())
    return sites


def serial_scale() -> float | None:
    """The cost guard's scale measured in this process (how much more work than the compiler's
    threshold a region needs before it runs in parallel; kpc::serial_scale), None before a
    module initialized Kokkos, 0.0 before a parallel region needed it."""
    module = _state["module"]
    return None if module is None else module._kpc_serial_scale()
