"""kpc functions run from any Python thread, concurrently, with the GIL released while a
kernel runs; a process forked after its parent ran kpc fails fast (never hangs) and names
the 'spawn' start method; a spawned one works.

Each scenario runs in a fresh interpreter (which thread initializes Kokkos matters), with
a timeout so that a hang fails the test instead of stalling the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.compile

KERNELS = Path(__file__).resolve().parent / "threads_kernels.py"
SIGNATURES = [
    "total(float64[::1])",
    "churn(float64[::1], int64)",
    "count_labels(int64[::1], int64[::1])",
    "floor_quotients(int64[::1], int64)",
]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    from kpc.api import build

    out = tmp_path_factory.mktemp("threads")
    build(KERNELS, out, signatures=SIGNATURES)
    return out


def run(out, body: str) -> list:
    """Run ``body`` in a fresh interpreter that imports the built module as ``k``; its output lines."""
    script = "import sys, threading, numpy as np\n" f"sys.path.insert(0, {str(out)!r})\n" "import threads_kernels as k\n"
    environ = dict(os.environ, OMP_NUM_THREADS="2")
    completed = subprocess.run([sys.executable, "-c", script + textwrap.dedent(body)], capture_output=True,
                               text=True, timeout=60, env=environ)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.split("\n")[:-1]


def test_four_threads_calling_at_once(out):
    lines = run(out, """
        a = np.arange(100000.0)
        idx = np.arange(100000) % 7
        results, errors = [], []

        def work():
            try:
                for _ in range(5):
                    results.append(k.total(a) == a.sum())
                    hist = np.zeros(7, dtype=np.int64)
                    k.count_labels(idx, hist)
                    results.append(hist.tolist() == np.bincount(idx).tolist())
            except Exception as error:
                errors.append(repr(error))

        k.total(a)
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(errors, len(results), all(results))
    """)
    assert lines == ["[] 40 True"]


@pytest.mark.parametrize("first", ["main", "worker"])
def test_main_and_worker_threads_in_either_order(out, first):
    lines = run(out, f"""
        a = np.arange(1000.0)
        calls = []
        worker = threading.Thread(target=lambda: calls.append(("worker", k.total(a))))
        if {first!r} == "main":
            calls.append(("main", k.total(a)))
            worker.start(); worker.join()
        else:
            worker.start(); worker.join()
            calls.append(("main", k.total(a)))
        print(calls)
    """)
    expected = [("main", 499500.0), ("worker", 499500.0)]
    assert lines == [repr(expected if first == "main" else expected[::-1])]


def test_kernel_releases_the_gil(out):
    # The counting thread gives the GIL up on every step and the switch interval is long,
    # so it advances while `churn` runs only if the call released the GIL.
    lines = run(out, """
        import time
        sys.setswitchinterval(100.0)
        a = np.linspace(0.0, 1.0, 200000)
        count, stop = [0], []

        def counter():
            while not stop:
                count[0] += 1
                time.sleep(0)

        k.churn(a, 1)
        thread = threading.Thread(target=counter)
        thread.start()
        before = count[0]
        k.churn(a, 200)
        progress = count[0] - before
        stop.append(True)
        thread.join()
        print(progress > 100, progress)
    """)
    assert lines[0].startswith("True"), lines


def test_error_flags_belong_to_their_call(out):
    lines = run(out, """
        a = np.arange(50000, dtype=np.int64)
        outcomes, errors = [], []

        def divide(d):
            for _ in range(20):
                try:
                    outcomes.append((d, k.floor_quotients(a, d)))
                except ZeroDivisionError:
                    outcomes.append((d, "ZeroDivisionError"))
                except Exception as error:
                    errors.append(repr(error))

        threads = [threading.Thread(target=divide, args=(d,)) for d in (0, 1, 0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(errors, sorted(set(outcomes), key=str))
    """)
    assert lines == [f"[] [(0, 'ZeroDivisionError'), (1, {sum(range(50000))})]"]


def test_forked_child_fails_fast_with_a_message(out):
    lines = run(out, """
        import multiprocessing, os

        def child(queue):
            # a signature the parent resolved (the compiled function's own check), then a new
            # one (the dispatcher's check, before it would compile or load anything)
            for a in (np.ones(10), np.ones(10, dtype=np.float32)):
                try:
                    queue.put(k.total(a))
                except RuntimeError as error:
                    queue.put(str(error))

        k.total(np.ones(10))
        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        process = context.Process(target=child, args=(queue,))
        process.start()
        print(queue.get(timeout=30))
        print(queue.get(timeout=30))
        process.join(30)
        print(process.exitcode)
        # A child that exits through the interpreter's shutdown runs the atexit handlers:
        # finalizing Kokkos there would hang.
        pid = os.fork()
        if pid == 0:
            sys.exit(0)
        print(os.waitpid(pid, 0)[1])
    """)
    assert "'spawn'" in lines[0] and "forked" in lines[0], lines
    assert lines[1] == lines[0]
    assert lines[2:] == ["0", "0"]


def test_spawned_child_works(out):
    lines = run(out, """
        import multiprocessing
        k.total(np.ones(10))
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            print(pool.apply(k.total, (np.arange(10.0),)))
    """)
    assert lines == ["45.0"]
