"""Run a kernel of a Numba module and of its kpc drop-in side by side: results and time ratio.

    python examples/beside_numba.py examples/lennard_jones.py out potential 3000

imports ``examples/lennard_jones.py`` (Numba) and ``out/lennard_jones.py`` (what
``kpc build examples/lennard_jones.py -o out`` wrote), calls ``potential`` on
the example's own ``random_cluster(3000)`` under both, and prints both results,
their relative difference, and best-of-7 times measured alternately.
"""

import importlib.util
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("NUMBA_NUM_THREADS", os.environ["OMP_NUM_THREADS"])


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(source, out_dir, kernel, n_atoms):
    stem = os.path.splitext(os.path.basename(source))[0]
    numba_module = load(source, f"{stem}_numba")
    kpc_module = load(os.path.join(out_dir, f"{stem}.py"), f"{stem}_kpc")
    cluster = numba_module.random_cluster(n_atoms)
    by_numba, by_kpc = getattr(numba_module, kernel), getattr(kpc_module, kernel)

    firsts = {}
    for name, fn in (("numba", by_numba), ("kpc", by_kpc)):
        start = time.perf_counter()
        fn(cluster)
        firsts[name] = time.perf_counter() - start
    best = {"numba": float("inf"), "kpc": float("inf")}
    results = {}
    for _ in range(7):
        for name, fn in (("numba", by_numba), ("kpc", by_kpc)):
            start = time.perf_counter()
            results[name] = fn(cluster)
            best[name] = min(best[name], time.perf_counter() - start)
    difference = abs(results["kpc"] - results["numba"]) / max(abs(results["numba"]), 1e-300)
    threads = os.environ["OMP_NUM_THREADS"]
    print(f"{kernel} of {n_atoms} atoms, {threads} threads")
    print(f"  Numba (parallel=True)   {results['numba']:.12e}   best of 7 {best['numba'] * 1e3:9.3f} ms"
          f"   first call {firsts['numba']:.2f} s (JIT)")
    print(f"  kpc (Kokkos C++)        {results['kpc']:.12e}   best of 7 {best['kpc'] * 1e3:9.3f} ms"
          f"   first call {firsts['kpc']:.2f} s (build or cache load)")
    print(f"  relative difference {difference:.1e}; kpc speed-up over Numba {best['numba'] / best['kpc']:.2f}x")
    return 0 if difference < 1e-10 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 3000))
