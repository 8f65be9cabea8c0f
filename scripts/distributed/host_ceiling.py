"""What a many-core host gives several processes at once, without memory traffic or MPI.

    python scripts/distributed/host_ceiling.py --processes P --threads T

Starts P processes at once, each confined to its own T cores (cores p*T ... p*T+T-1), each running
a compute-bound Numba loop on T threads (a polynomial per element, no array: nothing leaves the
registers), and prints each process's rate and the sum's ratio to one process's rate measured alone
first. A ratio well below P says the host's cores are not independent (shared physical cores or
a throttled share), which bounds any weak-scaling figure on that host.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time


def _rate(threads: int, cores: list, seconds: float, queue) -> None:
    os.sched_setaffinity(0, cores)
    import numba
    from numba import njit, prange

    numba.set_num_threads(threads)

    @njit(parallel=True, fastmath=False)
    def work(n):
        total = 0.0
        for i in prange(n):
            x = i * 1e-9
            for _ in range(64):
                x = x * 0.999999 + 1e-7
            total += x
        return total

    work(1000)
    n, done, started = 2_000_000, 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        work(n)
        done += n
    queue.put(done * 64 / (time.perf_counter() - started) / 1e9)


def run(processes: int, threads: int, seconds: float) -> list:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    workers = [context.Process(target=_rate, args=(threads, list(range(p * threads, (p + 1) * threads)),
                                                    seconds, queue)) for p in range(processes)]
    for worker in workers:
        worker.start()
    rates = [queue.get() for _ in workers]
    for worker in workers:
        worker.join()
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    if args.processes * args.threads > os.cpu_count():
        raise SystemExit(f"{args.processes} x {args.threads} threads exceed the {os.cpu_count()} cores")
    alone = run(1, args.threads, args.seconds)[0]
    print(f"1 process x {args.threads} threads: {alone:.2f} G updates/s")
    if args.processes > 1:
        rates = run(args.processes, args.threads, args.seconds)
        print(f"{args.processes} processes x {args.threads} threads at once: "
              + ", ".join(f"{r:.2f}" for r in rates) + f" G updates/s; sum {sum(rates):.2f}: "
              f"speedup {sum(rates) / alone:.2f}x")


if __name__ == "__main__":
    main()
