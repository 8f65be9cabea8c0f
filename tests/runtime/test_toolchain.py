"""Compiler and flags: probed once per Kokkos install, cached, and able to build a real module."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from kpc.runtime import toolchain as toolchain_module
from kpc.runtime.kokkos import find_kokkos
from kpc.runtime.toolchain import (
    CompileError,
    compile_extension,
    extension_suffix,
    first_error_lines,
    toolchain_cache_file,
    toolchain_for,
)

# The shape of what the Kokkos backend generates: a NumPy buffer wrapped as an
# unmanaged host view, a parallel_reduce over it, Kokkos initialized once.
KOKKOS_SUM_SOURCE = textwrap.dedent(
    """
    #include <Kokkos_Core.hpp>
    #include <pybind11/numpy.h>
    #include <pybind11/pybind11.h>

    namespace py = pybind11;
    using HostVector = Kokkos::View<const double*, Kokkos::HostSpace,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

    double sum(py::array_t<double, py::array::c_style | py::array::forcecast> values) {
      HostVector view(values.data(), values.size());
      double total = 0.0;
      Kokkos::parallel_reduce(
          "kokkos_sum", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, view.extent(0)),
          KOKKOS_LAMBDA(const int i, double& partial) { partial += view(i); }, total);
      return total;
    }

    PYBIND11_MODULE(kokkos_sum, m) {
      if (!Kokkos::is_initialized()) {
        Kokkos::initialize();
        py::module_::import("atexit").attr("register")(py::cpp_function([] {
          if (Kokkos::is_initialized()) Kokkos::finalize();
        }));
      }
      m.def("sum", &sum);
      m.def("execution_space", [] { return std::string(Kokkos::DefaultHostExecutionSpace::name()); });
    }
    """
)


@pytest.fixture(scope="module")
def toolchain(tmp_path_factory):
    return toolchain_for(find_kokkos(), cache_dir=tmp_path_factory.mktemp("kpc-cache"))


@pytest.mark.compile
def test_compiles_and_imports_a_kokkos_reduction_module(tmp_path, toolchain):
    source = tmp_path / "kokkos_sum.cpp"
    source.write_text(KOKKOS_SUM_SOURCE)
    output = tmp_path / "build" / f"kokkos_sum{extension_suffix()}"
    compile_extension(source, output, toolchain)

    # A fresh interpreter, so Kokkos starts and stops in a process of its own.
    check = textwrap.dedent(
        """
        import numpy as np, kokkos_sum
        values = np.random.default_rng(1).random(100_003)
        print(kokkos_sum.execution_space(), abs(kokkos_sum.sum(values) - values.sum()) / values.sum())
        """
    )
    env = dict(os.environ, PYTHONPATH=str(output.parent), OMP_PROC_BIND="false", OMP_NUM_THREADS="2")
    result = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    space, relative_error = result.stdout.split()
    assert space in find_kokkos().backends
    assert float(relative_error) < 1e-12


def test_compile_error_names_the_source_and_the_first_error(tmp_path, toolchain):
    source = tmp_path / "broken.cpp"
    source.write_text("int main() { return undeclared_name; }\n")
    with pytest.raises(CompileError) as caught:
        compile_extension(source, tmp_path / "broken.so", toolchain)
    message = str(caught.value)
    assert str(source) in message
    assert "undeclared_name" in message and "error" in message


def test_probe_result_is_cached_per_install(tmp_path, monkeypatch):
    install = find_kokkos()
    first = toolchain_for(install, cache_dir=tmp_path)
    cache_file = toolchain_cache_file(install, cache_dir=tmp_path)
    assert json.loads(cache_file.read_text())["kokkos_root"] == str(install.root)

    def probe_again(*args, **kwargs):
        raise AssertionError("the toolchain was probed again despite a cached result")

    monkeypatch.setattr(toolchain_module, "probe_toolchain", probe_again)
    assert toolchain_for(install, cache_dir=tmp_path) == first


def test_a_corrupt_cache_entry_is_probed_again(tmp_path):
    install = find_kokkos()
    cache_file = toolchain_cache_file(install, cache_dir=tmp_path)
    cache_file.parent.mkdir(parents=True)
    cache_file.write_text("{not json")
    assert toolchain_for(install, cache_dir=tmp_path).kokkos_version == install.version


def test_each_kokkos_install_has_its_own_cache_entry(tmp_path):
    install = find_kokkos()
    other = type(install)(**{**install.__dict__, "version": "9.9.99"})
    assert toolchain_cache_file(install, tmp_path) != toolchain_cache_file(other, tmp_path)


def test_compile_command_has_kokkos_and_python_flags(toolchain):
    command = toolchain.compile_command("m.cpp", "m.so")
    assert command[0] == toolchain.compiler
    for flag in ("-O3", "-march=native", "-fPIC", "-shared", "-fopenmp"):
        assert flag in command
    assert any(flag.startswith("-std=c++") for flag in command)
    include_dirs = [command[i + 1] for i, flag in enumerate(command) if flag == "-isystem"]
    assert str(find_kokkos().include_dir) in include_dirs
    assert any(path.endswith(os.path.join("pybind11", "include")) for path in include_dirs)
    assert command.count("-fopenmp") == 1


def test_the_cxx_standard_is_kpc_own_or_kokkos_own_if_higher(toolchain):
    """Kokkos 4 needs C++17, Kokkos 5 C++20: the toolchain follows Kokkos' recorded standard."""
    kokkos_standard = int(find_kokkos().cxx_standard or 0)
    assert int(toolchain.cxx_standard) == max(17, kokkos_standard)
    assert f"-std=c++{toolchain.cxx_standard}" in toolchain.compile_flags()


def test_first_error_lines_start_at_the_first_error():
    output = "In file included from a.cpp:1:\nb.hpp:3:1: error: boom\n  3 | x\nnote: here\n"
    assert first_error_lines(output, limit=2) == ["b.hpp:3:1: error: boom", "  3 | x"]


def test_a_compiler_with_only_a_static_libstdcxx_links_it_hidden(tmp_path, toolchain):
    """A relocated GCC without libstdc++.so (the GPU machine's /opt/gcc) would export a private
    libstdc++ copy from every module; kpc then links with -Wl,--exclude-libs,ALL."""
    fake = tmp_path / "g++"
    fake.write_text("#!/bin/sh\necho libstdc++.so\n")
    fake.chmod(0o755)
    assert toolchain_module.has_static_libstdcxx_only(str(fake))
    assert not toolchain_module.has_static_libstdcxx_only(str(tmp_path / "missing-compiler"))
    # The probed toolchain carries the flag exactly when its compiler needs it (GCC 12 here
    # has the shared library; the GPU machine's /opt/gcc GCC 13 has not).
    needs = toolchain_module.has_static_libstdcxx_only(toolchain.compiler)
    assert (toolchain_module.HIDE_STATIC_LIBS in toolchain.link_flags) == needs
