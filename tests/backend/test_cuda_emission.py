"""``--space cuda`` without a GPU: what the Kokkos C++ emitter writes for cuda (bindings through
kpc::cuda::from_array with the write set and host-access flags, a fence after each region,
managed allocations, volatile joins for Kokkos 3.x's CUDA reductions), and the runtime's CUDA
helpers (compiler of a CUDA Kokkos, include flags through nvcc_wrapper, CUDA array typing)."""

from __future__ import annotations


import numpy as np
import pytest

from kpc.runtime import device_arrays
from kpc.runtime.argument_types import typeof

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
        a[i] = a[i] * 2.0
    out = np.empty(a.shape[0])
    for i in prange(a.shape[0]):
        out[i] = a[i]
    return out


@njit(parallel=True)
def host_reads(a):
    for i in prange(a.shape[0]):
        a[i] = a[i] * 2.0
    first = a[0]
    for i in prange(a.shape[0]):
        a[i] = a[i] - first


@njit(parallel=True)
def host_search(edges, x):
    found = np.searchsorted(edges, x)
    out = np.empty(x.shape[0])
    for i in prange(x.shape[0]):
        out[i] = found[i] * 2.0
    return out


@njit
def host_median(x):
    return np.median(x)
'''


def _unit(tmp_path, space, only=None):
    from kpc import pipeline
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit

    source = tmp_path / "kernels.py"
    source.write_text(KERNELS)
    f64 = typeof(np.zeros(3))
    entries = {"triad": (f64, f64, f64, ("scalar", "float64")), "total": (f64,), "host_and_device": (f64,),
               "host_reads": (f64,), "host_search": (f64, f64), "host_median": (f64,)}
    entries = {name: types for name, types in entries.items() if only is None or name in only}
    module = pipeline.typed_specialization(str(source), KERNELS, entries, True)
    return emit_translation_unit([Specialization(module, list(entries))], space=space, source=str(source))


def test_cuda_bindings_take_numpy_or_cuda_arrays_with_write_set_and_host_access(tmp_path):
    text = _unit(tmp_path, "cuda").source
    assert "#define KPC_CUDA 1" in text and '#include "kpc_cuda.hpp"' in text
    # written, host access, device access
    assert 'kpc::cuda::from_array<double, 1, Kokkos::LayoutRight>(args[0], "triad", "a", true, false, true);' in text
    assert 'kpc::cuda::from_array<double, 1, Kokkos::LayoutRight>(args[1], "triad", "b", false, false, true);' in text
    # a[0] = 1.0 between regions runs on one device thread (one-thread-regions): no host access
    assert '(args[0], "host_and_device", "a", true, false, true);' in text
    assert '(args[0], "host_reads", "a", true, true, true);' in text  # first = a[0] is read by the host
    # np.searchsorted's routine runs on the host over the arguments: they must be reachable there
    # (a device-memory copy crashed the process), not only arrays the host indexes
    assert '(args[0], "host_search", "edges", false, true, true);' in text
    assert "kpc::from_numpy<" not in text
    assert "kpc::cuda::call_scope kpc_scope;" in text
    assert "return kpc_scope.result(" in text


def test_cuda_regions_are_fenced_allocations_managed_joins_volatile(tmp_path):
    text = _unit(tmp_path, "cuda").source
    assert text.count("Kokkos::parallel_") + text.count("kpc::cuda::range_for") == text.count(
        "Kokkos::fence();  // cuda")
    assert "kpc::cuda::empty<double, 1>" in text and "kpc::empty<" not in text
    assert "void join(const volatile total_acc1& other) volatile {" in text
    assert "using kpc_exec_space = Kokkos::Cuda;" in text


def test_cuda_host_routines_wait_for_the_regions_before_them(tmp_path):
    # np.median copies in a region, then selects in the copy on the host: the region must have ended
    # (alone in its unit: host_reads's fences would cover it)
    body = _unit(tmp_path, "cuda", only=("host_median",)).source.split("// host_median (")[1]
    launch, fence, select = (body.index(s) for s in ("range_for(", "Kokkos::fence();  // cuda", "kpc::order::"))
    assert launch < fence < select, body


def test_cuda_one_dimensional_regions_launch_one_thread_per_iteration(tmp_path):
    text = _unit(tmp_path, "cuda").source
    assert 'kpc::cuda::range_for("triad:' in text and ", kpc_begin1, kpc_end1, kpc_body);" in text
    assert 'Kokkos::parallel_reduce("total:' in text  # Kokkos's own launch is faster for reductions
    assert "kpc::Reduce<total_acc1>(kpc_result1));" in text


def test_host_spaces_are_unchanged_by_cuda_support(tmp_path):
    text = _unit(tmp_path, "openmp").source
    for cuda_only in ("KPC_CUDA", "kpc::cuda::", "Kokkos::fence", "volatile"):
        assert cuda_only not in text


def test_compiler_of_a_cuda_kokkos_comes_from_its_cmake_config(tmp_path):
    cmake_dir = tmp_path / "lib" / "cmake" / "Kokkos"
    cmake_dir.mkdir(parents=True)
    (cmake_dir / "KokkosConfigCommon.cmake").write_text(
        'SET(Kokkos_DEVICES "CUDA;OPENMP")\nSET(Kokkos_CXX_COMPILER "/opt/k/bin/nvcc_wrapper")\n')

    class Install:
        backends = ("Cuda", "OpenMP", "Serial")

    Install.cmake_dir = cmake_dir
    assert device_arrays.kokkos_cxx_compiler(Install) == "/opt/k/bin/nvcc_wrapper"
    assert device_arrays.probe_arguments(Install) == ["-DKPC_CUDA=ON", "-DCMAKE_CXX_COMPILER=/opt/k/bin/nvcc_wrapper"]
    Install.backends = ("OpenMP", "Serial")
    assert device_arrays.probe_arguments(Install) == []


def test_probe_gives_nvcc_wrapper_the_installs_gpu_architecture(tmp_path):
    """Kokkos 4 records the architecture number; 3.x only the Kokkos_ARCH names."""
    cmake_dir = tmp_path / "lib" / "cmake" / "Kokkos"
    cmake_dir.mkdir(parents=True)
    config = cmake_dir / "KokkosConfigCommon.cmake"

    class Install:
        backends = ("Cuda", "OpenMP", "Serial")

    Install.cmake_dir = cmake_dir
    config.write_text('set(Kokkos_CXX_COMPILER "/k/bin/nvcc_wrapper")\nset(Kokkos_ARCH HOPPER90)\n'
                      'if(Kokkos_ENABLE_CUDA)\n  set(Kokkos_CUDA_ARCHITECTURES 90)\nendif()\n')
    assert device_arrays.cuda_architecture(Install) == "sm_90"
    assert device_arrays.probe_arguments(Install)[-1] == "-DCMAKE_CXX_FLAGS=-arch=sm_90"
    config.write_text('SET(Kokkos_CXX_COMPILER "/k/bin/kpc_nvcc_wrapper")\nSET(Kokkos_ARCH "SKX;AMPERE80")\n')
    assert device_arrays.cuda_architecture(Install) == "sm_80"
    assert device_arrays.probe_arguments(Install)[-1] == "-DCMAKE_CXX_FLAGS=-arch=sm_80"
    config.write_text('SET(Kokkos_CXX_COMPILER "/usr/bin/clang++")\nSET(Kokkos_ARCH "ZEN3")\n')
    assert device_arrays.cuda_architecture(Install) is None
    assert device_arrays.probe_arguments(Install) == ["-DKPC_CUDA=ON", "-DCMAKE_CXX_COMPILER=/usr/bin/clang++"]


def test_include_and_link_flags_through_nvcc_wrapper():
    assert device_arrays.include_flags(["/a"], "/x/bin/kpc_nvcc_wrapper") == ["-I/a"]
    assert device_arrays.include_flags(["/a"], "/usr/bin/g++") == ["-isystem", "/a"]
    assert device_arrays.cuda_link_flags(("-ldl",)) == ("-ldl", "-lcuda")
    assert device_arrays.cuda_link_flags(("-lcuda",)) == ("-lcuda",)
    assert device_arrays.cuda_compile_flags(False) == ["--fmad=false"]


class FakeCudaArray:
    """Just the CUDA array interface, as CuPy exposes it."""

    def __init__(self, shape, typestr="<f8", strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": strides,
                                         "data": (0, False), "version": 3}


@pytest.mark.parametrize("shape,strides,layout", [
    ((4,), None, "C"), ((4, 3), None, "C"), ((4, 3), (8, 32), "F"), ((4, 3), (48, 16), "A"),
])
def test_cuda_arrays_are_typed_like_numpy_arrays(shape, strides, layout):
    assert typeof(FakeCudaArray(shape, strides=strides)) == ("array", "float64", len(shape), layout)
    assert typeof(FakeCudaArray((5,), "<i4")) == ("array", "int32", 1, "C")


def test_what_the_cuda_space_refuses_is_found_before_compiling(tmp_path):
    """Host-only constructs (np.linalg, per-thread pools of arrays whose size the loop does not
    change) keep a kernel as Numba for --space cuda, found by the checks that run before any
    compile (they emit for the build's space), not by a failing build."""
    from kpc.pipeline import failing_requests, load_module, untranslatable

    path = tmp_path / "host_only.py"
    path.write_text('''
import numpy as np
from numba import njit, prange


@njit
def inverse(a):
    return np.linalg.inv(a)


@njit(parallel=True)
def rows(x):
    out = np.empty(x.shape[0])
    for i in prange(x.shape[0]):
        t = np.empty(x.shape[1])
        for j in range(x.shape[1]):
            t[j] = x[i, j] * 2.0
        out[i] = t[0]
    return out
''')
    source = path.read_text()
    generic = load_module(str(path), source=source)
    assert untranslatable(str(path), source, generic, space="openmp") == {}
    assert set(untranslatable(str(path), source, generic, space="cuda")) == {"inverse", "rows"}
    requests = [("inverse", (("array", "float64", 2, "C"),)), ("rows", (("array", "float64", 2, "C"),))]
    assert failing_requests(str(path), source, requests, space="openmp") == {}
    failing = failing_requests(str(path), source, requests, space="cuda")
    assert "host execution spaces only" in failing["inverse"] and "constant shape" in failing["rows"]


def test_a_parameter_written_through_a_name_it_swapped_with_is_written():
    """``src, dst = a, b`` ... ``src, dst = dst, src`` writes ``a`` through ``dst``: on CUDA a
    NumPy ``a`` is staged on the device and copied back only when it is in the write set (the
    GPU run of the corpus found heat_in_place's ``a`` left unchanged)."""
    from pathlib import Path

    from kpc.api import load_module
    from kpc.backend.kokkos.analysis import written_params
    from kpc.passes.manager import PassContext, run_pipeline

    corpus = Path(__file__).resolve().parent.parent / "corpus" / "array_swap.py"
    module = load_module(str(corpus), signatures=["heat_in_place(float64[::1], int64)",
                                                  "smooth(float64[::1], int64)"])
    run_pipeline(module, PassContext(target="kokkos"))
    assert written_params(module) == {"heat_in_place": {"a"}, "smooth": set()}


def _matmul_unit(signature: str, space: str) -> str:
    from pathlib import Path

    from kpc.api import load_module
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
    from kpc.passes.manager import PassContext, run_pipeline

    path = Path(__file__).resolve().parent.parent / "corpus" / "np_matmul.py"
    module = load_module(path, signatures=[signature])
    run_pipeline(module, PassContext(target="kokkos"))
    name = signature.split("(")[0]
    return emit_translation_unit([Specialization(module, [name])], space=space, source=str(path)).source


def test_products_on_cuda_run_the_loop_nest_on_device_arrays():
    """A product's routine launches a device kernel: the entry takes device arrays (its function
    counts as having regions) and the module loads no BLAS (that is for host spaces)."""
    text = _matmul_unit("scaled_gemm(float64, float64[:, ::1], float64[:, ::1], float64, float64[:, ::1])", "cuda")
    assert "kpc::blas::matmul<kpc_exec_space, false, false>(A, B, prod0, alpha)" in text
    assert "kpc::blas::load()" not in text
    assert ", true);" in text.split("scaled_gemm__s0(")[1].split("kpc::check_errors")[0]  # from_array(..., device)
    host = _matmul_unit("scaled_gemm(float64, float64[:, ::1], float64[:, ::1], float64, float64[:, ::1])", "openmp")
    assert "kpc::blas::load();" in host


def test_a_shape_check_in_a_function_called_from_a_region_is_refused_on_cuda():
    """The NumPy shape check is host code: inside a CUDA kernel it never ran (and the store after
    it was lost), so such a kernel stays Numba on CUDA; host spaces translate it."""
    from kpc.backend.kokkos.cxx import BackendError

    signature = "rows_through_helper(float64[:, ::1], float64[:, ::1], float64[:, ::1])"
    assert "kpc::broadcast_into<true>" in _matmul_unit(signature, "openmp")
    with pytest.raises(BackendError, match="shape check inside code that runs on a CUDA device"):
        _matmul_unit(signature, "cuda")


def test_array_statements_between_regions_run_on_one_device_thread_on_cuda_only(tmp_path):
    cuda = _unit(tmp_path, "cuda").source
    openmp = _unit(tmp_path, "openmp").source
    assert "// parallel_for over kpc_one1" in cuda and 'kpc::cuda::range_for("host_and_device:' in cuda
    assert "kpc_one" not in openmp and "a(0) = 1.0;" in openmp


MDRANGE = '''
from numba import njit, prange


@njit(parallel=True)
def sum2d(a):
    s = 0.0
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j]
    return s


@njit(parallel=True)
def star(a, b):
    for i in prange(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]
'''


def test_mdrange_regions_launch_flat_on_cuda_and_as_mdrange_on_host_spaces(tmp_path):
    from kpc import pipeline
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit

    source = tmp_path / "mdrange.py"
    source.write_text(MDRANGE)
    f64 = typeof(np.zeros((3, 3)))
    entries = {"sum2d": (f64,), "star": (f64, f64)}
    module = pipeline.typed_specialization(str(source), MDRANGE, entries, True)
    units = {space: emit_translation_unit([Specialization(module, list(entries))], space=space,
                                          source=str(source)).source for space in ("cuda", "openmp")}
    cuda, host = units["cuda"], units["openmp"]
    assert "MDRangePolicy" not in cuda and host.count("Kokkos::MDRangePolicy<kpc_exec_space, Kokkos::Rank<2") == 2
    # the reduction keeps Kokkos's Range reduction, the for goes through range_for; one flat index each
    assert 'Kokkos::parallel_reduce("sum2d:' in cuda and "Kokkos::RangePolicy<kpc_exec_space" in cuda
    assert 'kpc::cuda::range_for("star:' in cuda
    assert cuda.count("auto kpc_body = KOKKOS_LAMBDA(const int64_t kpc_t1") == 2
    # the last loop varies fastest, each index offset by its loop's start
    assert "kpc_rest1 = kpc::flat_split(kpc_rest1, kpc_n1_1, kpc_r1_1);" in cuda
    assert "const int64_t j = kpc_begin1_1 + kpc_r1_1;" in cuda and "const int64_t i = kpc_begin1_0 + kpc_rest1;" in cuda
    assert "const int64_t kpc_end1 = kpc_n1_0 * kpc_n1_1;" in cuda


def test_min_max_of_rows_on_a_cuda_device_flag_an_error_code(tmp_path):
    from kpc import pipeline
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit

    kernels = ("import numpy as np\nfrom numba import njit, prange\n\n"
               "@njit(parallel=True)\ndef row_ranges(m):\n    out = np.empty(m.shape[0])\n"
               "    for i in prange(m.shape[0]):\n        out[i] = m[i].max() - m[i].min()\n"
               "    return out, m.min()\n")
    source = tmp_path / "rows.py"
    source.write_text(kernels)
    entries = {"row_ranges": (typeof(np.zeros((3, 4))),)}
    module = pipeline.typed_specialization(str(source), kernels, entries, True)
    text = emit_translation_unit([Specialization(module, list(entries))], space="cuda", source=str(source)).source
    # The rows' checks run on the device, which flags an error code the binding raises once the
    # call's kernels end (kpc::device_check); the whole matrix's on the host, with its message.
    assert text.count("kpc::value_check<false>(") == 1 and "kpc::value_check<true>(" not in text
    assert "kpc::empty_maximum_error)" in text and "kpc::empty_minimum_error)" in text
    assert "kpc::inf<double>()" in text
