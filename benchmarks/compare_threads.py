"""Plot benchmark results of several thread counts side by side: one panel per results.json.

    .venv/bin/python benchmarks/compare_threads.py benchmarks/results/results.json \\
        benchmarks/results/cpu16/results.json --out benchmarks/results/threads.png

Each panel: kpc's speed-up over Numba (best of n, same run) against problem size, one line per
kernel, titled with the thread count and CPU the results.json records.
"""

from __future__ import annotations

import argparse
import json
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="results.json files of benchmarks/run.py")
    parser.add_argument("--out", required=True, help="the PNG to write")
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [json.load(open(path)) for path in args.results]
    kernels = sorted({r["kernel"] for run in runs for r in run["results"]})
    colors = plt.get_cmap("tab20").colors
    markers = "os^vDP*Xh<>p"
    fig, axes = plt.subplots(1, len(runs), figsize=(7 * len(runs), 5.5), sharey=True, squeeze=False)
    for ax, run in zip(axes[0], runs):
        for k, kernel in enumerate(kernels):
            points = sorted((r["size"], r["speedup_best"]["kokkos"]) for r in run["results"]
                            if r["kernel"] == kernel and "kokkos" in r.get("speedup_best", {}))
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], color=colors[k % len(colors)],
                        marker=markers[k % len(markers)], label=kernel)
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("problem size")
        threads = run.get("omp_threads") or run.get("numba_threads") or run.get("environment", {}).get("threads")
        cpu = run.get("cpu") or "2-core development machine"
        ax.set_title(f"{threads} threads each — {cpu}", fontsize="medium")
    axes[0][0].set_ylabel("kpc speed-up over Numba (best of n)")
    axes[0][-1].legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
