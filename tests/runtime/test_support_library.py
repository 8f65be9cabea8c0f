"""kpc's support library (kpc.runtime.support_library): compiled once per compiler, flags and
source, reused by every module, rebuilt (never linked) when damaged, one build when several
threads ask at once; and host-space modules built on it compute and raise as before, with and
without the precompiled header.

The cache tests use a stand-in compiler (a script that writes the ``-o`` file and logs its
calls); the last test compiles for real (one support object, two modules)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from kpc.runtime import support_library
from kpc.runtime.support_library import support_object
from kpc.runtime.toolchain import CompileError

@pytest.fixture
def source(tmp_path):
    path = tmp_path / "kpc_support.cpp"
    path.write_text("int kpc_support_marker() { return 1; }\n")
    return path


def calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def build(compiler, tmp_path, source, flags=("-O3", "-fPIC")):
    return support_object(compiler, "GNU", "12.2.0", list(flags), source, cache_dir=tmp_path / "cache")


def test_built_once_then_reused(fake_compiler, tmp_path, source):
    compiler, log = fake_compiler()
    assert support_object(compiler, "GNU", "12.2.0", ["-O3", "-fPIC"], source, cache_dir=tmp_path / "cache",
                          build=False) is None
    first = build(compiler, tmp_path, source)
    assert first.is_file() and calls(log) == 1
    assert support_object(compiler, "GNU", "12.2.0", ["-O3", "-fPIC"], source, cache_dir=tmp_path / "cache",
                          build=False) == first
    assert "-c" in log.read_text().split() and str(source) in log.read_text()
    assert build(compiler, tmp_path, source) == first and calls(log) == 1
    # Other flags, or another source text, make another object.
    other = build(compiler, tmp_path, source, flags=("-O2", "-fPIC"))
    assert other != first and calls(log) == 2
    source.write_text("int kpc_support_marker() { return 2; }\n")
    assert build(compiler, tmp_path, source) not in (first, other) and calls(log) == 3
    assert not list((tmp_path / "cache" / "toolchain" / "support").glob(".*"))  # no staging left


@pytest.mark.parametrize("damage", ["truncate", "overwrite", "record"])
def test_damaged_object_is_rebuilt_not_used(fake_compiler, tmp_path, source, damage):
    compiler, log = fake_compiler()
    path = build(compiler, tmp_path, source)
    record = path.parent / support_library.RECORD
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[:5])
    elif damage == "overwrite":
        path.write_bytes(b"X" * path.stat().st_size)  # same size, other contents
    else:
        record.write_text("{ half-writ")
    rebuilt = build(compiler, tmp_path, source)
    assert calls(log) == 2
    assert rebuilt.read_bytes() == b"fake-compiler-output"
    assert json.loads(record.read_text())["size"] == rebuilt.stat().st_size


def test_concurrent_requests_build_once(fake_compiler, tmp_path, source):
    compiler, log = fake_compiler(delay=0.5)
    found, errors = [], []

    def ask():
        try:
            found.append(build(compiler, tmp_path, source))
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(set(found)) == 1 and calls(log) == 1


def test_concurrent_processes_build_once(fake_compiler, tmp_path, source):
    compiler, log = fake_compiler(delay=1.0)
    script = textwrap.dedent(f"""
        from pathlib import Path
        from kpc.runtime.support_library import support_object
        found = support_object({compiler!r}, "GNU", "12.2.0", ["-O3"], Path({str(source)!r}),
                               cache_dir=Path({str(tmp_path / 'cache')!r}))
        print(found, found.read_bytes().decode())
    """)
    processes = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
                 for _ in range(3)]
    outputs = [process.communicate(timeout=60)[0].strip() for process in processes]
    assert len(set(outputs)) == 1 and outputs[0].endswith(" fake-compiler-output")
    assert calls(log) == 1


def test_compiler_failure_raises_and_leaves_nothing(fake_compiler, tmp_path, source):
    compiler, log = fake_compiler(fail=True)
    with pytest.raises(CompileError, match="error: no"):
        build(compiler, tmp_path, source)
    root = tmp_path / "cache" / "toolchain" / "support"
    assert [p for p in root.iterdir() if p.name != "locks"] == []
    with pytest.raises(CompileError):  # asked again, it tries again (no failure is cached)
        build(compiler, tmp_path, source)
    assert calls(log) == 2


KERNELS = '''import numba
import numpy as np


@numba.njit(parallel=True)
def scale(x, a):
    for i in numba.prange(x.shape[0]):
        x[i] *= a


@numba.njit
def stats(x):
    out = np.empty(2)
    out[0] = x.min()
    out[1] = x.max()
    return out, x.sum() / x.shape[0]


@numba.njit
def ratio(a, b):
    return a // b
'''


@pytest.mark.compile
@pytest.mark.parametrize("pch_setting", ["0", "eager"])
def test_two_modules_share_one_support_object(tmp_path, monkeypatch, pch_setting):
    """Two modules in a fresh cache build the support object once and link it; their entries
    return arrays, tuples and numbers and raise kpc's errors as before."""
    from kpc.api import build as kpc_build

    cache = tmp_path / "cache"
    monkeypatch.setenv("KPC_CACHE_DIR", str(cache))
    monkeypatch.setenv("KPC_PCH", pch_setting)
    for name, body in (("first", KERNELS), ("second", KERNELS.replace("x[i] *= a", "x[i] *= a + 1.0"))):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"kern_{name}.py").write_text(body)
    signatures = ["scale(float64[::1], float64)", "stats(float64[::1])", "ratio(int64, int64)"]

    kpc_build(tmp_path / "first" / "kern_first.py", tmp_path / "out", signatures=signatures)
    records = list((cache / "toolchain" / "support").glob("*/support.json"))
    assert len(records) == 1
    record = json.loads(records[0].read_text())
    kpc_build(tmp_path / "second" / "kern_second.py", tmp_path / "out", signatures=signatures)
    assert list((cache / "toolchain" / "support").glob("*/support.json")) == records
    assert json.loads(records[0].read_text()) == record  # not rebuilt

    check = textwrap.dedent(f"""
        import sys, numpy as np
        sys.path.insert(0, {str(tmp_path / 'out')!r})
        import kern_first, kern_second
        x = np.arange(5.0); kern_first.scale(x, 3.0); y = np.arange(5.0); kern_second.scale(y, 3.0)
        print(x.tolist(), y.tolist())
        out, mean = kern_first.stats(np.array([2.0, -1.0, 5.0]))
        print(out.tolist(), mean, kern_first.ratio(7, 2))
        for call in (lambda: kern_first.ratio(1, 0), lambda: kern_first.scale(np.ones((2, 2)), 1.0),
                     lambda: kern_first.scale(np.ones(3, np.float32), 1.0)):
            try:
                call()
            except ZeroDivisionError as error:
                print("ZeroDivisionError", error)
            except TypeError as error:  # the drop-in's DispatchError or the entry's own
                print("TypeError", error)
    """)
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, KPC_CACHE_DIR=str(cache), KPC_STRICT="1"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "[0.0, 3.0, 6.0, 9.0, 12.0] [0.0, 4.0, 8.0, 12.0, 16.0]"
    assert lines[1] == "[-1.0, 5.0] 2.0 3"
    assert lines[2].startswith("ZeroDivisionError")
    assert lines[3].startswith("TypeError") and "'x'" in lines[3]
    assert lines[4].startswith("TypeError") and "'x'" in lines[4]


@pytest.mark.compile
def test_prepare_builds_what_the_first_module_then_uses(tmp_path, monkeypatch):
    """``kpc cache prepare`` (kpc.api.prepare_toolchain) builds the support object and the PCH
    under the keys a module compiled later asks for: that module builds neither."""
    from kpc.api import build as kpc_build
    from kpc.api import prepare_toolchain

    cache = tmp_path / "cache"
    monkeypatch.setenv("KPC_CACHE_DIR", str(cache))
    monkeypatch.delenv("KPC_PCH", raising=False)
    done = prepare_toolchain("openmp")
    assert done["support"].is_file() and done["pch"] is not None and done["pch"].is_file()
    support_before = done["support"].stat().st_mtime_ns
    assert prepare_toolchain("openmp")["support"] == done["support"]  # the second time: found

    (tmp_path / "kern_prepared.py").write_text(KERNELS)
    kpc_build(tmp_path / "kern_prepared.py", tmp_path / "out", signatures=["scale(float64[::1], float64)"])
    assert list((cache / "toolchain" / "support").glob("*/kpc_support.o")) == [done["support"]]
    assert done["support"].stat().st_mtime_ns == support_before
    pch_root = cache / "toolchain" / "pch"
    assert list(pch_root.glob("*/*.gch")) == [done["pch"]]
    # The module found the PCH by its key: it did not note a first module of another flag set.
    assert not list((pch_root / "wanted").glob("*"))
    # cuda prepares the host builds of GPU modules: it needs a CUDA Kokkos to know they exist
    with pytest.raises(RuntimeError, match="needs a Kokkos built with Cuda"):
        prepare_toolchain("cuda")


@pytest.mark.compile
def test_a_support_library_that_fails_to_compile_runs_numba_at_the_first_call(tmp_path, monkeypatch):
    """Only the support library fails (its translation unit, unlike a module's, has no
    KPC_MODULE_NAME): the first call warns with the compiler's error and runs the Numba function,
    and no object is left to link."""
    from kpc import KpcFallbackWarning
    from kpc.build_file import build as driver_build

    header = tmp_path / "no_support.h"
    header.write_text("#ifndef KPC_MODULE_NAME\n#error kpc test: the support library does not compile\n#endif\n")
    monkeypatch.setenv("KPC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KPC_CXXFLAGS", f"-include {header}")
    monkeypatch.delenv("KPC_STRICT", raising=False)
    (tmp_path / "kern_nosupport.py").write_text(KERNELS)
    report = driver_build(tmp_path / "kern_nosupport.py", target="kokkos", out=tmp_path / "out")
    spec = importlib.util.spec_from_file_location("kern_nosupport_dropin", report.output)
    dropin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dropin)
    with pytest.warns(KpcFallbackWarning, match=r"the C\+\+ compiler failed on ratio\(int64, int64\)"):
        assert dropin.ratio(7, 2) == 3
    (record,) = dropin._kpc.fallbacks.values()
    assert "kpc test: the support library does not compile" in record["fallback"]
    assert not list((tmp_path / "cache" / "toolchain" / "support").glob("*/kpc_support.o"))
