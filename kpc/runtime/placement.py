"""Where the calls of a ``--space cuda`` module run: its host build, its device build, or either per call.

A module built for a CUDA-enabled Kokkos holds each specialization twice (the pipeline's
``compile_tier``): the **host build**, the OpenMP translation unit compiled by the host compiler
against a CPU Kokkos (``kpc.runtime.kokkos.find_host_kokkos``), about a second to compile with
the toolchain prepared; and the **device build**, compiled by nvcc against the CUDA Kokkos (20 to
50 s). The first call of a signature compiles the host build and returns from it, while the device
build compiles in a background thread and, once loaded, takes its place in the learning (set
``KPC_DEVICE_BUILD=wait``, or ``KPC_STRICT=1``, to compile it before the first call returns).

A call then runs where it was measured faster (``kpc_placement.hpp``: per size class, the host
and the device alternate three times each, the faster one stays, rechecked after 64 * 2^k
calls), copies included: NumPy arguments go to the device and back inside the device build's
entry; device arrays (``__cuda_array_interface__``: CuPy, ...) come to the host and go back
through ``DeviceArraysOnHost``. Before it is learned, a class runs NumPy arguments on the host and
device arrays on the device. Functions the passes keep on the host (``choose-placement``: no
parallel loop, a host-only routine) have no device build. ``KPC_PLACEMENT=host`` or ``device``
forces one side (for measurements); ``auto`` (the default) learns.

A process without a GPU, or without a CPU Kokkos for the host build, runs what it has: the host
build alone, or the device build alone (each call on the device, as before placement existed).
"""

from __future__ import annotations

import os
import threading

MODES = {"auto": -1, "host": 0, "device": 1}


class KpcPlacementWarning(UserWarning):
    """A ``--space cuda`` function runs on its host build only: its device build failed."""


class TierUnavailable(Exception):
    """One build of a ``--space cuda`` specialization cannot exist here (no CPU Kokkos for the
    host build; a function the passes keep on the host, for the device build): the message says
    why. The other build runs every call."""


def forced(environ=None) -> int:
    """``KPC_PLACEMENT``: -1 (``auto``, learn per call), 0 (``host``) or 1 (``device``).

    >>> forced({}), forced({"KPC_PLACEMENT": "host"}), forced({"KPC_PLACEMENT": "device"})
    (-1, 0, 1)
    """
    environ = os.environ if environ is None else environ
    value = environ.get("KPC_PLACEMENT", "auto").strip().lower() or "auto"
    if value not in MODES:
        raise ValueError(f"KPC_PLACEMENT={value!r}: expected one of {', '.join(MODES)}")
    return MODES[value]


def waits_for_device(strict: bool, environ=None) -> bool:
    """Whether a first call compiles the device build before it returns (``KPC_DEVICE_BUILD=wait``,
    or strict mode, where a device build that fails must fail the call, not run on the host)."""
    environ = os.environ if environ is None else environ
    return strict or environ.get("KPC_DEVICE_BUILD", "").strip().lower() == "wait"


class DeviceArraysOnHost:
    """The host build called with device arrays: each array argument copied to the host, the
    arrays the function writes (``written``: argument positions) copied back after the call,
    and arrays it returns handed back as device arrays."""

    def __init__(self, host, written):
        self.host = host
        self.written = tuple(written)

    def __call__(self, *args):
        import cupy

        from .device_arrays import is_cuda_array

        # order "A": a Fortran-ordered device array stays Fortran-ordered on the host, as the host
        # build's specialization for it expects (CuPy's default copies into C order)
        on_host = [cupy.asnumpy(value, order="A") if is_cuda_array(value) else value for value in args]
        result = self.host(*on_host)
        for position in self.written:
            if is_cuda_array(args[position]):
                cupy.asarray(args[position]).set(on_host[position])
        return _to_device(result, cupy)


def _device_synchronize():
    """What waits for every kernel on the device (CuPy's ``deviceSynchronize``), or None without
    CuPy (then device arrays cannot reach the host build either)."""
    try:
        import cupy
    except ImportError:
        return None
    return cupy.cuda.runtime.deviceSynchronize


def _to_device(value, cupy):
    import numpy as np

    if isinstance(value, np.ndarray):
        return cupy.asarray(value)
    if isinstance(value, tuple):
        return tuple(_to_device(item, cupy) for item in value)
    return value


class Tiers:
    """The builds of one specialization (function and argument types) of a ``--space cuda`` module,
    and the placed functions the dispatch tables hold for it (one per kind of arrays).

    ``host``: the host build's function (None: none); ``device_build``: a callable that compiles
    and loads the device build and returns its function (raises ``TierUnavailable`` or a build
    error), run now or in a background thread; ``written``: positions of the arrays the function
    writes; ``label``: ``function(types)`` for the guard report; ``strict``: a device build that
    fails while waited for raises instead of leaving the host build alone.
    """

    def __init__(self, label: str, host, device_build, written, wait: bool, on_failure, strict: bool = False):
        self.label = label
        self.strict = strict  # a device build that fails raises (KPC_STRICT): no silent host-only runs
        self.host = host
        self.written = tuple(written)
        self.device = None
        self.device_error = None
        self.on_failure = on_failure  # called with the error when the device build fails
        self._placed: dict = {}
        self._lock = threading.Lock()
        self._thread = None
        if device_build is None:
            return
        if wait or host is None:
            self._finish(device_build, raising=True)
        else:
            self._thread = threading.Thread(target=self._finish, args=(device_build, False),
                                            name=f"kpc device build {label}", daemon=True)
            self._thread.start()

    def _finish(self, device_build, raising: bool) -> None:
        try:
            device = device_build()
        except TierUnavailable as error:
            self.device_error = error
            return
        except Exception as error:  # the device build failed: the host build runs every call
            self.device_error = error
            if raising and (self.host is None or self.strict):
                raise
            self.on_failure(error)
            return
        with self._lock:
            self.device = device
            for placed in self._placed.values():
                placed.set_device(device)

    def wait(self, timeout=None) -> bool:
        """Wait for the background device build; whether it is done."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def function(self, device_arrays: bool, factory):
        """The callable a dispatch table holds for calls with (or without) device arrays:
        ``factory`` is a compiled module's ``_kpc_placed``."""
        with self._lock:
            placed = self._placed.get(device_arrays)
            if placed is None:
                host = self.host
                if host is not None and device_arrays:
                    host = DeviceArraysOnHost(host, self.written)
                placed = factory(host, self.device, f"place:{self.label}", not device_arrays, forced())
                if device_arrays:  # its device calls return before their kernels end: time them whole
                    placed.set_sync(_device_synchronize())
                self._placed[device_arrays] = placed
            return placed

