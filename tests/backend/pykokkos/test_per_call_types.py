"""Per-call argument types of the PyKokkos target (``kpc.runtime.pykokkos_types``).

A module built without signatures, called with other argument types than it was built
for, gets the function from a module kpc writes for those types on first use (real
kpc builds; the modules run on upstream PyKokkos when it is importable, and on the
contract interpreter, a pure-Python model of upstream's rules, everywhere).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from kpc.api import build_pykokkos
from kpc.runtime.fallback import KpcFallbackWarning

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "corpus"))

from contract_interpreter import ContractInterpreter  # noqa: E402
from test_corpus_pykokkos import require_upstream  # noqa: E402

SOURCE = '''
import numba
import numpy as np


@numba.njit
def scale(x, a):
    for i in range(x.shape[0]):
        x[i] = x[i] * a
    return x.sum()


@numba.njit(parallel=True)
def halves(x):
    total = 0
    for i in numba.prange(x.shape[0]):
        total += x[i] // 2
    return total


@numba.njit
def first(x):
    return x[0] * 2


@numba.njit(["f8(f8[:])", "f4(f4[:])"])
def mean(y):
    s = 0.0
    for i in range(y.shape[0]):
        s += y[i]
    return s / y.shape[0]
'''


@pytest.fixture
def built(tmp_path, monkeypatch):
    monkeypatch.setenv("KPC_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "kernels.py"
    source.write_text(SOURCE)
    result = build_pykokkos(source, tmp_path / "out")
    assert not result.kept_as_numba, result.summary()
    spec = importlib.util.spec_from_file_location("kpc_per_call_numba", source)
    numba_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(numba_module)
    return result.output, numba_module, tmp_path / "cache" / "pykokkos"


def _interpreted(path, name="kpc_per_call_interpreted"):
    return ContractInterpreter().load(path, name=name)  # it runs the written modules on itself too


def _imported(path, name="kpc_per_call_upstream"):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CALLS = [
    ("scale", lambda: (np.arange(6.0), 2.5)),  # the built types
    ("scale", lambda: (np.arange(6), 3)),  # int64 array, Python int
    ("scale", lambda: (np.arange(6, dtype=np.float32), np.float32(0.5))),
    ("scale", lambda: (np.arange(12.0)[::2], 2)),  # non-contiguous float64, an int scale
    ("halves", lambda: (np.arange(-7, 9),)),
    ("halves", lambda: (np.linspace(-3.0, 4.0, 9),)),
    ("halves", lambda: (np.arange(9, dtype=np.int32),)),
    ("mean", lambda: (np.arange(5.0),)),
    ("mean", lambda: (np.arange(5, dtype=np.float32),)),  # the second eager signature
]


def _same_as_numba(module, numba_module):
    for name, make in CALLS:
        ours, theirs = make(), make()
        got, want = getattr(module, name)(*ours), getattr(numba_module, name)(*theirs)
        assert type(got) is type(want) or np.asarray(got).dtype == np.asarray(want).dtype, (name, got, want)
        assert got == pytest.approx(want, rel=1e-6), (name, got, want)
        for a, b in zip(ours, theirs):
            if isinstance(a, np.ndarray):
                assert a.dtype == b.dtype and np.allclose(a, b), (name, a, b)


def test_other_types_get_modules_written_for_them(built):
    path, numba_module, folder = built
    module = _interpreted(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KpcFallbackWarning)
        _same_as_numba(module, numba_module)
    keys = {(name, key) for name, key in module._kpc_types.specializations}
    assert ("scale", (("array", "int64", 1), ("scalar", "int64"))) in keys
    assert ("mean", (("array", "float32", 1),)) in keys
    assert not any(key == (("array", "float64", 1), ("scalar", "float64")) for name, key in keys if name == "scale")
    written = sorted(folder.glob("kernels_*.py"))
    assert written
    for file in written:  # named by content: upstream's own cache goes by file name, not text
        assert file.stem.split("_")[-1] == hashlib.sha256(file.read_bytes()).hexdigest()[:16]


def test_a_new_process_finds_the_written_modules_without_compiling(built):
    path, numba_module, _ = built
    _same_as_numba(_interpreted(path, "first_process"), numba_module)
    module = _interpreted(path, "second_process")
    module._kpc_types.compiler = None  # a build now would fail: the cache's index must answer
    with warnings.catch_warnings():
        warnings.simplefilter("error", KpcFallbackWarning)
        _same_as_numba(module, numba_module)


def test_arguments_kpc_cannot_take_run_numba_with_a_warning(built, monkeypatch):
    path, numba_module, _ = built
    module = _interpreted(path)
    with pytest.warns(KpcFallbackWarning, match=r"first\(list\).*argument 'x' must be a NumPy array"):
        assert module.first([1.5, 2.0]) == numba_module.first([1.5, 2.0]) == 3.0
    monkeypatch.setenv("KPC_STRICT", "1")
    with pytest.raises(TypeError, match="argument 'x' must be a NumPy array"):
        _interpreted(path, "strict").first([1.5])


def test_the_numba_fallback_goes_through_the_modules_on_host_helper(built):
    """In a Cuda-space module (``_on_host`` among its names) the Numba function a fallback runs
    takes CuPy arguments as host copies; the helper itself is tested in test_pykokkos_emitter."""
    path, numba_module, _ = built
    module = _interpreted(path)
    runtime = module._kpc_types
    seen = []

    def on_host(function):
        seen.append(function)
        return function

    runtime.namespace["_on_host"] = on_host
    with pytest.warns(KpcFallbackWarning):
        assert module.first([1.5, 2.0]) == 3.0
    assert [f.__name__ for f in seen] == ["first"]


def test_eager_signatures_take_only_their_types(built):
    path, numba_module, _ = built
    module = _interpreted(path)
    assert module.mean(np.arange(4, dtype=np.float32)) == numba_module.mean(np.arange(4, dtype=np.float32))
    with pytest.raises(TypeError, match="y: this module was built for a 1-d float64 array"):
        module.mean(np.arange(4))  # Numba: "No matching definition"
    with pytest.raises(TypeError):
        numba_module.mean(np.arange(4))


def test_upstream_pykokkos_takes_other_types(built, tmp_path, monkeypatch):
    require_upstream()
    path, numba_module, _ = built
    monkeypatch.chdir(tmp_path)  # upstream compiles into ./pk_cpp
    with warnings.catch_warnings():
        warnings.simplefilter("error", KpcFallbackWarning)
        _same_as_numba(_imported(path), numba_module)
    assert os.path.isdir(tmp_path / "pk_cpp")


def test_a_kernel_whose_guess_does_not_type_is_typed_at_each_call(tmp_path, monkeypatch):
    """``values[order]`` needs an integer ``order``; the float64 guess does not type, so the module
    types the kernel at each call (as the Kokkos target does) instead of keeping it as Numba."""
    monkeypatch.setenv("KPC_CACHE_DIR", str(tmp_path / "cache"))
    corpus = HERE.parent.parent / "corpus" / "guessed_types.py"
    result = build_pykokkos(corpus, tmp_path / "out")
    statuses = {k.name: k.status for k in result.kernels}
    assert statuses == {"bin_counts": "translated", "strided_sum": "translated", "low_bits": "translated",
                        "gather_sum": "lazy"}, result.summary()
    assert not result.violations
    spec = importlib.util.spec_from_file_location("kpc_guessed_numba", corpus)
    numba_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(numba_module)
    module = _interpreted(result.output, "kpc_guessed_interpreted")
    values, order = np.linspace(0.0, 1.0, 10), np.array([3, 1, 4, 1, 5, 9, 2, 6])
    with warnings.catch_warnings():
        warnings.simplefilter("error", KpcFallbackWarning)
        got = module.gather_sum(values, order)
    assert got == pytest.approx(numba_module.gather_sum(values, order), rel=1e-12)
    assert ("gather_sum", (("array", "float64", 1), ("array", "int64", 1))) in module._kpc_types.specializations
