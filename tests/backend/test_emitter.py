"""What the Kokkos emitter prints for corpus kernels (no compiler needed): the decisions a
reader of the generated C++ checks first."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kpc.api import load_module
from kpc.backend.kokkos.cxx import BackendError
from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit
from kpc.passes.manager import PassContext, run_pipeline

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def cpp(file: str, signature: str, space: str = "openmp", source: str | None = None) -> str:
    path = CORPUS / file if source is None else Path(file)
    module = load_module(path, signatures=[signature], source=source)
    run_pipeline(module, PassContext(target="kokkos"))
    name = signature.split("(")[0]
    return emit_translation_unit([Specialization(module, [name])], space=space, source=str(path)).source


def test_lennard_jones_is_a_dynamic_reduction_with_inlined_helpers():
    text = cpp("lennard_jones.py", "potential(float64[:, ::1])")
    assert "Kokkos::Schedule<Kokkos::Dynamic>" in text
    assert "Kokkos::parallel_reduce(" in text and "kpc::Reduce<potential_acc1>" in text
    assert re.search(r"template <class V_atom1, class V_atom2>\nKOKKOS_INLINE_FUNCTION double distance", text)
    assert "KOKKOS_INLINE_FUNCTION double lj(double r)" in text
    assert "Kokkos::subview(cluster, i, Kokkos::ALL)" in text
    assert "pow(" not in text
    assert "kpc::from_numpy<double, 2, Kokkos::LayoutRight>" in text


def test_only_reductions_of_short_iterations_are_chunked():
    # a load and an add per iteration: chunks of at least 1024 iterations into a local accumulator
    assert "kpc_chunks" in cpp("reduce_sum_prod.py", "total(float64[::1])")
    # each iteration runs a row of run-time length: 1024 rows a chunk would leave most threads idle
    assert "kpc_chunks" not in cpp("reduce_sum_prod.py", "weighted_sum_2d(float64[:, ::1], float64[::1])")


def test_host_spaces_launch_a_triangular_region_with_its_iterations_paired():
    text = cpp("lennard_jones.py", "potential(float64[:, ::1])")
    # the flat launch: (n + 1) / 2 work items, each running iterations t and n - 1 - t, static
    assert "kpc_body(kpc_begin1 + kpc_t, kpc_acc);" in text
    assert "if (kpc_n - 1 - kpc_t != kpc_t) kpc_body(kpc_begin1 + kpc_n - 1 - kpc_t, kpc_acc);" in text
    assert ("Kokkos::RangePolicy<kpc_exec_space, Kokkos::IndexType<int64_t>>(0, (kpc_n + 1) / 2), kpc_pairs, "
            "kpc::Reduce<potential_acc1>(kpc_result1)") in text
    cuda = cpp("lennard_jones.py", "potential(float64[:, ::1])", space="cuda")
    assert "kpc_pairs" not in cuda  # a team per i on the GPU


def test_statements_point_at_the_users_lines():
    text = cpp("lennard_jones.py", "potential(float64[:, ::1])")
    path = str(CORPUS / "lennard_jones.py")
    assert re.search(f'#line 36 "{re.escape(path)}"\n\\s+energy_inner \\+= e;', text)
    # after each function, lines point back into the generated file
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if line.startswith("#line") and "module.cpp" in line:
            assert int(line.split()[1]) == number + 1


def test_stencil_is_an_mdrange_without_index_wrapping():
    text = cpp("star.py", "star(float64[:, ::1], float64[:, ::1])")
    assert "Kokkos::MDRangePolicy<kpc_exec_space, Kokkos::Rank<2, Kokkos::Iterate::Right, Kokkos::Iterate::Right>" in text
    assert "inp(i, j - k)" in text and "kpc::wrap" not in text


def test_negative_and_unknown_indices_wrap_like_python():
    source = (
        "from numba import njit\n"
        "@njit\n"
        "def f(a, k):\n"
        "    return a[-1] + a[k] + a[k // 2] + a[k % 3]\n"
    )
    text = cpp("neg.py", "f(float64[::1], int64)", source=source)
    assert "a(kpc::extent(a, 0) + -1)" in text
    assert "a(kpc::wrap(k, kpc::extent(a, 0)))" in text
    assert "kpc::floordiv<int64_t>(k, 2)" in text and "kpc::mod<int64_t>(k, 3)" in text


def test_scatter_update_in_a_parallel_loop_is_atomic():
    text = cpp("histogram.py", "count_labels(int64[::1], int64[::1])")
    assert "Kokkos::atomic_add(&hist(" in text and "static_cast<int64_t>(1)" in text


def test_several_reduction_variables_share_one_reducer():
    text = cpp("reduce_multi.py", "summary_stats(float32[::1])")
    acc = re.search(r"struct summary_stats_acc1 \{(.*?)\};", text, re.S).group(1)
    # lo and hi start from np.inf (float64), so Numba types them float64 even for float32 data
    for field in ("double s;", "double ss;", "double lo;", "double hi;", "int64_t positive;"):
        assert field in acc
    assert "lo = kpc::min_identity<double>();" in acc


def test_prefix_sum_is_a_scan_that_writes_in_the_final_pass():
    text = cpp("prefix_sum.py", "exclusive_scan(int64[::1], int64[::1])")
    assert "Kokkos::parallel_scan(" in text
    assert re.search(r"if \(kpc_final\) \{\n(#line.*\n)?\s+out\(i\) = \(kpc_scan_init1 \+ s\);", text)


def test_serial_space_and_float32_stay_float():
    text = cpp("sum2d.py", "sum2d(float32[:, :])", space="serial")
    assert "using kpc_exec_space = Kokkos::Serial;" in text
    assert "kpc::from_numpy<float, 2, Kokkos::LayoutStride>" in text


def test_unsupported_parameter_type_is_a_backend_error_with_the_users_line():
    source = (
        "from numba import njit\n"
        "@njit\n"
        "def first(t):\n"
        "    return t[0]\n"
    )
    with pytest.raises(BackendError, match=r"tuple.py:3:.*parameter 't' of @first has type \(f64, f64\)"):
        cpp("tuple.py", "first(UniTuple(float64, 2))", source=source)


def test_function_called_inside_and_outside_regions_gets_two_variants():
    source = (
        "from numba import njit, prange\n"
        "@njit(parallel=True)\n"
        "def row_sum(a, i):\n"
        "    s = 0.0\n"
        "    for j in prange(a.shape[1]):\n"
        "        s += a[i, j]\n"
        "    return s\n"
        "@njit(parallel=True)\n"
        "def total(a):\n"
        "    t = 0.0\n"
        "    for i in prange(a.shape[0]):\n"
        "        t += row_sum(a, i)\n"
        "    return t + row_sum(a, 0)\n"
    )
    text = cpp("both.py", "total(float64[:, ::1])", source=source)
    # inside total's parallel loop, row_sum's own prange runs serially (as in Numba)
    assert "KOKKOS_INLINE_FUNCTION double row_sum__serial(const V_a& a, int64_t i)" in text
    assert "t += s0::row_sum__serial(a, i);" in text
    # called from host code, row_sum launches its own parallel_reduce
    assert "inline double row_sum(const V_a& a, int64_t i)" in text
    assert "return t + s0::row_sum(a, 0);" in text
    assert text.count("Kokkos::parallel_reduce(") == 2


def test_cost_guard_threshold_is_compiled_in():
    text = cpp("reduce_sum_prod.py", "total(float64[::1])")
    # 32768 / (load + add + reduction chain 4); the call site learns near it (kpc::guard_site)
    assert ("kpc::run_serially<kpc_exec_space>((kpc_end1 - kpc_begin1), (kpc_end1 - kpc_begin1), 5462, kpc_guard1)"
            in text)
    assert 'static kpc::guard_site kpc_site1("total:' in text


def test_cost_guard_counts_inner_loops_of_run_time_length():
    text = cpp("matvec_loops.py", "matvec(float64[:, ::1], float64[::1])")
    # the prange over rows runs an inner loop over m columns: the guard compares rows * m
    assert "kpc::run_serially<kpc_exec_space>((kpc_end" in text and "* kpc::trip_count(0, m_, 1), " in text


def test_the_guard_takes_the_longest_path_of_inner_loops_side_by_side():
    text = cpp("np_softmax.py", "softmax_rows(float64[:, ::1], float64[:, ::1])")
    # max, exp, sum and divide loops side by side over a row: the guard weighs the longest, not their product
    assert "kpc::max_of({kpc::trip_count(0, kpc::extent(x, 1), 1), kpc::trip_count(0, kpc::extent(out, 1), 1)})" in text
    assert "kpc::trip_count(0, kpc::extent(x, 1), 1) * kpc::trip_count(0, kpc::extent(out, 1), 1)" not in text


def test_a_team_region_of_unknown_work_in_a_serial_kernel_learns():
    # Numba runs gather_step serially: its row loop, a Team region whose work per row the guard
    # cannot estimate, times serial against parallel at every size (ParallelInfo.learn_every_size)
    text = cpp("csr_gather.py", "gather_step(int64[::1], int64[::1], float64[::1])")
    assert "a team per iteration" in text
    assert re.search(r"kpc::learn_serially<kpc_exec_space>\(\(kpc_end\d+ - kpc_begin\d+\), 4096, kpc_guard\d+, true\)",
                     text)
