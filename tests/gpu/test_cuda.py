"""``--space cuda`` on a GPU: the corpus against Numba with NumPy and with CuPy arguments,
zero-copy CuPy arguments, copy-back of written NumPy arguments only, results as NumPy
or CuPy, reductions, atomics and host code between regions on the device."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from kpc.check.inputs import make_inputs
from kpc.check.runner import check_file, default_selection
from kpc.check.spec import corpus_files, load_cases
from kpc.runtime.argument_types import format_type, typeof

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cupy_inputs import CupyInputs  # noqa: E402

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "corpus"
HAVE_SCIPY = importlib.util.find_spec("scipy") is not None

SEED = {"sum2d.py", "sum3d.py", "lennard_jones.py", "star.py", "star2.py"}


def _signatures(path: Path, select) -> dict:
    signatures: dict = {}
    for kernel, case in load_cases(path).cases.items():
        for variant in select(case):
            inputs = make_inputs(case, variant.dtype, variant.sizes, variant.layout)
            text = f"{kernel}({', '.join(format_type(typeof(arg)) for arg in inputs.args())})"
            if text not in signatures.setdefault(kernel, []):
                signatures[kernel].append(text)
    return signatures


def _contiguous(case):
    """CuPy copies a strided NumPy view into a contiguous array: time only C and F layouts."""
    return [v for v in default_selection(case) if v.layout in ("C", "F")]


def _import(module_path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _drop_scipy(report):
    if not HAVE_SCIPY:
        report.failures = [f for f in report.failures if "scipy" not in f.message]
    return report


CASES = [pytest.param(path, id=path.name, marks=pytest.mark.xdist_group(path.stem)) for path in corpus_files(CORPUS)]


@pytest.mark.compile
@pytest.mark.parametrize("path", CASES)
def test_corpus_cuda_numpy_and_cupy_inputs(path, tmp_path):
    from kpc.api import build

    signatures = _signatures(path, default_selection)
    for kernel, extra in _signatures(path, _contiguous).items():
        signatures[kernel] = list(dict.fromkeys(signatures.get(kernel, []) + extra))
    result = build(path, tmp_path, signatures=signatures, space="cuda")
    if path.name in SEED:
        assert not result.rejected, result.report()
    module = _import(result.module_path, f"kpc_dropin_cuda_{path.stem}")
    report = _drop_scipy(check_file(path, module, target="kokkos-cuda"))
    assert report.runs and not report.failures, "NumPy inputs:\n" + report.summary() + "\n" + result.report()
    cupy_module = CupyInputs(module)
    # Kernels kpc kept as Numba cannot take CuPy arrays (Numba's CPU target refuses them).
    translated = [k for k in load_cases(path).cases if k not in result.rejected]
    report = _drop_scipy(check_file(path, cupy_module, target="kokkos-cuda-cupy", select=_contiguous,
                                    kernels=translated))
    assert not report.failures, "CuPy inputs:\n" + report.summary() + "\n" + result.report()


KERNELS = '''
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def triad(a, b, c, s):
    for i in prange(a.shape[0]):
        a[i] = b[i] + s * c[i]


@njit(parallel=True)
def total(a):
    t = 0.0
    for i in prange(a.shape[0]):
        t += a[i]
    return t


@njit(parallel=True)
def host_and_device(a):
    a[0] = 1.0
    for i in prange(1, a.shape[0]):
        a[i] = a[i] * 2.0 + a[0]
    out = np.empty(a.shape[0])
    for i in prange(a.shape[0]):
        out[i] = a[i] + 1.0
    s = 0.0
    for i in range(out.shape[0]):
        s += out[i]
    return out, s


@njit(parallel=True)
def histogram(labels, counts):
    for i in prange(labels.shape[0]):
        counts[labels[i]] += 1


@njit(parallel=True)
def heat_boundary(u, v, steps):
    for t in range(steps):
        for i in prange(1, len(u) - 1):
            v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        v[0] = v[1]
        v[len(v) - 1] = v[len(v) - 2]
        for i in prange(len(u)):
            u[i] = 0.5 * (u[i] + v[i])


@njit(parallel=True)
def heat_swap(u, v, steps):
    n = u.shape[0]
    for _ in range(steps):
        for i in prange(1, n - 1):
            v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        u, v = v, u
    return u


@njit(parallel=True)
def floor_ratios(a, b, out):
    for i in prange(a.shape[0]):
        out[i] = a[i] // b[i]


@njit(parallel=True)
def floor_ratio_sum(a, b):
    s = 0
    for i in prange(a.shape[0]):
        s += a[i] // b[i]
    return s


@njit(parallel=True)
def row_ranges(m):
    out = np.empty(m.shape[0])
    for i in prange(m.shape[0]):
        out[i] = m[i].max() - m[i].min()
    return out


@njit
def serial_only(a):
    s = 0.0
    for i in range(a.shape[0]):
        a[i] += 1.0
        s += a[i]
    return s
'''


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    from kpc.api import build

    folder = tmp_path_factory.mktemp("cuda_kernels")
    source = folder / "cuda_kernels.py"
    source.write_text(KERNELS)
    f64 = "float64[::1]"
    result = build(source, folder / "out", space="cuda", signatures={
        "triad": [f"triad({f64}, {f64}, {f64}, float64)"],
        "total": [f"total({f64})"],
        "host_and_device": [f"host_and_device({f64})"],
        "histogram": ["histogram(int64[::1], int64[::1])"],
        "serial_only": [f"serial_only({f64})"],
        "heat_boundary": [f"heat_boundary({f64}, {f64}, int64)"],
        "heat_swap": [f"heat_swap({f64}, {f64}, int64)"],
        "floor_ratios": ["floor_ratios(int64[::1], int64[::1], int64[::1])"],
        "floor_ratio_sum": ["floor_ratio_sum(int64[::1], int64[::1])"],
        "row_ranges": ["row_ranges(float64[:, ::1])"],
    })
    assert not result.rejected, result.report()
    return _import(result.module_path, "kpc_cuda_kernels")


def _reference(name):
    namespace: dict = {}
    exec(compile(KERNELS, "cuda_kernels.py", "exec"), namespace)
    return namespace[name].py_func


def test_cupy_arguments_are_used_in_place(kernels):
    import cupy

    n = 1 << 20
    a = cupy.zeros(n)
    b = cupy.arange(n, dtype=cupy.float64)
    c = cupy.ones(n)
    pointer = a.data.ptr
    assert kernels.triad(a, b, c, 3.0) is None
    assert a.data.ptr == pointer
    cupy.testing.assert_allclose(a, b + 3.0)


def test_cupy_calls_are_ordered_with_the_callers_stream(kernels):
    """A call with CuPy arrays returns before its kernel ends (kpc_cuda.hpp: stream order): work the
    caller queued before it on its stream (the legacy default one, or a non-blocking stream of its
    own) is done before the kernel reads, and work queued after it sees the kernel's writes."""
    import cupy

    n = 1 << 24
    for stream in (cupy.cuda.Stream.null, cupy.cuda.Stream(non_blocking=True)):
        with stream:
            a = cupy.zeros(n)
            b = cupy.arange(n, dtype=cupy.float64)
            c = cupy.ones(n)
            b *= 2.0  # queued before the call
            assert kernels.triad(a, b, c, 3.0) is None
            doubled = a * 2.0  # queued after it
            stream.synchronize()
        cupy.testing.assert_allclose(doubled, (cupy.arange(n, dtype=cupy.float64) * 2.0 + 3.0) * 2.0)


def test_numpy_arguments_written_are_copied_back_read_ones_untouched(kernels):
    n = 100_000
    a = np.zeros(n)
    b = np.arange(n, dtype=np.float64)
    c = np.ones(n)
    b.flags.writeable = False  # read-only inputs are fine: they are never copied back
    kernels.triad(a, b, c, 2.0)
    np.testing.assert_array_equal(a, b + 2.0)


def test_reduction_on_the_device_numpy_and_cupy(kernels):
    import cupy

    values = np.random.default_rng(0).random(1_000_003)
    assert kernels.total(values) == pytest.approx(values.sum(), rel=1e-12)
    assert kernels.total(cupy.asarray(values)) == pytest.approx(values.sum(), rel=1e-12)


def test_host_code_between_regions_numpy_and_cupy(kernels):
    import cupy

    start = np.linspace(0.0, 1.0, 4097)
    expected_a = start.copy()
    expected_out, expected_s = _reference("host_and_device")(expected_a)

    a = start.copy()
    out, s = kernels.host_and_device(a)
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(a, expected_a)
    np.testing.assert_allclose(out, expected_out)
    assert s == pytest.approx(expected_s)

    device = cupy.asarray(start)
    out, s = kernels.host_and_device(device)
    assert isinstance(out, cupy.ndarray), "results come back as CuPy when the inputs were"
    cupy.testing.assert_allclose(device, expected_a)
    cupy.testing.assert_allclose(out, expected_out)
    assert s == pytest.approx(expected_s)


def test_boundary_statements_between_regions_stay_on_the_device(kernels):
    """v[0] = v[1] between the stencil's regions runs on one device thread (one-thread-regions):
    CuPy arrays are used in place (no staging through managed memory), results as Python's."""
    import cupy

    start = np.sin(np.linspace(0.0, 3.0, 10_001))
    expected_u, expected_v = start.copy(), np.zeros_like(start)
    _reference("heat_boundary")(expected_u, expected_v, 50)
    u, v = cupy.asarray(start), cupy.zeros(start.shape[0])
    pointer = u.data.ptr
    kernels.heat_boundary(u, v, 50)
    assert u.data.ptr == pointer
    cupy.testing.assert_allclose(u, expected_u, rtol=1e-12)
    cupy.testing.assert_allclose(v, expected_v, rtol=1e-12)
    u, v = start.copy(), np.zeros_like(start)
    kernels.heat_boundary(u, v, 50)
    np.testing.assert_allclose(u, expected_u, rtol=1e-12)


def test_atomics_on_the_device(kernels):
    import cupy

    labels = np.random.default_rng(1).integers(0, 16, 200_000)
    counts = np.zeros(16, dtype=np.int64)
    kernels.histogram(labels, counts)
    np.testing.assert_array_equal(counts, np.bincount(labels, minlength=16))
    device_counts = cupy.zeros(16, dtype=cupy.int64)
    kernels.histogram(cupy.asarray(labels), device_counts)
    np.testing.assert_array_equal(device_counts.get(), np.bincount(labels, minlength=16))


def test_function_without_regions_runs_on_the_host_with_cupy_staged(kernels):
    import cupy

    start = np.arange(10, dtype=np.float64)
    a = start.copy()
    assert kernels.serial_only(a) == pytest.approx((start + 1).sum())
    np.testing.assert_array_equal(a, start + 1)
    device = cupy.asarray(start)
    assert kernels.serial_only(device) == pytest.approx((start + 1).sum())
    np.testing.assert_array_equal(device.get(), start + 1)


@pytest.mark.compile
def test_kpc_bench_on_device_arrays(tmp_path):
    """`kpc bench --space cuda --arrays cupy`: timed on CuPy arguments, bandwidth reported."""
    import json
    import subprocess

    result = subprocess.run(
        [sys.executable, "-m", "kpc.cli", "bench", str(CORPUS / "stream_triad.py"),
         "--kernel", "triad_loop", "--space", "cuda", "--arrays", "cupy", "--sizes", "n=1000000",
         "--bytes", "24 * n", "--repeats", "3", "--budget", "2", "--out", str(tmp_path)],
        capture_output=True, text=True, cwd=HERE.parent.parent)
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["arrays"] == "cupy" and data["results"][0]["kokkos_GBps_best"] > 0
    assert "kokkos GB/s (best)" in result.stdout


def test_numpy_arguments_staged_in_device_memory_and_the_returned_one_is_the_callers(kernels):
    """heat_swap touches no array from host code, so its NumPy arguments are staged in device
    memory (not managed: kpc_cuda.hpp's from_array), copied back, and the array it returns after
    ``u, v = v, u`` is the caller's own, as in Numba; calls of the same sizes reuse the buffers."""
    start = np.sin(np.linspace(0.0, 3.0, 100_001))
    for steps in (0, 1, 2, 7, 8):
        expected_u, expected_v = start.copy(), start.copy()
        expected = _reference("heat_swap")(expected_u, expected_v, steps)
        u, v = start.copy(), start.copy()
        result = kernels.heat_swap(u, v, steps)
        assert result is (u if steps % 2 == 0 else v), "the caller's array, as Numba returns it"
        np.testing.assert_allclose(result, expected, rtol=1e-12)
        np.testing.assert_allclose(u, expected_u, rtol=1e-12)
        np.testing.assert_allclose(v, expected_v, rtol=1e-12)


def test_calls_from_several_python_threads_numpy_and_cupy(kernels):
    """Users call kernels from several Python threads: each thread's calls are right, with NumPy
    arguments (staged in device memory, copied back) and with CuPy arrays (each thread's CUDA
    runtime is moved to Kokkos' device once: call_scope)."""
    import threading

    import cupy

    start = np.sin(np.linspace(0.0, 3.0, 50_001))
    expected_u, expected_v = start.copy(), start.copy()
    expected = _reference("heat_swap")(expected_u, expected_v, 5).copy()
    failures = []

    def work(k):
        try:
            for _ in range(20):
                u, v = start.copy(), start.copy()
                np.testing.assert_allclose(kernels.heat_swap(u, v, 5), expected, rtol=1e-12)
                a, b, c = cupy.zeros(10_000 + k), cupy.arange(10_000 + k, dtype=cupy.float64), cupy.ones(10_000 + k)
                kernels.triad(a, b, c, 2.0)
                cupy.testing.assert_allclose(a, b + 2.0)
                assert kernels.total(np.ones(1000 + k)) == 1000 + k
        except Exception as error:  # noqa: BLE001 (reported by the main thread)
            failures.append(f"thread {k}: {error!r}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not failures, failures


def test_a_forked_child_gets_a_clear_error_not_a_crash(kernels):
    """CUDA cannot run in a child forked after it started: a kpc call there raises a
    RuntimeError that says so (kpc's fork check), and the parent goes on."""
    import multiprocessing

    kernels.total(np.ones(10))

    def child(queue):
        try:
            queue.put(repr(kernels.total(np.ones(10))))
        except RuntimeError as error:
            queue.put(f"RuntimeError: {error}")

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=child, args=(queue,))
    process.start()
    said = queue.get(timeout=60)
    process.join(60)
    assert said.startswith("RuntimeError") and "fork" in said, said
    assert kernels.total(np.ones(10)) == 10.0


def test_errors_kernels_flag_on_the_device_raise_as_in_numba(kernels):
    """An integer division by zero in a device kernel raises Numba's ZeroDivisionError once the
    call's kernels end (the module's device error slot), with NumPy arguments and with CuPy
    arguments where the call returns a value; the next call starts clean."""
    import cupy

    a = np.arange(1, 100_001, dtype=np.int64)
    b = np.ones(100_000, dtype=np.int64)
    b[77_777] = 0
    with pytest.raises(ZeroDivisionError) as numba_error:
        _reference("floor_ratio_sum")(a[77_777:77_778], b[77_777:77_778])
    out = np.empty_like(a)
    with pytest.raises(ZeroDivisionError, match=str(numba_error.value)):
        kernels.floor_ratios(a, b, out)
    with pytest.raises(ZeroDivisionError, match=str(numba_error.value)):
        kernels.floor_ratio_sum(cupy.asarray(a), cupy.asarray(b))
    b[77_777] = 1
    assert kernels.floor_ratio_sum(a, b) == a.sum()
    kernels.floor_ratios(a, b, out)
    np.testing.assert_array_equal(out, a)


def test_min_max_of_an_empty_row_on_the_device_raises_numbas_value_error(kernels):
    m = np.random.default_rng(3).random((50, 40))
    np.testing.assert_allclose(kernels.row_ranges(m), m.max(axis=1) - m.min(axis=1))
    with pytest.raises(ValueError, match="zero-size array to reduction operation (maximum|minimum) which has no identity"):
        kernels.row_ranges(np.zeros((5, 0)))
