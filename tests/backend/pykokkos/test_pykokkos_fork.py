"""A process forked after its parent imported a kpc PyKokkos module fails fast, never hangs.

Upstream PyKokkos initializes Kokkos (with its OpenMP threads) at import; a forked child that
called a workunit would wait forever for threads that do not exist in it. The child's first
call of a translated kernel raises a RuntimeError that names the 'spawn' start method (kpc's
``ForkedChild`` where kpc is installed, as the Kokkos C++ target raises), before any PyKokkos
call, and before the per-call types write a module for new argument types; the parent goes on.

Each child runs one scenario and reports through a pipe; the parent waits for it at most
``CHILD_TIMEOUT`` seconds, then kills it, so a regression fails instead of stalling the suite.
The scenarios run on the contract interpreter (a pure-Python model of upstream, which does not
hang: the tests check the error) and on upstream PyKokkos when it is importable.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from kpc.api import build_pykokkos

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "corpus"))

from contract_interpreter import ContractInterpreter  # noqa: E402
from test_corpus_pykokkos import require_upstream  # noqa: E402

CHILD_TIMEOUT = 60

SOURCE = '''
import numba


@numba.njit(parallel=True)
def total(x):
    s = 0.0
    for i in numba.prange(x.shape[0]):
        s += x[i]
    return s
'''

FORKED = "ForkedChild: kpc: this process was forked from one that had imported PyKokkos"


@pytest.fixture
def built(tmp_path, monkeypatch):
    monkeypatch.setenv("KPC_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "kernels.py"
    source.write_text(SOURCE)
    result = build_pykokkos(source, tmp_path / "out")
    assert not result.kept_as_numba, result.summary()
    return result.output, tmp_path / "cache"


def in_child(scenario) -> str:
    """``scenario()``'s result in a forked child, as text: its value, or ``Type: message`` when it raised."""
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():  # Python 3.12 warns about forking a process with threads
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            try:
                text = repr(scenario())
            except BaseException as error:  # noqa: BLE001 - reported to the parent
                text = f"{type(error).__name__}: {error}"
                if isinstance(error, RuntimeError):
                    text += " [RuntimeError]"
            os.write(write_end, text.encode())
        finally:
            os._exit(0)
    os.close(write_end)
    deadline = time.monotonic() + CHILD_TIMEOUT
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read_end)
            pytest.fail(f"the forked child still ran after {CHILD_TIMEOUT} s: it hangs")
        time.sleep(0.05)
    with os.fdopen(read_end, "rb") as pipe:
        return pipe.read().decode()


def _written(cache: Path) -> list:
    return sorted((cache / "pykokkos").glob("*.py")) if (cache / "pykokkos").is_dir() else []


def _forked_child_scenarios(module, load_again, cache: Path) -> None:
    x = np.arange(10.0)
    assert module.total(x) == 45.0
    outcome = in_child(lambda: module.total(x))
    assert outcome.startswith(FORKED) and "'spawn'" in outcome and outcome.endswith("[RuntimeError]"), outcome
    # new argument types: the per-call types raise before writing a module for them
    before = _written(cache)
    assert in_child(lambda: module.total(np.arange(10))).startswith(FORKED)
    assert _written(cache) == before
    # the module imported again in the child: pykokkos, imported already, knows which process initialized it
    assert in_child(lambda: load_again().total(x)).startswith(FORKED)

    def without_kpc():  # the generated module stands alone: a plain RuntimeError where kpc is absent
        sys.modules["kpc.runtime.kokkos_session"] = None
        return module.total(x)

    outcome = in_child(without_kpc)
    assert outcome.startswith("RuntimeError: kpc: this process was forked") and "'spawn'" in outcome, outcome
    # the parent goes on, with the built types and with new ones
    assert module.total(x) == 45.0
    assert module.total(np.arange(10)) == 45.0


def test_forked_child_raises_on_the_contract_interpreter(built):
    path, cache = built
    module = ContractInterpreter().load(path, name="kpc_fork_interpreted")

    def load_again():  # the interpreter models a fresh pykokkos per load: hand it the one imported already
        interpreter = ContractInterpreter()
        interpreter.namespace = lambda: module.pk
        return interpreter.load(path, name="kpc_fork_interpreted_again")

    _forked_child_scenarios(module, load_again, cache)


def test_child_forked_before_the_import_runs_kernels(built):
    """A child that imports the module (and PyKokkos) itself initialized its own Kokkos: its kernels run.

    The contract interpreter only: the test process imported upstream PyKokkos already
    (``require_upstream``), so a child of it could not import it afresh.
    """
    path, _ = built
    assert in_child(lambda: ContractInterpreter().load(path, name="kpc_fork_in_child").total(np.arange(4.0))) \
        == "6.0"


def test_upstream_pykokkos_forked_child_raises_instead_of_hanging(built, tmp_path, monkeypatch):
    require_upstream()
    path, cache = built
    monkeypatch.chdir(tmp_path)  # upstream compiles into ./pk_cpp

    def load(name):
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    _forked_child_scenarios(load("kpc_fork_upstream"), lambda: load("kpc_fork_upstream_again"), cache)
