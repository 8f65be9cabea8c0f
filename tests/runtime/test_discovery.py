"""Kokkos discovery: search order, what is read from an install, and the errors users see."""

from pathlib import Path

import pytest

from kpc.runtime.kokkos import GCC13_PATCH, KokkosMisconfigured, KokkosNotFound, find_kokkos, known_limits


def make_install(
    prefix: Path,
    version: str = "4.6.01",
    backends=("OPENMP", "SERIAL"),
    lib: str = "lib",
    header_dir: str = "include",
    with_version_file: bool = True,
) -> Path:
    """Write the few files discovery reads, laid out like a real Kokkos install."""
    cmake_dir = prefix / lib / "cmake" / "Kokkos"
    cmake_dir.mkdir(parents=True)
    (cmake_dir / "KokkosConfig.cmake").write_text("# fake\n")
    if with_version_file:
        (cmake_dir / "KokkosConfigVersion.cmake").write_text(f'set(PACKAGE_VERSION "{version}")\n')
    (prefix / lib / "libkokkoscore.so").write_text("")
    include = prefix / header_dir
    include.mkdir(parents=True)
    (include / "Kokkos_Core.hpp").write_text("")
    major, minor, patch = (int(part) for part in version.split("."))
    lines = [f"#define KOKKOS_VERSION {major * 10000 + minor * 100 + patch}"]
    lines += [f"#define KOKKOS_ENABLE_{backend}" for backend in backends]
    lines += ["/* #undef KOKKOS_ENABLE_CUDA */", "#define KOKKOS_ENABLE_CXX17"]
    (include / "KokkosCore_config.h").write_text("\n".join(lines) + "\n")
    return prefix


@pytest.fixture
def installs(tmp_path):
    """Three distinguishable installs: one per place discovery looks."""
    return {
        "root": make_install(tmp_path / "root", version="4.6.01"),
        "prefix_path": make_install(tmp_path / "prefix_path", version="4.3.01"),
        "python": make_install(tmp_path / "python", version="3.4.01", header_dir="include/kokkos"),
    }


def test_kokkos_root_beats_cmake_prefix_path_and_python_prefix(installs):
    environ = {"KOKKOS_ROOT": str(installs["root"]), "CMAKE_PREFIX_PATH": str(installs["prefix_path"])}
    install = find_kokkos(environ, python_prefix=str(installs["python"]))
    assert (install.root, install.version, install.source_of_discovery) == (
        installs["root"],
        "4.6.01",
        "KOKKOS_ROOT",
    )


def test_cmake_prefix_path_beats_python_prefix(installs):
    environ = {"CMAKE_PREFIX_PATH": str(installs["prefix_path"])}
    install = find_kokkos(environ, python_prefix=str(installs["python"]))
    assert install.root == installs["prefix_path"]
    assert install.version == "4.3.01"
    assert install.source_of_discovery.startswith("CMAKE_PREFIX_PATH")


def test_python_prefix_is_the_last_resort(installs):
    install = find_kokkos({}, python_prefix=str(installs["python"]))
    assert install.root == installs["python"]
    assert install.source_of_discovery == "Python environment (sys.prefix)"


def test_cmake_prefix_path_entries_are_tried_in_order(tmp_path, installs):
    second = make_install(tmp_path / "second", version="4.0.00")
    entries = [str(tmp_path / "no_kokkos_here"), str(second), str(installs["prefix_path"])]
    install = find_kokkos({"CMAKE_PREFIX_PATH": ":".join(entries)}, python_prefix=str(tmp_path))
    assert install.root == second


def test_kokkos_dir_names_the_cmake_folder(tmp_path):
    prefix = make_install(tmp_path / "k", lib="lib64")
    install = find_kokkos({"Kokkos_DIR": str(prefix / "lib64" / "cmake" / "Kokkos")}, python_prefix=str(tmp_path))
    assert install.root == prefix
    assert install.lib_dir == prefix / "lib64"
    assert install.source_of_discovery == "Kokkos_DIR"


def test_kokkos_3_layout_from_pykokkos_base(tmp_path):
    """pykokkos-base puts the headers in include/kokkos; the version keeps its two-digit patch."""
    prefix = make_install(tmp_path / "venv", version="3.4.01", header_dir="include/kokkos")
    install = find_kokkos({}, python_prefix=str(prefix))
    assert install.version == "3.4.01"
    assert install.backends == ("OpenMP", "Serial")
    assert install.include_dir == prefix / "include" / "kokkos"
    assert install.cmake_dir == prefix / "lib" / "cmake" / "Kokkos"


def test_kokkos_4_layout_with_lib64_and_device_backend(tmp_path):
    prefix = make_install(tmp_path / "k4", version="4.6.01", backends=("SERIAL", "CUDA"), lib="lib64")
    install = find_kokkos({"KOKKOS_ROOT": str(prefix)}, python_prefix=str(tmp_path))
    assert install.include_dir == prefix / "include"
    assert install.lib_dir == prefix / "lib64"
    # Device first: Kokkos' own preference order for the default execution space.
    assert install.backends == ("Cuda", "Serial")


def test_version_falls_back_to_the_config_header(tmp_path):
    prefix = make_install(tmp_path / "k", version="4.3.01", with_version_file=False)
    assert find_kokkos({"KOKKOS_ROOT": str(prefix)}, python_prefix=str(tmp_path)).version == "4.3.01"


def test_undefined_backends_are_not_reported(tmp_path):
    prefix = make_install(tmp_path / "k", backends=("SERIAL",))
    assert find_kokkos({"KOKKOS_ROOT": str(prefix)}, python_prefix=str(tmp_path)).backends == ("Serial",)


def test_bad_kokkos_root_is_an_error_naming_the_folder(tmp_path, installs):
    empty = tmp_path / "empty"
    empty.mkdir()
    environ = {"KOKKOS_ROOT": str(empty), "CMAKE_PREFIX_PATH": str(installs["prefix_path"])}
    with pytest.raises(KokkosMisconfigured) as caught:
        find_kokkos(environ, python_prefix=str(installs["python"]))
    message = str(caught.value)
    assert f"KOKKOS_ROOT is set to {empty}" in message
    assert "KokkosConfig.cmake" in message and "Kokkos_Core.hpp" in message


def test_missing_kokkos_root_folder_is_an_error(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(KokkosMisconfigured, match="does not exist"):
        find_kokkos({"KOKKOS_ROOT": str(missing)}, python_prefix=str(tmp_path))


def test_bad_kokkos_dir_is_an_error_naming_the_folder(tmp_path):
    with pytest.raises(KokkosMisconfigured, match=f"Kokkos_DIR is set to {tmp_path}"):
        find_kokkos({"Kokkos_DIR": str(tmp_path)}, python_prefix=str(tmp_path))


def test_no_kokkos_anywhere_says_how_to_install_one(tmp_path):
    with pytest.raises(KokkosNotFound) as caught:
        find_kokkos({"CMAKE_PREFIX_PATH": str(tmp_path / "a")}, python_prefix=str(tmp_path))
    message = str(caught.value)
    assert not isinstance(caught.value, KokkosMisconfigured)
    assert "scripts/bootstrap.sh" in message
    assert "KOKKOS_ROOT=" in message
    assert str(tmp_path / "a") in message


def test_the_cxx_standard_comes_from_kokkos_config_then_from_its_target(tmp_path):
    """Kokkos 4 writes Kokkos_CXX_STANDARD; 3.x only requires cxx_std_NN on Kokkos::kokkoscore."""
    four = make_install(tmp_path / "four", version="4.6.01")
    (four / "lib/cmake/Kokkos/KokkosConfigCommon.cmake").write_text("set(Kokkos_CXX_STANDARD 20)\n")
    three = make_install(tmp_path / "three", version="3.4.01")
    (three / "lib/cmake/Kokkos/KokkosTargets.cmake").write_text('  INTERFACE_COMPILE_FEATURES "cxx_std_14"\n')
    unknown = make_install(tmp_path / "unknown", version="4.0.00")
    standards = [find_kokkos({"KOKKOS_ROOT": str(prefix)}).cxx_standard for prefix in (four, three, unknown)]
    assert standards == ["20", "14", ""]


def test_kokkos_3_4_is_reported_with_the_gcc13_patch_it_needs(tmp_path):
    prefix = make_install(tmp_path / "k", version="3.4.01")
    install = find_kokkos({"KOKKOS_ROOT": str(prefix)})
    assert known_limits(install, "GNU", "12.2.0") == [
        f"Kokkos 3.4.01 (OpenMP, Serial): GCC >= 13 builds it only with the bootstrap's patch "
        f"({GCC13_PATCH}; this install lacks it)"
    ]
    [limit] = known_limits(install, "GNU", "13.3.0")
    assert "lack the <cstdint> includes GCC >= 13 needs" in limit and "scripts/bootstrap.sh" in limit

    # The patch adds <cstdint> to headers that are installed, so a patched install shows it.
    (prefix / "include/impl").mkdir()
    (prefix / "include/impl/Kokkos_Volatile_Load.hpp").write_text("#include <cstdint>\n")
    [limit] = known_limits(install, "GNU", "13.3.0")
    assert limit.endswith("this install has it)")


def test_kokkos_4_has_no_known_limits_and_other_majors_are_untested(tmp_path):
    four = find_kokkos({"KOKKOS_ROOT": str(make_install(tmp_path / "four", version="4.6.01"))})
    assert known_limits(four, "GNU", "13.3.0") == []
    five = find_kokkos({"KOKKOS_ROOT": str(make_install(tmp_path / "five", version="5.0.00"))})
    [limit] = known_limits(five, "GNU", "13.3.0")
    assert limit.startswith("Kokkos 5.0.00 (OpenMP, Serial): untested with kpc")


# ------------------------------------------------------------------ the host build's Kokkos


def make_library(prefix: Path, *names: str) -> None:
    """Library files of an install, as the loader knows them (a real file, then links)."""
    lib = prefix / "lib"
    (lib / "libkokkoscore.so").unlink()
    (lib / names[-1]).write_text("")
    for name in names[:-1]:
        (lib / name).symlink_to(names[-1])


def test_host_kokkos_is_a_cpu_install_with_another_library_name(tmp_path):
    from kpc.runtime.kokkos import core_library_name, find_host_kokkos

    device = make_install(tmp_path / "cuda", backends=("CUDA", "OPENMP", "SERIAL"))
    make_library(device, "libkokkoscore.so", "libkokkoscore.so.4.6", "libkokkoscore.so.4.6.1")
    host = make_install(tmp_path / "host", backends=("OPENMP", "SERIAL"))
    make_library(host, "libkpchost_kokkoscore.so", "libkpchost_kokkoscore.so.4.6",
                 "libkpchost_kokkoscore.so.4.6.1")
    cuda = find_kokkos({"KOKKOS_ROOT": str(device)})
    assert core_library_name(cuda) == "libkokkoscore.so.4.6"
    found = find_host_kokkos(cuda, {"KPC_HOST_KOKKOS_ROOT": str(host)})
    assert found.install.root == host and found.reason == ""
    # found without the variable too: CMAKE_PREFIX_PATH, then the Python environment
    assert find_host_kokkos(cuda, {}, python_prefix=str(host)).install.root == host


def test_host_kokkos_of_the_same_library_name_is_refused_with_the_way_out(tmp_path):
    from kpc.runtime.kokkos import find_host_kokkos

    device = make_install(tmp_path / "cuda", backends=("CUDA", "OPENMP", "SERIAL"))
    make_library(device, "libkokkoscore.so", "libkokkoscore.so.4.6", "libkokkoscore.so.4.6.1")
    host = make_install(tmp_path / "host", backends=("OPENMP", "SERIAL"))
    make_library(host, "libkokkoscore.so", "libkokkoscore.so.4.6", "libkokkoscore.so.4.6.0")
    found = find_host_kokkos(find_kokkos({"KOKKOS_ROOT": str(device)}), {"CMAKE_PREFIX_PATH": str(host)})
    assert found.install is None
    assert "libkokkoscore.so.4.6" in found.reason and "scripts/cuda/host_kokkos.sh" in found.reason


def test_host_kokkos_skips_device_installs_and_says_when_there_is_none(tmp_path):
    from kpc.runtime.kokkos import find_host_kokkos

    device = make_install(tmp_path / "cuda", backends=("CUDA", "OPENMP", "SERIAL"))
    other = make_install(tmp_path / "hip", backends=("HIP", "SERIAL"))
    cuda = find_kokkos({"KOKKOS_ROOT": str(device)})
    found = find_host_kokkos(cuda, {"CMAKE_PREFIX_PATH": str(other)}, python_prefix=str(tmp_path / "none"))
    assert found.install is None and "no CPU-only Kokkos found" in found.reason
    with pytest.raises(KokkosMisconfigured):
        find_host_kokkos(cuda, {"KPC_HOST_KOKKOS_ROOT": str(tmp_path / "missing")})
    assert "has a device backend" in find_host_kokkos(cuda, {"KPC_HOST_KOKKOS_ROOT": str(other)}).reason
    # pip installs copies, not links: the versioned name still gives the soname
    copies = make_install(tmp_path / "pip", version="3.4.01")
    (copies / "lib" / "libkokkoscore.so.3.4.01").write_text("")
    (copies / "lib" / "libkokkoscore.so.3.4").write_text("")
    assert find_host_kokkos(cuda, {}, python_prefix=str(copies)).install.root == copies
