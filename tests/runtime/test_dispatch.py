"""Argument typing and dispatch of drop-in modules: Numba's typing of arguments, matching
against eager signatures with TypeErrors that name the parameter, and the cached fast path."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from kpc.runtime.argument_types import typeof
from kpc.runtime.dispatch import DispatchError, ModuleRuntime, _accepts


def test_eager_signatures_accept_what_numba_converts():
    f64_any = ("array", "float64", 2, "A")
    assert _accepts(f64_any, ("array", "float64", 2, "C"))
    assert not _accepts(("array", "float64", 2, "C"), ("array", "float64", 2, "A"))
    assert not _accepts(f64_any, ("array", "float32", 2, "C"))
    assert _accepts(("scalar", "float64"), ("scalar", "int64"))
    assert not _accepts(("scalar", "int64"), ("scalar", "float64"))


class FakeModule:
    def __init__(self):
        self.calls = 0

    def f__s0(self, a, k):
        self.calls += 1
        return float(a.sum()) * k


@pytest.fixture
def runtime(monkeypatch):
    module = FakeModule()
    runtime = ModuleRuntime("m.py", "openmp", {}, [("f", (("array", "float64", 1, "C"), ("scalar", "float64")),
                                                      "k" * 40, "f__s0")], None, name="m")
    monkeypatch.setattr(runtime, "_load", lambda key, name, types: module)
    return runtime, module


def test_dispatch_calls_the_matching_specialization_and_caches_it(runtime):
    runtime, module = runtime
    f = runtime.dispatcher("f", ("a", "k"), eager=True)
    assert f(np.ones(3), 2.0) == 6.0
    assert f(np.ones(4), 3) == 12.0
    assert len(f.table) == 2
    assert runtime.specializations == [("f", (("array", "float64", 1, "C"), ("scalar", "float64")))]


@pytest.mark.parametrize("args,param,what", [
    ((np.ones(3, dtype=np.float32), 1.0), "a", "float32"),
    ((np.ones((3, 3)), 1.0), "a", "float64[:, ::1]"),
    ((np.ones(6)[::2], 1.0), "a", "float64[:]"),
    ((np.ones(3), np.ones(3)), "k", "float64[::1]"),
])
def test_eager_mismatch_is_a_type_error_naming_the_parameter(runtime, args, param, what):
    runtime, _ = runtime
    f = runtime.dispatcher("f", ("a", "k"), eager=True)
    with pytest.raises(DispatchError, match=re.escape(f"argument '{param}' has type {what}")) as raised:
        f(*args)
    assert isinstance(raised.value, TypeError)


@pytest.mark.parametrize("value,message", [
    ([1.0, 2.0], "must be a NumPy array or a number, got list"),
    (np.ones(3, dtype=np.float16), "has dtype float16"),
    (np.array(["a"]), "has dtype str"),
])
@pytest.mark.parametrize("eager", [True, False])
def test_unsupported_arguments_are_type_errors_naming_the_parameter(runtime, monkeypatch, value, message, eager):
    """With an eager signature (as in Numba), or in strict mode; otherwise the Numba function
    runs (tests/runtime/test_call_time_typing.py)."""
    runtime, _ = runtime
    if not eager:
        monkeypatch.setenv("KPC_STRICT", "1")
    f = runtime.dispatcher("f", ("a", "k"), eager=eager)
    with pytest.raises(TypeError, match=f"f\\(\\): argument 'a' {message}"):
        f(value, 1.0)


def test_wrong_argument_count_is_a_type_error(runtime):
    runtime, _ = runtime
    f = runtime.dispatcher("f", ("a", "k"), eager=True)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        f(np.ones(3))


def test_the_key_tells_apart_what_typeof_tells_apart():
    from kpc.runtime.dispatch import python_key

    values = [np.ones(4), np.ones(4, dtype=np.float32), np.ones((2, 2)), np.ones((2, 2), order="F"),
              np.ones(8)[::2], np.ones((3, 4))[:, 1:], 1, 1.0, True, np.float32(1), np.int32(1),
              1j, np.complex64(1j), np.ones(4, dtype=np.complex128)]
    readonly = np.ones(4)
    readonly.flags.writeable = False
    seen = {}
    for a in values + [readonly]:
        for b in values:
            key = python_key(a, b)
            types = (typeof(a), typeof(b), a.flags.writeable if isinstance(a, np.ndarray) else None)
            assert seen.setdefault(key, types) == types  # one key never stands for two typings
    assert python_key(np.ones(3)) == python_key(np.ones(5)) == python_key(np.zeros(7)[2:])  # not the shape


def test_a_call_whose_key_changes_is_dispatched_again(runtime):
    runtime, module = runtime
    f = runtime.dispatcher("f", ("a", "k"), eager=True)
    assert f(np.ones(3), 2.0) == 6.0
    assert f(np.ones(3), 2) == 6.0                  # int -> the float64 signature, another key
    assert len(f.table) == 2 and module.calls == 2
    with pytest.raises(DispatchError, match="argument 'a' has type float64\\[:\\]"):
        f(np.ones(6)[::2], 2.0)                       # strided: not the C-contiguous signature
    with pytest.raises(TypeError):
        f(np.ones(3), np.ones(3))                     # an array where a scalar was compiled
    assert len(f.table) == 2


def test_python_call_is_the_fast_path_of_a_drop_in_function(runtime):
    from kpc.runtime.dispatch import python_call

    runtime, module = runtime
    f = runtime.dispatcher("f", ("a", "k"), eager=True)
    assert python_call(f.table, f, np.ones(3), 2.0) == 6.0       # a miss: the dispatcher fills the table
    assert python_call(f.table, f, np.ones(3), 2.0) == 6.0       # a hit: the compiled function itself
    assert module.calls == 2 and len(f.table) == 1
    with pytest.raises(TypeError, match="must be a NumPy array or a number, got list"):
        python_call(f.table, f, [1.0], 2.0)                      # eager: no Numba for a list


KEY_VALUES = [np.ones(4), np.ones(4, dtype=np.float32), np.ones((2, 2)), np.ones((2, 2), order="F"),
              np.ones(8)[::2], np.ones((3, 4))[:, 1:], np.array(2.0), np.ones((1, 1, 1, 1, 1)), 1, 1.0, True,
              np.float32(1), np.int32(1), np.bool_(True), np.longlong(1), 1j, np.complex64(1j),
              np.ones(4, dtype=np.complex128), np.zeros(2, dtype=[("a", "f8")]), [1.0], "text", None]


@pytest.mark.compile
def test_the_compiled_key_is_the_python_key(tmp_path):
    """Once a module is loaded its C++ ``_kpc_key`` replaces ``python_key``: same keys, for
    packed and tuple keys, up to and past four arguments."""
    import importlib
    import sys

    from kpc.api import build
    from kpc.runtime.dispatch import python_key

    kernels = Path(__file__).resolve().parent / "threads_kernels.py"
    build(kernels, tmp_path, signatures=["total(float64[::1])"])  # test_threads_fork's module, from the cache
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("threads_kernels")
        assert module.total(np.ones(3)) == 3.0
        compiled_key = module._kpc.key
        assert compiled_key is not python_key
        readonly = np.ones(3)
        readonly.flags.writeable = False
        values = KEY_VALUES + [readonly]
        for a in values:
            for b in values:
                for args in [(), (a,), (a, b), (a, b, a, b), (a, b, 1.0, a, b), (b, a) * 5]:
                    assert compiled_key(*args) == python_key(*args), args
        assert isinstance(python_key(np.ones(3), 2.0, 3), int)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("threads_kernels", None)


def _total_in_fresh_interpreters(tmp_path, body: str, signatures=("total(float64[::1])",)):
    """Build ``total`` of threads_kernels.py, then run ``body`` (``k`` the module, ``s``
    kokkos_session) in a fresh interpreter without KPC_SERIAL_THRESHOLD (which the corpus tests
    set, and which replaces the guard's measurements), with 2 threads and with 1: each run's stdout."""
    import os
    import subprocess
    import sys

    from kpc.api import build

    kernels = Path(__file__).resolve().parent / "threads_kernels.py"
    build(kernels, tmp_path, signatures=list(signatures))
    script = (f"import sys, numpy as np\nsys.path.insert(0, {str(tmp_path)!r})\nimport threads_kernels as k\n"
              "from kpc.runtime import kokkos_session as s\n" + body)
    outputs = []
    for threads in ("2", "1"):
        env = {key: value for key, value in os.environ.items() if key != "KPC_SERIAL_THRESHOLD"}
        env["OMP_NUM_THREADS"] = threads
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    return outputs


@pytest.mark.compile
def test_the_guard_learns_where_its_model_is_unsure(tmp_path):
    """Near the model's threshold a region times its own calls, serial and parallel, three of
    each per size class, then keeps the faster, untimed but for two calls after 64 decided
    calls and after each doubling, which rerun both paths (kpc::guard_site);
    kokkos_session.guard_sites() reports it. Results are the same whichever path runs. One
    thread: nothing to learn."""
    body = ("for n in [2 ** e for e in range(2, 21)]:\n"
            "    for _ in range(8):\n"
            "        assert k.total(np.ones(n)) == n\n"
            "sites = s.guard_sites()\n"
            # 200 more calls of one learned class: every 64th reruns the slower path, timed
            "again = []\n"
            "if sites:\n"
            "    c = sites[0][1]\n"
            "    for _ in range(200):\n"
            "        assert k.total(np.ones(2 ** (c // 2))) == 2 ** (c // 2)\n"
            "    again = [site for site in s.guard_sites() if site[1] == c]\n"
            "print(repr((s.concurrency(), sites, again)))\n"
            # a session started by a module of an older kpc (its capsule's old name): its
            # struct has no list of guard sites, so none is listed or written, and calls run
            "import ctypes\napi = ctypes.pythonapi\n"
            "api.PyCapsule_GetPointer.restype = ctypes.c_void_p\n"
            "api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]\n"
            "api.PyCapsule_New.restype = ctypes.py_object\n"
            "api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]\n"
            "name = ctypes.create_string_buffer(b'kpc.session')\n"
            "pointer = api.PyCapsule_GetPointer(s._state['session'], b'kpc.session (guard_sites)')\n"
            "s._state['module']._kpc_attach_session(api.PyCapsule_New(pointer, name, None))\n"
            "assert k.total(np.ones(4096)) == 4096 and s.guard_sites() == []\n")
    for output in _total_in_fresh_interpreters(tmp_path, body):
        concurrency, sites, again = eval(output.strip().splitlines()[-1])
        if concurrency > 1:
            assert sites and all(label.startswith("total:") for label, *_ in sites)
            # each timed class ran both paths three times each, then no more timed calls
            assert all(serial == 3 and parallel == 3 for _, _, serial, parallel, _, _ in sites)
            assert all(0 < best_serial < 10 ** 9 and 0 < best_parallel < 10 ** 9 for *_, best_serial, best_parallel in sites)
            # 8 + 200 calls: 6 learning, 202 decided; after 64 and after 128 of them, one timed
            # call of each path
            assert [(serial, parallel) for _, _, serial, parallel, _, _ in again] == [(5, 5)]
        else:
            assert sites == [] and again == []


@pytest.mark.compile
def test_a_kernel_numba_runs_serially_learns_at_every_size(tmp_path):
    """Far above the model's threshold a prange region runs in parallel untimed; the same loop in
    a kernel without parallel=True (serial in Numba) times both paths there too and keeps the
    faster (ParallelInfo.learn_every_size)."""
    body = ("n = 2 ** 22\n"
            "for _ in range(8):\n"
            "    assert k.total(np.ones(n)) == n and k.serial_total(np.ones(n)) == n\n"
            "print(repr((s.concurrency(), s.guard_sites())))\n")
    signatures = ("total(float64[::1])", "serial_total(float64[::1])")
    for output in _total_in_fresh_interpreters(tmp_path, body, signatures):
        concurrency, sites = eval(output.strip().splitlines()[-1])
        if concurrency > 1:
            assert [label.split(":")[0] for label, *_ in sites] == ["serial_total"]
            assert all(serial == 3 and parallel == 3 for _, _, serial, parallel, _, _ in sites)
        else:
            assert sites == []


@pytest.mark.compile
def test_the_guard_measures_the_launch_cost_once_and_reports_it(tmp_path):
    """A region small enough to ask the cost guard measures the launch cost (once per process,
    shared by every module through the session); kokkos_session.serial_scale() reports it."""
    body = ("assert k.total(np.ones(3)) == 3.0\nfirst = s.serial_scale()\n"
            "assert k.total(np.ones(5)) == 5.0\nprint(s.concurrency(), first, s.serial_scale())\n")
    for output in _total_in_fresh_interpreters(tmp_path, body):
        concurrency, first, again = output.split()
        if int(concurrency) > 1:
            assert 0.25 <= float(first) <= 64.0 and again == first  # measured once, within the clamp
        else:
            assert float(first) == 0.0 == float(again)  # one thread: nothing to measure


UNKNOWN_WORK = '''
from numba import njit, prange


@njit
def collatz(x):
    steps = 0
    while x != 1:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        steps += 1
    return steps


@njit(parallel=True)
def lengths(starts, out):
    for i in prange(starts.shape[0]):
        out[i] = collatz(starts[i])
'''


@pytest.mark.compile
def test_a_region_of_unknown_work_learns_serial_or_parallel_below_learn_below(tmp_path):
    """A region whose iteration cost the cost guard cannot estimate (a call of a function with a
    while loop) gets ``learn_below``: calls of fewer iterations time both paths three times per
    size class of the trip count, then keep the faster (kpc::learn_serially); from 4096
    iterations on it runs parallel untimed. Results are the same whichever path runs."""
    import os
    import subprocess
    import sys

    from kpc.api import build

    source = tmp_path / "unknown_work.py"
    source.write_text(UNKNOWN_WORK)
    build(source, tmp_path / "out", signatures=["lengths(int64[::1], int64[::1])"])
    script = ("import sys, numpy as np\n"
              f"sys.path.insert(0, {str(tmp_path / 'out')!r})\nimport unknown_work as k\n"
              "from kpc.runtime import kokkos_session as s\n"
              "def steps(x):\n"
              "    count = 0\n"
              "    while x != 1:\n"
              "        x, count = (x // 2 if x % 2 == 0 else 3 * x + 1), count + 1\n"
              "    return count\n"
              "expected = lambda v: [steps(int(a)) for a in v]\n"
              "for n in (3, 3, 3, 3, 3, 3, 3, 3, 100, 100, 100, 100, 100, 100, 100, 5000, 5000):\n"
              "    v = np.arange(1, n + 1, dtype=np.int64); out = np.zeros(n, np.int64)\n"
              "    k.lengths(v, out)\n"
              "    assert out.tolist() == expected(v), n\n"
              "print(repr((s.concurrency(), s.guard_sites())))\n")
    env = {key: value for key, value in os.environ.items() if key != "KPC_SERIAL_THRESHOLD"}
    env["OMP_NUM_THREADS"] = "2"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    concurrency, sites = eval(done.stdout.strip().splitlines()[-1])
    assert concurrency == 2
    sites = [site for site in sites if site[0].startswith("lengths:")]
    # two size classes learned (3 and 100 iterations), three timed calls of each path in each;
    # the 5000-iteration calls are not timed
    assert sorted(site[1] for site in sites) == [3, 13]
    assert all(serial == 3 and parallel == 3 for _, _, serial, parallel, _, _ in sites)
