"""The build cache: keys cover what a binary depends on; entries are written atomically,
built once under concurrency, verified before loading and rebuilt when damaged; a
compile error names the kept generated source and the user's line."""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import sys
import time
from pathlib import Path

import pytest

from kpc.runtime.cache import BuildCache, BuildFailed, cache_key
from kpc.runtime.kokkos import KokkosInstall
from kpc.runtime.toolchain import Toolchain

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "backend"))
import handmade  # noqa: E402

INSTALL = KokkosInstall(Path("/opt/kokkos"), Path("/opt/kokkos/lib/cmake/Kokkos"), Path("/opt/kokkos/include"),
                        Path("/opt/kokkos/lib"), "3.4.01", ("OpenMP", "Serial"), "test")
TOOLCHAIN = Toolchain("/usr/bin/c++", "GNU", "12.2.0", "17", ("-fopenmp",), ("KOKKOS_DEPENDENCE",),
                      ("/opt/kokkos/include",), ("-fopenmp",), "/opt/kokkos", "3.4.01", "cmake")


def key_of(module=None, entries=("potential",), space="openmp", install=INSTALL, toolchain=TOOLCHAIN):
    from kpc.api import kokkos_key_material
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit

    module = module or handmade.lennard_jones_module()
    unit = emit_translation_unit([Specialization(module, list(entries))], space=space)
    return cache_key(kokkos_key_material(unit, install, toolchain))


def test_key_is_stable():
    assert key_of() == key_of()


def test_key_changes_with_source_signature_space_kokkos_and_compiler():
    from kpc.ir.types import FLOAT32

    base = key_of()
    changed = {
        "source": key_of(handmade.lennard_jones_module(path="other.py")),
        "signature": key_of(handmade.lennard_jones_module(layout="A")),
        "dtype": key_of(handmade.lennard_jones_module(dtype=FLOAT32)),
        "space": key_of(space="serial"),
        "kokkos version": key_of(install=dataclasses.replace(INSTALL, version="4.2.00")),
        "kokkos path": key_of(install=dataclasses.replace(INSTALL, root=Path("/other/kokkos"))),
        "kokkos backends": key_of(install=dataclasses.replace(INSTALL, backends=("Serial",))),
        "compiler": key_of(toolchain=dataclasses.replace(TOOLCHAIN, compiler_version="13.1.0")),
        "flags": key_of(toolchain=dataclasses.replace(TOOLCHAIN, compile_options=("-fopenmp", "-g"))),
    }
    assert all(key != base for key in changed.values()), changed
    assert len(set(changed.values())) == len(changed)


def fake_compile(delay: float = 0.0, log: Path | None = None):
    def compile_source(source_path, library, module_name):
        time.sleep(delay)
        if log is not None:
            with open(log, "a") as stream:
                stream.write(f"{os.getpid()}\n")
        Path(library).write_bytes(b"\x7fELF" + Path(source_path).read_bytes() * 100)
    return compile_source


def test_entry_is_written_atomically_with_a_manifest_written_last(tmp_path):
    cache = BuildCache(tmp_path)
    entry, built = cache.get_or_build("a" * 40, "int f();", fake_compile(), {"python_source": "m.py"})
    assert built
    assert entry.library.exists() and entry.source.read_text() == "int f();"
    assert entry.manifest["sha256"] and entry.manifest["python_source"] == "m.py"
    assert not any((tmp_path / "tmp").iterdir())
    assert cache.get_or_build("a" * 40, "int f();", fake_compile(), {})[1] is False


def _build_in_child(root, log, results):
    cache = BuildCache(Path(root))
    entry, built = cache.get_or_build("b" * 40, "int g();", fake_compile(1.0, Path(log)), {})
    results.put((built, entry.manifest["sha256"]))


def test_two_processes_building_the_same_key_both_succeed_and_compile_once(tmp_path):
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    log = tmp_path / "compiles.log"
    children = [context.Process(target=_build_in_child, args=(str(tmp_path), str(log), results)) for _ in range(2)]
    for child in children:
        child.start()
    for child in children:
        child.join(60)
        assert child.exitcode == 0
    outcomes = [results.get(timeout=5) for _ in children]
    assert sorted(built for built, _ in outcomes) == [False, True]
    assert len({digest for _, digest in outcomes}) == 1
    assert len(log.read_text().split()) == 1


def test_threads_of_one_process_building_the_same_key_compile_once(tmp_path):
    """The file lock is a POSIX record lock, which a process holds for all its threads: the
    cache's per-key thread lock keeps them apart."""
    import threading

    log = tmp_path / "compiles.log"
    outcomes = []

    def build():
        outcomes.append(BuildCache(tmp_path).get_or_build("d" * 40, "int h();", fake_compile(0.5, log), {})[1])

    threads = [threading.Thread(target=build) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(outcomes) == [False, False, False, True]
    assert len(log.read_text().split()) == 1


def _build_without_record_locks(root, log, results):
    import errno
    import fcntl

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    fcntl.lockf = no_locks
    entry, built = BuildCache(Path(root)).get_or_build("f" * 40, "int m();", fake_compile(0.5, Path(log)), {})
    results.put(built)


def test_without_record_locks_the_cache_locks_with_a_directory(tmp_path):
    """On NFS mounted without a lock manager lockf fails with ENOLCK: three processes still build once."""
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    log = tmp_path / "compiles.log"
    children = [context.Process(target=_build_without_record_locks, args=(str(tmp_path), str(log), results))
                for _ in range(3)]
    for child in children:
        child.start()
    for child in children:
        child.join(60)
        assert child.exitcode == 0
    assert sorted(results.get(timeout=5) for _ in children) == [False, False, True]
    assert len(log.read_text().split()) == 1
    assert not list((tmp_path / "locks").glob("*.held"))


def test_an_entry_another_node_renamed_into_place_first_is_kept(tmp_path):
    """A node whose stale listing missed the entry builds it again (``_build``, which the lock's
    holder runs when its lookup finds nothing); its rename finds the entry there and keeps it."""
    cache = BuildCache(tmp_path)
    first, _ = cache.get_or_build("e" * 40, "int k();", fake_compile(), {})
    entry = BuildCache(tmp_path)._build("e" * 40, "int k();", fake_compile(), {}, ".so")
    assert entry.manifest["sha256"] == first.manifest["sha256"]
    assert not any((tmp_path / "tmp").iterdir())


@pytest.mark.parametrize("damage", ["truncate", "delete manifest", "garble manifest", "flip a byte"])
def test_damaged_entry_is_never_loaded_and_is_rebuilt(tmp_path, damage):
    cache = BuildCache(tmp_path)
    key = "c" * 40
    entry, _ = cache.get_or_build(key, "int h();", fake_compile(), {})
    library = entry.library
    if damage == "truncate":
        library.write_bytes(library.read_bytes()[:10])
    elif damage == "delete manifest":
        (entry.path / "manifest.json").unlink()
    elif damage == "garble manifest":
        (entry.path / "manifest.json").write_text("{not json")
    else:
        data = bytearray(library.read_bytes())
        data[len(data) // 2] ^= 0xFF
        library.write_bytes(bytes(data))
    assert BuildCache(tmp_path).lookup(key) is None
    rebuilt, built = BuildCache(tmp_path).get_or_build(key, "int h();", fake_compile(), {})
    assert built and BuildCache(tmp_path).lookup(key) is not None


def test_cache_listing_and_clearing(tmp_path):
    cache = BuildCache(tmp_path)
    for letter in "de":
        cache.get_or_build(letter * 40, "x", fake_compile(), {"python_source": f"{letter}.py"})
    assert [key[0] for key, _, _ in cache.entries()] == ["e", "d"]
    assert cache.clear("d") == 1
    assert [key[0] for key, _, _ in cache.entries()] == ["e"]
    for folder in ("toolchain/pch/abc", "toolchain/support/abc", "numba/user_module"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "data").write_text("x")
    (tmp_path / "toolchain" / "probe.json").write_text("{}")
    assert cache.clear() == 1 and cache.entries() == []
    # precompiled headers, the support library and Numba's cache go too; the toolchain probe stays
    assert not (tmp_path / "toolchain" / "pch").exists() and not (tmp_path / "numba").exists()
    assert not (tmp_path / "toolchain" / "support").exists()
    assert (tmp_path / "toolchain" / "probe.json").exists()


@pytest.mark.compile
def test_compile_error_names_the_kept_source_and_the_users_line(tmp_path):
    from kpc.runtime.kokkos import find_kokkos
    from kpc.runtime.toolchain import compile_extension, toolchain_for

    toolchain = toolchain_for(find_kokkos())
    source = '#line 7 "kernels.py"\nint broken() { return undeclared_name; }\n'

    def compile_source(source_path, library, module_name):
        compile_extension(source_path, library, toolchain)

    with pytest.raises(BuildFailed) as raised:
        BuildCache(tmp_path).get_or_build("f" * 40, source, compile_source, {})
    message = str(raised.value)
    assert "kernels.py:7" in message and "undeclared_name" in message
    kept = raised.value.source
    assert str(kept) in message and kept.read_text() == source
    assert BuildCache(tmp_path).lookup("f" * 40) is None


BUILD_SCRIPT = """
import sys
from kpc.api import build
result = build({path!r}, sys.argv[1], signatures=["sum3d(float64[:, :, ::1])"])
print(result.specializations[0].built, result.specializations[0].key)
"""


@pytest.mark.compile
def test_two_processes_compiling_the_same_module_both_succeed(tmp_path):
    import subprocess

    source = Path(__file__).resolve().parent.parent / "corpus" / "sum3d.py"
    environ = dict(os.environ, KPC_CACHE_DIR=str(tmp_path / "cache"))
    script = BUILD_SCRIPT.format(path=str(source))
    children = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path / f"out{k}")], env=environ,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(2)]
    outputs = [child.communicate(timeout=600) for child in children]
    assert [child.returncode for child in children] == [0, 0], [err for _, err in outputs]
    built = sorted(out.split()[0] for out, _ in outputs)
    keys = {out.split()[1] for out, _ in outputs}
    assert built == ["False", "True"] and len(keys) == 1
