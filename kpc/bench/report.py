"""Benchmark results as JSON, a markdown table and a PNG plot of speed-up vs size.

``python -m kpc.bench.report results.json`` writes the table and the plot again from a
results.json (a run on another machine may bring back only that file).

A result row is one (kernel, size): the timings of each contender and the
speed-up of each kpc target over Numba, ``numba_time / target_time`` (above 1
means kpc is faster), from best-of-n and from medians of the same run.
"""

from __future__ import annotations

import json
import math
import os
import platform
from dataclasses import dataclass, field


@dataclass
class Row:
    kernel: str
    size: int
    timings: dict
    note: str = ""
    extra: dict = field(default_factory=dict)

    def speedup(self, target: str, stat: str = "best") -> float:
        base = getattr(self.timings["numba"], stat)
        return base / getattr(self.timings[target], stat)

    def targets(self) -> list:
        return [name for name in self.timings if name != "numba"]

    def as_dict(self) -> dict:
        return {
            "kernel": self.kernel,
            "size": self.size,
            "timings": {name: t.as_dict() for name, t in self.timings.items()},
            "speedup_best": {t: self.speedup(t, "best") for t in self.targets()},
            "speedup_median": {t: self.speedup(t, "median") for t in self.targets()},
            "note": self.note,
            **self.extra,
        }


def environment() -> dict:
    return {
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpus": os.cpu_count(),
        "threads": os.environ.get("OMP_NUM_THREADS"),
        "python": platform.python_version(),
    }


def geomean(values) -> float:
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def largest_size_rows(rows: list) -> list:
    """For each kernel, the row at its largest measured size."""
    best = {}
    for row in rows:
        if row.kernel not in best or row.size > best[row.kernel].size:
            best[row.kernel] = row
    return list(best.values())


def to_json(rows: list, meta: dict) -> str:
    return json.dumps({"environment": environment(), **meta, "results": [r.as_dict() for r in rows]},
                      indent=2)


def _fmt_time(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def to_markdown(rows: list) -> str:
    targets = sorted({t for r in rows for t in r.targets()})
    bandwidth = [name for name in ["numba"] + targets if any(f"{name}_GBps_best" in r.extra for r in rows)]
    head = ["kernel", "size", "numba best", "numba median"]
    for t in targets:
        head += [f"{t} best", f"{t} median", f"{t} speed-up (best)", f"{t} speed-up (median)"]
    head += [f"{name} GB/s (best)" for name in bandwidth]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r.kernel, str(r.size), _fmt_time(r.timings["numba"].best), _fmt_time(r.timings["numba"].median)]
        for t in targets:
            if t in r.timings:
                cells += [_fmt_time(r.timings[t].best), _fmt_time(r.timings[t].median),
                          f"{r.speedup(t):.2f}×", f"{r.speedup(t, 'median'):.2f}×"]
            else:
                cells += ["—"] * 4
        for name in bandwidth:
            gbs = r.extra.get(f"{name}_GBps_best")
            cells.append("—" if gbs is None else f"{gbs:.3g}")
        lines.append("| " + " | ".join(cells) + " |")
    for t in targets:
        top = [r.speedup(t) for r in largest_size_rows(rows) if t in r.timings]
        lines.append("")
        lines.append(f"Geometric mean speed-up of {t} over Numba at each kernel's largest size "
                     f"(best-of-n): {geomean(top):.2f}×")
    return "\n".join(lines) + "\n"


def plot(rows: list, path: str) -> None:
    """Speed-up over Numba (best-of-n) against problem size, one line per kernel and target."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5.5))
    kernels = sorted({r.kernel for r in rows})
    targets = sorted({t for r in rows for t in r.targets()})
    colors = plt.get_cmap("tab20").colors
    markers, styles = "os^vDP*Xh<>p", ("-", "--", ":")
    line = 0
    for kernel in kernels:
        for t in targets:
            pts = sorted((r.size, r.speedup(t)) for r in rows if r.kernel == kernel and t in r.timings)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], color=colors[line % len(colors)],
                        marker=markers[line % len(markers)], linestyle=styles[line % len(styles)],
                        label=kernel if len(targets) == 1 else f"{kernel} ({t})")
                line += 1
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_xscale("log")
    ax.set_yscale("log")  # speed-ups and slow-downs alike: 2x and 0.5x sit equally far from 1
    ax.set_xlabel("problem size")
    ax.set_ylabel("speed-up over Numba (best of n)")
    ax.set_title("kpc vs Numba")
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_ranked(rows: list, path: str) -> None:
    """One size per kernel and many kernels: every kernel's speed-up (best-of-n, and the median),
    slowest first, against the 0.9× line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ranked = sorted((r.speedup(t), r.speedup(t, "median")) for r in rows for t in r.targets())
    fig, ax = plt.subplots(figsize=(10, 5.5))
    ax.plot(range(len(ranked)), [best for best, _ in ranked], "o", markersize=3, label="best of n")
    ax.plot(range(len(ranked)), [median for _, median in ranked], "x", markersize=3, label="median")
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.axhline(0.9, color="red", linewidth=0.8, linestyle=":", label="0.9×")
    ax.set_yscale("log")
    ax.set_xlabel("kernels, slowest first (by best-of-n)")
    ax.set_ylabel("speed-up over Numba")
    ax.set_title(f"kpc vs Numba, {len(ranked)} kernels at their largest case; geomean {geomean(b for b, _ in ranked):.2f}×")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(rows: list, meta: dict, out_dir: str, stem: str = "results", notes: str = "",
          ranked: bool = False) -> dict:
    """STEM.json, STEM.md (the table, then ``notes``) and STEM.png under ``out_dir``; ``ranked``:
    the plot ranks the kernels (``plot_ranked``) instead of drawing speed-up against size."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {ext: os.path.join(out_dir, f"{stem}.{ext}") for ext in ("json", "md", "png")}
    with open(paths["json"], "w") as f:
        f.write(to_json(rows, meta))
    with open(paths["md"], "w") as f:
        f.write(to_markdown(rows) + notes)
    (plot_ranked if ranked else plot)(rows, paths["png"])
    return paths


def load(path: str) -> tuple:
    """``(rows, meta)`` of a results.json that ``write`` wrote."""
    from .timing import Timing

    with open(path) as handle:
        data = json.load(handle)
    rows = []
    for item in data.pop("results"):
        known = {"kernel", "size", "timings", "speedup_best", "speedup_median", "note"}
        timings = {name: Timing(list(t["samples_s"])) for name, t in item["timings"].items()}
        rows.append(Row(item["kernel"], item["size"], timings, note=item.get("note", ""),
                        extra={k: v for k, v in item.items() if k not in known}))
    data.pop("environment", None)
    return rows, data


if __name__ == "__main__":
    import sys

    for json_path in sys.argv[1:]:
        loaded_rows, _ = load(json_path)
        stem = os.path.splitext(json_path)[0]
        with open(stem + ".md", "w") as out:
            out.write(to_markdown(loaded_rows))
        plot(loaded_rows, stem + ".png")
        print(f"{stem}.md, {stem}.png")
