"""``--space cuda`` with its host build: both builds of a specialization, the per-call choice
learned at the call site, device arrays taken by the host build, a first call that returns
from the host build while the device build compiles, and the constructs that run on the
device (np.random, a double buffer of parameters) or are placed on the host (np.linalg)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

KERNELS = '''
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def triad(a, b, c, s):
    for i in prange(a.shape[0]):
        a[i] = b[i] + s * c[i]


@njit(parallel=True)
def doubled(a):
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        out[i] = 2.0 * a[i]
    return out


@njit(parallel=True)
def heat_swap(u, v, c, steps):
    n = u.shape[0]
    for _ in range(steps):
        for i in prange(1, n - 1):
            v[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u, v = v, u
    return u


@njit(parallel=True)
def draws(n, seed):
    np.random.seed(seed)
    out = np.empty(n)
    normal = np.empty(n)
    for i in prange(n):
        out[i] = np.random.random()
        normal[i] = np.random.normal(1.0, 2.0)
    return out, normal


@njit(parallel=True)
def solve_each(A, b):
    x = np.linalg.solve(A, b)
    r = np.empty_like(x)
    for i in prange(x.shape[0]):
        r[i] = 2.0 * x[i]
    return r


@njit
def weighted_bins(x, w, edges):
    idx = np.searchsorted(edges, x, side="right") - 1
    out = np.zeros(edges.shape[0] - 1)
    for k in range(x.shape[0]):
        b = idx[k]
        if 0 <= b < out.shape[0]:
            out[b] += w[k]
    return out, np.median(w)
'''

F64 = "float64[::1]"
SIGNATURES = {
    "triad": [f"triad({F64}, {F64}, {F64}, float64)"],
    "doubled": [f"doubled({F64})"],
    "heat_swap": [f"heat_swap({F64}, {F64}, float64, int64)"],
    "draws": ["draws(int64, int64)"],
    "solve_each": ["solve_each(float64[:, ::1], float64[::1])"],
    "weighted_bins": [f"weighted_bins({F64}, {F64}, {F64})"],
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from kpc.api import build

    folder = tmp_path_factory.mktemp("placement")
    source = folder / "placement_kernels.py"
    source.write_text(KERNELS)
    result = build(source, folder / "out", space="cuda", signatures=SIGNATURES)
    assert not result.rejected, result.report()
    return result


def run(built, body: str, **environ) -> dict:
    """Run ``body`` in a fresh interpreter that imports the drop-in module as ``m`` (environment
    ``environ`` added); the JSON it prints last."""
    script = textwrap.dedent(f"""
        import json, sys, time
        import numpy as np
        sys.path.insert(0, {str(Path(built.module_path).parent)!r})
        import placement_kernels as m
        def placed(function):
            return next(iter(getattr(m, "_kpc_" + function).table.values()))
    """) + textwrap.dedent(body)
    env = dict(os.environ, PYTHONPATH=str(REPO), **environ)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_both_builds_learn_where_each_size_runs(built):
    for s in built.specializations:
        if s.function == "solve_each":
            assert s.key and s.device_key is None and s.placement.startswith("host only")
        else:
            assert s.key and s.device_key, s
    out = run(built, """
        sizes, decisions = (10**3, 10**7), {}
        for n in sizes:
            a, b, c = np.zeros(n), np.arange(n, dtype=np.float64), np.ones(n)
            for _ in range(8):
                m.triad(a, b, c, 3.0)
                assert np.array_equal(a, b + 3.0)
            decisions[n] = placed("triad").decision(3 * a.nbytes)
        p = placed("triad")
        print(json.dumps({"device": p.device is not None, "decisions": decisions, "runs": p.measurements()}))
    """, KPC_DEVICE_BUILD="wait")
    assert out["device"]
    assert set(out["decisions"].values()) <= {"host", "device"}
    assert all(host >= 3 and device >= 3 for _, host, device, _, _ in out["runs"])


def test_forced_device_numpy_and_cupy_arguments_and_results(built):
    out = run(built, """
        import cupy
        x = np.linspace(0.0, 1.0, 100_001)
        on_host = m.doubled(x)
        on_device = m.doubled(cupy.asarray(x))
        a, b = cupy.zeros(1000), cupy.arange(1000, dtype=cupy.float64)
        m.triad(a, b, b, 2.0)
        print(json.dumps({"numpy": type(on_host).__name__, "cupy": type(on_device).__name__,
                          "equal": bool(np.array_equal(on_host, cupy.asnumpy(on_device)) and
                                        np.array_equal(on_host, 2 * x)),
                          "triad": bool(cupy.array_equal(a, 3 * b)),
                          "decision": placed("doubled").decision(x.nbytes)}))
    """, KPC_PLACEMENT="device", KPC_DEVICE_BUILD="wait")
    assert out == {"numpy": "ndarray", "cupy": "ndarray", "equal": True, "triad": True, "decision": "device"}


def test_device_arrays_on_the_host_build_are_copied_back(built):
    out = run(built, """
        import cupy
        a, b = cupy.zeros(5000), cupy.arange(5000, dtype=cupy.float64)
        m.triad(a, b, b, 2.0)
        result = m.doubled(b)
        print(json.dumps({"triad": bool(cupy.array_equal(a, 3 * b)), "kind": type(result).__module__.split(".")[0],
                          "doubled": bool(cupy.array_equal(result, 2 * b)),
                          "decision": placed("triad").decision(3 * a.nbytes)}))
    """, KPC_PLACEMENT="host", KPC_DEVICE_BUILD="wait")
    assert out == {"triad": True, "kind": "cupy", "doubled": True, "decision": "host"}


def test_double_buffer_of_parameters_on_the_device(built):
    from numba import njit

    namespace: dict = {"np": np, "njit": njit}
    exec(compile(KERNELS.replace("parallel=True", ""), "placement_kernels.py", "exec"), namespace)
    u, v = np.random.default_rng(1).random(4097), np.zeros(4097)
    expected = namespace["heat_swap"](u.copy(), v.copy(), 0.2, 7)
    out = run(built, """
        import cupy
        rng = np.random.default_rng(1)
        u, v = rng.random(4097), np.zeros(4097)
        numpy_result = m.heat_swap(u, v, 0.2, 7)
        du, dv = cupy.asarray(np.random.default_rng(1).random(4097)), cupy.zeros(4097)
        cupy_result = m.heat_swap(du, dv, 0.2, 7)
        print(json.dumps({"numpy": numpy_result.tolist(), "cupy": cupy.asnumpy(cupy_result).tolist()}))
    """, KPC_PLACEMENT="device", KPC_DEVICE_BUILD="wait")
    np.testing.assert_allclose(out["numpy"], expected, rtol=1e-12)
    np.testing.assert_allclose(out["cupy"], expected, rtol=1e-12)


def test_host_routines_over_arguments_and_temporaries_on_the_device(built):
    # np.searchsorted runs on the host over the arguments (they were staged in device-only memory:
    # a segfault), np.median sorts a copy a region made (the host must wait for that region)
    from numba import njit

    namespace: dict = {"np": np, "njit": njit}
    exec(compile(KERNELS, "placement_kernels.py", "exec"), namespace)
    rng = np.random.default_rng(5)
    cases = [(rng.uniform(-1, 1, n), rng.uniform(0, 1, n), np.sort(rng.uniform(-0.9, 0.9, e)))
             for n, e in ((1, 2), (60, 6), (300_000, 65))]
    out = run(built, """
        rng = np.random.default_rng(5)
        results = []
        for n, e in ((1, 2), (60, 6), (300_000, 65)):
            x, w, edges = rng.uniform(-1, 1, n), rng.uniform(0, 1, n), np.sort(rng.uniform(-0.9, 0.9, e))
            for _ in range(3):
                counts, median = m.weighted_bins(x, w, edges)
            results.append([counts.tolist(), median])
        print(json.dumps({"results": results, "decision": placed("weighted_bins").decision(0)}))
    """, KPC_PLACEMENT="device", KPC_DEVICE_BUILD="wait")
    assert out["decision"] == "device"
    for (x, w, edges), (counts, median) in zip(cases, out["results"]):
        expected_counts, expected_median = namespace["weighted_bins"].py_func(x, w, edges)
        np.testing.assert_allclose(counts, expected_counts, rtol=1e-12, atol=1e-12)
        assert median == expected_median


def test_random_draws_on_the_device_have_numpys_distributions(built):
    out = run(built, """
        uniform, normal = m.draws(2_000_000, 7)
        print(json.dumps({"mean": float(uniform.mean()), "var": float(uniform.var()), "min": float(uniform.min()),
                          "max": float(uniform.max()), "nmean": float(normal.mean()), "nstd": float(normal.std()),
                          "decision": placed("draws").decision(0)}))
    """, KPC_PLACEMENT="device", KPC_DEVICE_BUILD="wait")
    assert out["decision"] == "device"
    assert abs(out["mean"] - 0.5) < 2e-3 and abs(out["var"] - 1 / 12) < 1e-3
    assert 0.0 <= out["min"] and out["max"] < 1.0
    assert abs(out["nmean"] - 1.0) < 1e-2 and abs(out["nstd"] - 2.0) < 1e-2


def test_linalg_kernel_is_placed_on_the_host(built):
    out = run(built, """
        rng = np.random.default_rng(3)
        A = rng.random((40, 40)) + 40 * np.eye(40)
        b = rng.random(40)
        r = m.solve_each(A, b)
        print(json.dumps({"ok": bool(np.allclose(r, 2 * np.linalg.solve(A, b))),
                          "device": placed("solve_each").device is not None}))
    """)
    assert out == {"ok": True, "device": False}


def test_first_call_returns_from_the_host_build_then_the_device_takes_over(tmp_path):
    """No signature: the first call compiles the host build only (its time is printed for the
    benchmarks' record, not asserted); the device build arrives from its own process."""
    from kpc.api import build

    source = tmp_path / "lazy_kernels.py"
    source.write_text(KERNELS.replace("def triad(", "def triad_lazy(").replace("def doubled", "def doubled_lazy"))
    result = build(source, tmp_path / "out", space="cuda")
    script = textwrap.dedent(f"""
        import json, sys, time
        import numpy as np
        started = time.perf_counter()
        sys.path.insert(0, {str(Path(result.module_path).parent)!r})
        import lazy_kernels as m
        a = np.zeros(1000); b = np.ones(1000)
        m.triad_lazy(a, b, b, 2.0)
        first = time.perf_counter() - started
        placed = next(iter(m._kpc_triad_lazy.table.values()))
        device_at_first = placed.device is not None
        tiers = next(iter(m._kpc.tiers.values()))
        tiers.wait(600)
        m.triad_lazy(a, b, b, 3.0)
        print(json.dumps({{"first_s": first, "device_at_first": device_at_first, "device": placed.device is not None,
                          "ok": bool(np.array_equal(a, 4 * b)), "error": repr(tiers.device_error)}}))
    """)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("KPC_DEVICE_BUILD", None)
    env.pop("KPC_STRICT", None)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"first call of a lazy --space cuda function: {out['first_s']:.2f} s")
    assert out["ok"] and not out["device_at_first"] and out["device"], out
