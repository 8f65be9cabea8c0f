"""Placement per call (kpc_placement.hpp, kpc.runtime.placement) with real compiled modules on the host.

A GPU is not needed to check the learner: a placed function holds two callables and learns which
is faster per size class; here the "device" side is a second real host build (Serial, or a slower
variant of the kernel), so what is tested is the mechanism the GPU build uses. The GPU's own
paths (device builds, CuPy arguments) are tested by tests/gpu/test_gpu_placement.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from kpc.runtime import placement

REPO = Path(__file__).resolve().parent.parent.parent

KERNELS = '''
from numba import njit, prange


@njit(parallel=True)
def axpy(y, x, a):
    for i in prange(y.shape[0]):
        y[i] += a * x[i]


@njit
def slow_axpy(y, x, a):
    for r in range(50):
        for i in range(y.shape[0]):
            y[i] += 0.0 * x[i]
    for i in range(y.shape[0]):
        y[i] += a * x[i]
'''


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    from kpc.api import build
    from kpc.check.runner import import_path

    folder = tmp_path_factory.mktemp("placement_cpu")
    (folder / "placement_cpu.py").write_text(KERNELS)
    signature = "float64[::1], float64[::1], float64"
    result = build(folder / "placement_cpu.py", folder / "out",
                   signatures=[f"axpy({signature})", f"slow_axpy({signature})"])
    return import_path(result.module_path)


def entries(module):
    """The compiled entries of axpy and slow_axpy, and a compiled module's _kpc_placed."""
    from kpc.runtime import loader

    y, x = np.zeros(4), np.ones(4)
    module.axpy(y, x, 1.0)
    module.slow_axpy(y, x, 1.0)
    fast = next(iter(module._kpc_axpy.table.values()))
    slow = next(iter(module._kpc_slow_axpy.table.values()))
    return fast, slow, loader.loaded_modules()[0]._kpc_placed


@pytest.mark.compile
def test_the_faster_side_is_learned_per_size_class_and_reported(module):
    fast, slow, factory = entries(module)
    placed = factory(slow, fast, "place:test", True, -1)  # "host" is the slow one here
    for n in (1000, 100_000):
        y, x = np.zeros(n), np.arange(n, dtype=np.float64)
        for _ in range(10):
            placed(y, x, 2.0)
        np.testing.assert_array_equal(y, 20.0 * x)  # every call computed, on either side
        assert placed.decision(2 * y.nbytes) == "device"
    assert placed.decision(1) == "learning"  # a size class never called
    rows = placed.measurements()
    assert len(rows) == 2 and all(host >= 3 and device >= 3 and device_ns < host_ns
                                  for _, host, device, host_ns, device_ns in rows)
    from kpc.runtime import kokkos_session

    assert any(site[0] == "place:test" for site in kokkos_session.guard_sites())


@pytest.mark.compile
def test_a_side_slowed_while_learning_is_rechecked(module):
    """A side whose learning calls something else slowed (nvcc builds filling the host's cores)
    loses by far more than kRecheckWithin; it is still rechecked, first after about 16 times as
    many calls as it seemed slower (here 20 ms against 1 ms: after 512), and wins back once its
    time is its own."""
    import time

    fast, slow, factory = entries(module)
    calls = [0]

    def host(*args):
        calls[0] += 1
        if calls[0] <= 3:
            time.sleep(0.02)  # the three learning calls of the host side
        return fast(*args)

    def device(*args):
        time.sleep(0.001)
        return slow(*args)
    placed = factory(host, device, "place:slowed", True, -1)
    y, x = np.zeros(1000), np.ones(1000)
    for _ in range(6 + 500):
        placed(y, x, 1.0)
    assert placed.decision(2 * y.nbytes) == "device" and calls[0] == 3
    for _ in range(20):
        placed(y, x, 1.0)
    assert placed.decision(2 * y.nbytes) == "host"
    np.testing.assert_array_equal(y, 526.0)


@pytest.mark.compile
def test_forced_sides_missing_sides_and_failed_calls(module):
    fast, slow, factory = entries(module)
    y, x = np.zeros(100), np.ones(100)
    for forced, side in ((0, "host"), (1, "device")):
        placed = factory(fast, slow, "place:forced", True, forced)
        placed(y, x, 1.0)
        assert placed.decision(1600) == side and placed.measurements() == []
    host_only = factory(fast, None, "place:host-only", True, -1)
    host_only(y, x, 1.0)
    assert host_only.decision(1600) == "host" and host_only.device is None
    host_only.set_device(slow)  # the device build arrived: the classes learn
    for _ in range(8):
        host_only(y, x, 1.0)
    assert host_only.decision(1600) == "host" and host_only.device is slow

    def broken(*args):
        raise RuntimeError("device failure")
    failing = factory(fast, broken, "place:failing", False, -1)
    with pytest.raises(RuntimeError, match="device failure"):
        failing(y, x, 1.0)  # device first (prefer_host False): it raises, nothing is recorded
    assert failing.measurements() == []
    with pytest.raises(TypeError, match="_kpc_placed"):
        factory(fast, slow)


@pytest.mark.compile
def test_tiers_without_a_device_build_and_with_a_failing_one(module):
    fast, slow, factory = entries(module)

    def unavailable():
        raise placement.TierUnavailable("host only: no parallel loop to run on the device")

    tiers = placement.Tiers("axpy(float64[::1])", fast, unavailable, [0], wait=True, on_failure=None)
    assert tiers.device is None and "no parallel loop" in str(tiers.device_error)
    assert tiers.function(False, factory).decision(100) == "host"

    failures = []

    def broken():
        raise RuntimeError("nvcc: error")

    tiers = placement.Tiers("axpy(float64[::1])", fast, broken, [0], wait=False, on_failure=failures.append)
    assert tiers.wait(60) and tiers.device is None and [str(e) for e in failures] == ["nvcc: error"]
    tiers = placement.Tiers("axpy(float64[::1])", fast, lambda: slow, [0], wait=False, on_failure=failures.append)
    placed = tiers.function(False, factory)
    assert tiers.wait(60) and placed.device is slow and tiers.function(False, factory) is placed


def test_placement_environment():
    assert placement.forced({"KPC_PLACEMENT": "Device"}) == 1
    with pytest.raises(ValueError, match="KPC_PLACEMENT"):
        placement.forced({"KPC_PLACEMENT": "gpu"})
    assert placement.waits_for_device(False, {"KPC_DEVICE_BUILD": "wait"})
    assert placement.waits_for_device(True, {}) and not placement.waits_for_device(False, {})


def test_sessions_are_kept_per_kokkos_library():
    """Two Kokkos libraries in one process (a GPU module's host and device builds): each module
    attaches to the session of its own library, and finalize() finalizes each kpc started."""
    script = textwrap.dedent("""
        import json
        from kpc.runtime import kokkos_session as s

        class Module:
            def __init__(self, identity, initialized=False):
                self._kpc_kokkos_identity = identity
                self.calls = []
                self.initialized = initialized
            def _kpc_is_initialized(self):
                return self.initialized
            def _kpc_initialize(self, threads):
                self.initialized = True; self.calls.append("initialize")
            def _kpc_start_session(self):
                self.calls.append("start"); return f"session-{self._kpc_kokkos_identity}"
            def _kpc_attach_session(self, session):
                self.calls.append(f"attach:{session}")
            def _kpc_finalize(self):
                self.calls.append("finalize")

        host, device, host2 = Module(1), Module(2), Module(1)
        for m in (host, device, host2):
            s.ensure_initialized(m)
        s.finalize()
        print(json.dumps([host.calls, device.calls, host2.calls, s._state["module"] is host]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=60)
    assert done.returncode == 0, done.stderr
    host, device, host2, first = json.loads(done.stdout)
    assert host == ["initialize", "start", "finalize"] and device == ["initialize", "start", "finalize"]
    assert host2 == ["attach:session-1"] and first


def test_device_build_child_reports_what_it_wrote():
    """The detached device build's last stderr line is its record (kpc.runtime.device_build)."""
    from kpc.runtime import device_build

    script = "import sys, json; print('nvcc noise', file=sys.stderr); print(json.dumps({'unavailable': 'x'}), " \
             "file=sys.stderr)"
    process = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE)
    assert device_build.finish(process, None) == {"unavailable": "x"}
    process = subprocess.Popen([sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"],
                               stderr=subprocess.PIPE)
    assert device_build.finish(process, None) == {"failed": "boom"}


def test_gpu_drop_in_names_both_builds(tmp_path):
    """The drop-in module of a --space cuda build lists the host and the device build of each
    ahead-of-time specialization (None where one does not exist), as valid Python."""
    from kpc.backend.kokkos.dropin import emit_dropin

    f8 = (("array", "float64", 1, "C"),)
    text = emit_dropin(source_path=str(tmp_path / "m.py"), source_text="", name="m", docstring=None, space="cuda",
                       options={}, cache_root=str(tmp_path), functions=[], rejected={},
                       prebuilt=[("f", f8, "a" * 40, "f__s0", "b" * 40, "f__s0"), ("g", f8, "c" * 40, "g__s0", None, None)])
    compile(text, "m.py", "exec")
    assert f'("f", {f8!r}, "{"a" * 40}", "f__s0", "{"b" * 40}", "f__s0"),' in text
    assert f'("g", {f8!r}, "{"c" * 40}", "g__s0", None, None),' in text
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from kpc.runtime.dispatch import ModuleRuntime

        runtime = ModuleRuntime(str(tmp_path / "m.py"), "cuda", {}, [("f", f8, "a" * 40, "f__s0", "b" * 40, "f__s0"),
                                                                     ("g", f8, "c" * 40, "g__s0", None, None)], None)
    assert runtime.prebuilt[("f", f8)] == ("a" * 40, "f__s0") and runtime.prebuilt_device[("f", f8)] == ("b" * 40, "f__s0")
    assert runtime.prebuilt_device[("g", f8)] == (None, None)


@pytest.mark.compile
def test_strict_mode_raises_a_device_build_failure(module):
    fast, _, _ = entries(module)

    def broken():
        raise RuntimeError("nvcc: error")

    with pytest.raises(RuntimeError, match="nvcc: error"):
        placement.Tiers("axpy(float64[::1])", fast, broken, [0], wait=True, on_failure=None, strict=True)
