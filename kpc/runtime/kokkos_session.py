"""Kokkos initialization, once per process, shared by every kpc module.

``libkokkoscore`` is a shared library, so ``Kokkos::is_initialized()`` is one state
for all compiled kpc modules of a process: the first module loaded initializes
Kokkos through its ``_kpc_initialize`` export, later ones find it initialized, and
one ``atexit`` handler finalizes it when the interpreter exits. When something else
(PyKokkos, another library) initialized Kokkos first, kpc leaves finalization to it.

The thread count of the OpenMP execution space is ``OMP_NUM_THREADS``, else
``NUMBA_NUM_THREADS`` (so a script tuned for Numba keeps its setting), else
Kokkos' default (every core). Kokkos' warning about an unset ``OMP_PROC_BIND`` is
turned off: kpc initializes with warnings disabled.
"""

from __future__ import annotations

import atexit
import os

_state = {"module": None, "owned": False, "finalized": False}


class KokkosFinalized(RuntimeError):
    """Kokkos was finalized in this process; it cannot be initialized again."""


def thread_count(environ=None) -> int:
    """Threads for Kokkos' host execution space, -1 for Kokkos' default.

    >>> thread_count({"OMP_NUM_THREADS": "3", "NUMBA_NUM_THREADS": "8"}), thread_count({"NUMBA_NUM_THREADS": "2"})
    (3, 2)
    >>> thread_count({})
    -1
    """
    environ = os.environ if environ is None else environ
    for name in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS"):
        text = environ.get(name, "").split(",")[0].strip()
        if text.isdigit() and int(text) > 0:
            return int(text)
    return -1


def ensure_initialized(module) -> None:
    """Initialize Kokkos through ``module`` (a compiled kpc module) unless it already is."""
    if _state["module"] is not None:
        return
    if _state["finalized"]:
        raise KokkosFinalized("Kokkos was finalized in this process; kpc modules cannot run after that")
    if not module._kpc_is_initialized():
        module._kpc_initialize(thread_count())
        _state["owned"] = True
        atexit.register(finalize)
    _state["module"] = module


def finalize() -> None:
    """Finalize Kokkos if kpc initialized it (registered with ``atexit``)."""
    module = _state["module"]
    if module is not None and _state["owned"] and not _state["finalized"]:
        module._kpc_finalize()
        _state["finalized"] = True


def concurrency() -> int | None:
    """Threads of the host execution space, once a kpc module initialized Kokkos."""
    module = _state["module"]
    return None if module is None else module._kpc_concurrency()
