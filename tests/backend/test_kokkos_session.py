"""Kokkos is initialized once per process for every kpc module, with the thread count of
OMP_NUM_THREADS (else NUMBA_NUM_THREADS), without Kokkos' OMP_PROC_BIND warning, shared
by every module (one session), and finalized cleanly at exit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kpc.runtime.kokkos_session import thread_count

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def test_thread_count_prefers_omp_then_numba():
    assert thread_count({"OMP_NUM_THREADS": "3", "NUMBA_NUM_THREADS": "5"}) == 3
    assert thread_count({"NUMBA_NUM_THREADS": "5"}) == 5
    assert thread_count({"OMP_NUM_THREADS": "4,2"}) == 4
    assert thread_count({"OMP_NUM_THREADS": "junk"}) == -1


@pytest.fixture(scope="module")
def two_modules(tmp_path_factory):
    from kpc.api import build

    out = tmp_path_factory.mktemp("session")
    build(CORPUS / "sum2d.py", out, signatures=["sum2d(float64[:, ::1])"])
    build(CORPUS / "sum3d.py", out, signatures=["sum3d(float64[:, :, ::1])"])
    return out


SCRIPT = """
import sys, numpy as np
sys.path.insert(0, {out!r})
import sum2d, sum3d
from kpc.runtime import kokkos_session
print(sum2d.sum2d(np.ones((3, 4))), sum3d.sum3d(np.ones((2, 3, 4))))
print(kokkos_session.concurrency(), kokkos_session._state["owned"])
import kpc.runtime.loader as loader
modules = list(loader._loaded.values())
# every module shares the session: each answers through it, from a thread that is not Kokkos' master too
import threading
answers = []
worker = threading.Thread(target=lambda: answers.extend(m._kpc_concurrency() for m in modules))
worker.start(); worker.join()
print(len(modules), all(m._kpc_is_initialized() for m in modules) and answers == [kokkos_session.concurrency()] * 2)
"""


@pytest.mark.compile
@pytest.mark.parametrize("env,threads", [({"OMP_NUM_THREADS": "2"}, 2), ({"NUMBA_NUM_THREADS": "1"}, 1)])
def test_one_initialization_for_all_modules(two_modules, env, threads):
    environ = {k: v for k, v in os.environ.items()
               if k not in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OMP_PROC_BIND")}
    environ.update(env)
    completed = subprocess.run([sys.executable, "-c", SCRIPT.format(out=str(two_modules))],
                               capture_output=True, text=True, timeout=300, env=environ)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split("\n")[:3] == ["12.0 24.0", f"{threads} True", "2 True"]
    assert completed.stderr == ""


BORROW_PROBE = r"""
#include "kpc_compat.hpp"

#include <cstdio>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

// Which UniqueToken (hence ScatterView copy) each OpenMP thread of a region gets.
static void probe() {
  std::mutex lock;
  std::set<std::pair<int, int>> ids;
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::OpenMP>(0, 1000), [&](int) {
    Kokkos::Experimental::UniqueToken<Kokkos::OpenMP, Kokkos::Experimental::UniqueTokenScope::Global> token;
    std::lock_guard<std::mutex> guard(lock);
    ids.insert({omp_get_thread_num(), token.acquire()});
  });
  for (auto id : ids) std::printf("%d:%d ", id.first, id.second);
  std::printf("\n");
}

int main() {
  kpc::initialize(2);
  void* master = kpc::host_space_master();
  probe();
  std::thread([master] {
    kpc::borrowed_host_space host(master);
    probe();
  }).join();
  Kokkos::finalize();
}
"""


@pytest.mark.compile
def test_a_borrowing_thread_runs_regions_with_distinct_thread_ids(tmp_path):
    """Another thread's OpenMP team gets the ids Kokkos gave the master's team (one ScatterView
    copy per thread), not Kokkos' default 0 for every thread."""
    from kpc.runtime.kokkos import find_kokkos

    install = find_kokkos()
    if "OpenMP" not in " ".join(install.backends):
        pytest.skip("this Kokkos has no OpenMP space")
    source = tmp_path / "probe.cpp"
    source.write_text(BORROW_PROBE)
    headers = Path(__file__).resolve().parents[2] / "kpc" / "backend" / "kokkos"
    compiler = os.environ.get("CXX", "c++")
    subprocess.run([compiler, "-std=c++17", "-fopenmp", f"-I{headers}", f"-I{install.include_dir}", str(source),
                    f"-L{install.lib_dir}", "-lkokkoscore", "-ldl", f"-Wl,-rpath,{install.lib_dir}",
                    "-o", str(tmp_path / "probe")], check=True, timeout=300)
    completed = subprocess.run([str(tmp_path / "probe")], capture_output=True, text=True, timeout=60,
                               env=dict(os.environ, OMP_PROC_BIND="false"))
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split("\n")[:2] == ["0:0 1:1 ", "0:0 1:1 "]
