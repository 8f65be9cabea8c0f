"""The precompiled header of generated modules (kpc.runtime.pch): built once per compiler and
flags, reused, never used when damaged, off with KPC_PCH=0, and a module compiled with it
imports and computes right.

Most tests use a stand-in compiler (a script that writes the ``-o`` file and logs its calls),
so only the last two compile for real (one PCH build, two module compiles)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kpc.runtime import pch
from kpc.runtime.pch import precompiled_header

def calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def build(compiler, tmp_path, flags=("-O3", "-fPIC"), environ=None, headers=("kpc_numpy.hpp",)):
    return precompiled_header(compiler, "GNU", "12.2.0", list(flags), list(headers),
                              cache_dir=tmp_path / "cache", environ={"KPC_PCH": "eager"} if environ is None else environ)


def test_built_once_then_reused(fake_compiler, tmp_path):
    compiler, log = fake_compiler()
    first = build(compiler, tmp_path)
    assert first is not None and first.gch.is_file() and calls(log) == 1
    assert first.umbrella.read_text().endswith('#include "kpc_numpy.hpp"\n')
    assert first.flags() == ["-Winvalid-pch", "-include", str(first.umbrella)]
    assert build(compiler, tmp_path) == first and calls(log) == 1
    # Another flag set is another PCH.
    other = build(compiler, tmp_path, flags=("-O2", "-fPIC"))
    assert other is not None and other.directory != first.directory and calls(log) == 2
    assert not list((tmp_path / "cache" / "toolchain" / "pch").glob(".*"))  # no staging left


def test_key_covers_compiler_flags_and_header_contents(fake_compiler, tmp_path):
    compiler, _ = fake_compiler()
    headers = tmp_path / "include"
    headers.mkdir()
    (headers / "kpc_numpy.hpp").write_text("#pragma once\n")
    flags = ["-O3", f"-I{headers}"]
    key = pch.pch_key(compiler, "GNU", "12.2.0", flags, ["kpc_numpy.hpp"])
    assert key == pch.pch_key(compiler, "GNU", "12.2.0", flags, ["kpc_numpy.hpp"])
    assert key != pch.pch_key(compiler, "GNU", "12.3.0", flags, ["kpc_numpy.hpp"])
    assert key != pch.pch_key(compiler, "GNU", "12.2.0", flags + ["-ffast-math"], ["kpc_numpy.hpp"])
    assert key != pch.pch_key(compiler, "GNU", "12.2.0", flags, ["kpc_numpy.hpp", "kpc_random.hpp"])
    (headers / "kpc_numpy.hpp").write_text("#pragma once\n// changed\n")
    assert key != pch.pch_key(compiler, "GNU", "12.2.0", flags, ["kpc_numpy.hpp"])


@pytest.mark.parametrize("damage", ["truncate", "remove-record", "garbage-record"])
def test_damaged_pch_is_rebuilt_not_used(fake_compiler, tmp_path, damage):
    compiler, log = fake_compiler()
    first = build(compiler, tmp_path)
    if damage == "truncate":  # a half-written .gch: size disagrees with pch.json
        first.gch.write_bytes(first.gch.read_bytes()[:5])
    elif damage == "remove-record":
        (first.directory / pch.RECORD).unlink()
    else:
        (first.directory / pch.RECORD).write_text("{not json")
    assert pch._usable(first.directory, first.key) is None
    again = build(compiler, tmp_path)
    assert again is not None and calls(log) == 2
    assert again.gch.read_bytes() == b"fake-compiler-output"


def test_rejected_or_failed_pch_is_not_offered_again(fake_compiler, tmp_path):
    compiler, log = fake_compiler()
    first = build(compiler, tmp_path)
    first.reject("not used because `__OPTIMIZE__' not defined")
    assert build(compiler, tmp_path) is None and calls(log) == 1

    failing, failing_log = fake_compiler(fail=True)
    assert build(failing, tmp_path) is None and calls(failing_log) == 1
    assert build(failing, tmp_path) is None and calls(failing_log) == 1  # no retry for that key


def test_built_for_the_second_module_of_a_flag_set(fake_compiler, tmp_path):
    compiler, log = fake_compiler()
    assert build(compiler, tmp_path, environ={}) is None and calls(log) == 0  # first: noted only
    found = build(compiler, tmp_path, environ={})
    assert found is not None and calls(log) == 1
    assert build(compiler, tmp_path, environ={}) == found and calls(log) == 1


def test_off_with_kpc_pch_0_and_for_other_compilers(fake_compiler, tmp_path):
    compiler, log = fake_compiler()
    assert build(compiler, tmp_path, environ={"KPC_PCH": "0"}) is None
    assert precompiled_header(compiler, "Clang", "17", ["-O3"], ["kpc_numpy.hpp"],
                              cache_dir=tmp_path / "cache", environ={"KPC_PCH": "eager"}) is None
    assert build(compiler, tmp_path, flags=("-O3", "--expt-extended-lambda")) is None  # CUDA flags
    assert build("/opt/kokkos/bin/nvcc_wrapper", tmp_path) is None
    assert calls(log) == 0


def test_concurrent_processes_build_it_once(fake_compiler, tmp_path):
    compiler, log = fake_compiler(delay=1.5)
    script = textwrap.dedent(f"""
        from pathlib import Path
        from kpc.runtime.pch import precompiled_header
        found = precompiled_header({compiler!r}, "GNU", "12.2.0", ["-O3"], ["kpc_numpy.hpp"],
                                   cache_dir=Path({str(tmp_path / 'cache')!r}), environ={{"KPC_PCH": "eager"}})
        print(found.gch.read_bytes().decode())
    """)
    processes = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
                 for _ in range(3)]
    outputs = [process.communicate(timeout=60)[0].strip() for process in processes]
    assert outputs == ["fake-compiler-output"] * 3
    assert calls(log) == 1


def test_module_key_ignores_the_pch(monkeypatch):
    """A module compiled with or without the PCH is the same module: the PCH flags are not in
    the command its cache key hashes."""
    from kpc.compile_setup import leading_include

    assert leading_include('// generated\n\n#include "kpc_numpy.hpp"\n#include "kpc_random.hpp"\n') == \
        "kpc_numpy.hpp"
    assert leading_include('// cuda\n#define KPC_CUDA 1\n#include "kpc_cuda.hpp"\n') is None


# --------------------------------------------------------------------------- real GCC

KERNEL = '''import numba


@numba.njit(parallel=True)
def scale(x, a):
    for i in numba.prange(x.shape[0]):
        x[i] *= a
'''


@pytest.mark.compile
def test_real_modules_share_one_pch_and_compute_right(tmp_path, monkeypatch):
    from kpc.api import build as kpc_build
    from kpc.runtime.cache import BuildCache
    from kpc.runtime.kokkos import find_kokkos
    from kpc.runtime.toolchain import toolchain_for

    toolchain = toolchain_for(find_kokkos())  # the user's cached probe: no CMake here when present
    if toolchain.compiler_id != "GNU":
        pytest.skip("precompiled headers are used with GCC only")
    cache = tmp_path / "cache"
    monkeypatch.setenv("KPC_CACHE_DIR", str(cache))
    monkeypatch.setenv("KPC_PCH", "eager")  # the default builds it for the second module
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "scale_a.py").write_text(KERNEL)
    (tmp_path / "b" / "scale_b.py").write_text(KERNEL.replace("x[i] *= a", "x[i] *= a + 1.0"))

    kpc_build(tmp_path / "a" / "scale_a.py", tmp_path / "out", signatures=["scale(float64[::1], float64)"])
    records = list((cache / "toolchain" / "pch").glob("*/pch.json"))
    assert len(records) == 1
    record = json.loads(records[0].read_text())
    gch = records[0].parent / (pch.UMBRELLA + ".gch")
    stamp = gch.stat().st_mtime_ns
    assert not (records[0].parent / "rejected").exists()

    result = kpc_build(tmp_path / "b" / "scale_b.py", tmp_path / "out", signatures=["scale(float64[::1], float64)"])
    assert len(list((cache / "toolchain" / "pch").glob("*/pch.json"))) == 1
    assert gch.stat().st_mtime_ns == stamp and json.loads(records[0].read_text()) == record  # not rebuilt
    assert not (records[0].parent / "rejected").exists()  # GCC used it (-Winvalid-pch said nothing)

    # GCC really loads the .gch for the module's flags (-H names it with a '!').
    entry = BuildCache().verify(result.specializations[0].key)
    command = entry.manifest["command"]
    command = command[: command.index("SOURCE")]  # compiler and compile flags, without linking
    probe = subprocess.run(command + ["-Winvalid-pch", "-include", str(gch.parent / pch.UMBRELLA), "-H",
                                      "-fsyntax-only", "-DKPC_MODULE_NAME=probe", str(entry.source)],
                           capture_output=True, text=True)
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert f"! {gch}" in probe.stderr.splitlines()[0]

    check = textwrap.dedent(f"""
        import sys, numpy as np
        sys.path.insert(0, {str(tmp_path / 'out')!r})
        import scale_a, scale_b
        x = np.arange(5.0); scale_a.scale(x, 3.0); y = np.arange(5.0); scale_b.scale(y, 3.0)
        print(x.tolist(), y.tolist())
    """)
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, KPC_CACHE_DIR=str(cache)))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0.0, 3.0, 6.0, 9.0, 12.0] [0.0, 4.0, 8.0, 12.0, 16.0]"


@pytest.mark.compile
def test_unusable_gch_is_rejected_and_the_module_still_compiles(tmp_path):
    """GCC skips a .gch that is not a PCH (with -Winvalid-pch it says so): the compile succeeds
    from the text headers and the PCH is marked rejected."""
    from kpc.runtime.kokkos import find_kokkos
    from kpc.runtime.toolchain import compile_extension, extension_suffix, toolchain_for

    toolchain = toolchain_for(find_kokkos(), cache_dir=tmp_path / "probe")
    if toolchain.compiler_id != "GNU":
        pytest.skip("precompiled headers are used with GCC only")
    folder = tmp_path / "pch" / "key"
    folder.mkdir(parents=True)
    (folder / pch.UMBRELLA).write_text(pch.umbrella_text(["tiny.hpp"]))
    (folder / (pch.UMBRELLA + ".gch")).write_bytes(b"garbage, not a PCH" * 100)
    (tmp_path / "tiny.hpp").write_text("#pragma once\ninline int three() { return 3; }\n")
    source = tmp_path / "tiny.cpp"
    source.write_text("#include \"tiny.hpp\"\nextern \"C\" int tiny_three() { return three(); }\n")
    header = pch.PrecompiledHeader(folder, "key")
    output = compile_extension(source, tmp_path / f"tiny{extension_suffix()}", toolchain, [f"-I{tmp_path}"],
                               precompiled=header)
    assert "not a PCH file" in output
    assert (folder / "rejected").exists()
    assert (tmp_path / f"tiny{extension_suffix()}").is_file()
