"""kpc beyond one process, as users run it: the heat example under ``mpiexec -n 2`` gives the one
process's field bit for bit with each rank's Kokkos sized to its share of the node; the Dask example
on a LocalCluster of two process workers matches Numba, each worker's Kokkos taking the worker's
threads, with functions pickled by reference; eight processes making the same first call on an
empty build cache all get the right result from one compile.

Each scenario runs in fresh processes (Kokkos is initialized once per process), with timeouts.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kpc

pytestmark = pytest.mark.compile

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "distributed"


def environment(**extra) -> dict:
    """The tests' environment for a child: this kpc first on the path, no thread settings."""
    environ = {name: value for name, value in os.environ.items()
               if name not in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "KPC_NUM_THREADS")}
    kpc_root = str(Path(kpc.__file__).resolve().parent.parent)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [kpc_root, os.environ.get("PYTHONPATH")]))
    environ.update(extra)
    return environ


def mpiexec() -> str:
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install kpc[mpi]; make test installs it)")
    found = Path(sys.executable).parent / "mpiexec"
    if not found.exists():
        pytest.skip("no mpiexec beside this Python (pip install kpc[mpi] installs MPICH's)")
    return str(found)


def run(command, timeout=240, **extra) -> str:
    completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=environment(**extra),
                               cwd=REPO)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed.stdout


def test_heat_example_on_two_ranks_equals_one_process(tmp_path):
    heat = [str(EXAMPLES / "heat_mpi.py"), "--rows", "66", "--cols", "50", "--steps", "12", "--out", str(tmp_path)]
    one = run([sys.executable, *heat])
    two = run([mpiexec(), "-n", "2", sys.executable, *heat, "--check"])
    field = [line for line in one.splitlines() if line.startswith("field sum")]
    assert field and field[0] in two.splitlines()
    assert "check: 2 ranks equal one process bit for bit" in two
    threads = max(1, (os.cpu_count() or 1) // 2)
    for rank in (0, 1):
        assert f"rank {rank}: node-local rank {rank}, {threads} threads, host" in two


def test_doctor_reports_each_rank_and_its_threads():
    report = run([mpiexec(), "-n", "2", sys.executable, "-m", "kpc.cli", "doctor"], timeout=120)
    threads = max(1, (os.cpu_count() or 1) // 2)
    for rank in (0, 1):
        assert f"Rank        {rank} of 2 (MPICH/Intel MPI), node-local {rank} of 2" in report
    assert report.count(f"Threads     {threads} ({os.cpu_count()} cores / 2 ranks on this node)") == 2


def test_dask_local_cluster_of_two_process_workers(tmp_path):
    pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install kpc[dask])")
    output = run([sys.executable, str(EXAMPLES / "dask_blocks.py"), "--size", "256", "--chunk", "64", "--workers", "2",
                  "--threads", "1", "--repeats", "1", "--out", str(tmp_path)])
    assert "LocalCluster 2 workers x 1 threads" in output
    assert output.count("Kokkos 1 threads (Dask worker threads)") == 2
    assert "match" in output.splitlines()[-1]
    # The same module: pickled by reference, Client.map on process workers, delayed on threads.
    script = textwrap.dedent(f"""
        import pickle, sys
        import numpy as np
        import dask
        from distributed import Client, LocalCluster
        sys.path.insert(0, {str(tmp_path)!r})
        import heat_kernels as k
        assert pickle.loads(pickle.dumps(k.smooth_energy)) is k.smooth_energy
        blocks = [np.full((8, 8), float(b)) for b in range(4)]
        expected = [k.smooth_energy(b) for b in blocks]
        threaded = dask.compute(*[dask.delayed(k.smooth_energy)(b) for b in blocks], scheduler="threads")
        with LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None) as cluster, \\
                Client(cluster) as client:
            mapped = client.gather(client.map(k.smooth_energy, blocks))
            threads = client.run(lambda: __import__("kpc.runtime.kokkos_session").runtime.kokkos_session.layout()["threads"])
        print(all(np.array_equal(a, b) for a, b in zip(expected, threaded)),
              all(np.array_equal(a, b) for a, b in zip(expected, mapped)), sorted(threads.values()))
    """)
    lines = run([sys.executable, "-c", script], PYTHONPATH=os.pathsep.join([str(tmp_path), environment()["PYTHONPATH"]]))
    assert lines.split("\n")[-2] == "True True [2, 2]"


def test_eight_processes_first_call_on_an_empty_cache(tmp_path):
    """Eight processes released at once make the same first call (the module built without
    signatures, so that call compiles): every one right, the module compiled once, no warning."""
    out, cache, log, gate = tmp_path / "out", tmp_path / "cache", tmp_path / "compiles.log", tmp_path / "go"
    kpc.build(EXAMPLES / "heat_kernels.py", out=out, write_report=False)
    compiler = tmp_path / "c++"
    compiler.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec {os.environ.get("CXX", "c++")} "$@"\n')
    compiler.chmod(0o755)
    script = textwrap.dedent(f"""
        import os, sys, time, warnings
        import numpy as np
        warnings.simplefilter("error")
        sys.path.insert(0, {str(out)!r})
        import heat_kernels as k
        while not os.path.exists({str(gate)!r}):
            time.sleep(0.01)
        u = np.arange(64.0).reshape(8, 8)
        v = u.copy()
        k.heat_step(u, v, 0.2)
        w = u.copy()
        w[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.2 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
        print(np.array_equal(v, w))
    """)
    environ = environment(KPC_CACHE_DIR=str(cache), CXX=str(compiler), OMP_NUM_THREADS="1")
    children = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=environ) for _ in range(8)]
    gate.touch()
    results = [child.communicate(timeout=300) for child in children]
    assert [(child.returncode, stdout, stderr) for child, (stdout, stderr) in zip(children, results)] == \
        [(0, "True\n", "")] * 8
    outputs = [re.search(r"-o (\S+)", line) for line in log.read_text().splitlines()]
    outputs = [Path(match.group(1)).name for match in outputs if match]
    assert len([name for name in outputs if re.fullmatch(r"kpc_[0-9a-f]+\..*\.so", name)]) == 1, outputs
    assert outputs.count("kpc_support.o") == 1, outputs
    assert len(list((cache / "modules").glob("*/*"))) == 1
