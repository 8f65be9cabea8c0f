"""What the per-call choice of a ``--space cuda`` function costs on the host: the STREAM triad's
compiled entry called directly, through a placed object that learned (host faster than a stand-in
device side 20 times slower), and through a placed object with no device side, beside Numba.
No GPU needed: the placed type comes from any compiled module (``kpc_placement.hpp``).

    PYTHONPATH=. python benchmarks/placed_call.py OUT_DIR [--n=1000]

Writes ``OUT_DIR/placed_call.json`` and ``placed_call.md`` (best and median of interleaved runs,
``kpc.bench.timing.interleave``; the placed hop is placed - direct in the same run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main(argv) -> int:
    import numpy as np

    from kpc.api import build
    from kpc.bench.timing import interleave
    from kpc.check.runner import import_path
    from kpc.runtime import loader

    out = Path(argv[0]) if argv and not argv[0].startswith("--") else Path("placed_call_out")
    n = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--n=")), 1000)
    out.mkdir(parents=True, exist_ok=True)
    source = REPO / "tests" / "corpus" / "stream_triad.py"
    with tempfile.TemporaryDirectory(prefix="kpc-placed-") as folder:
        result = build(source, Path(folder), signatures={
            "triad_loop": ["triad_loop(float64[::1], float64[::1], float64[::1], float64)"]})
        dropin = import_path(result.module_path)
        a, b, c = np.zeros(n), np.random.default_rng(0).random(n), np.random.default_rng(1).random(n)
        dropin.triad_loop(a, b, c, 2.0)
        direct = next(iter(dropin._kpc_triad_loop_compiled.values()))
        factory = loader.loaded_modules()[0]._kpc_placed
        slower = lambda *args: [direct(*args) for _ in range(20)][-1]  # noqa: E731 (a stand-in device side)
        learned, host_only = factory(direct, slower, "learned", True, -1), factory(direct, None, "host", True, -1)
        for _ in range(64):
            learned(a, b, c, 2.0)
        numba = import_path(source, jit=True).triad_loop
        timings = interleave({name: (lambda f=f: f(a, b, c, 2.0)) for name, f in (
            ("numba", numba), ("direct", direct), ("placed", learned), ("placed_host_only", host_only),
            ("dropin", dropin.triad_loop))}, repeats=15)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    rows = {name: t.as_dict() for name, t in timings.items()}
    info = {"commit": commit, "n": n, "threads": os.environ.get("OMP_NUM_THREADS", ""),
            "load": os.getloadavg(), "rows": rows}
    (out / "placed_call.json").write_text(json.dumps(info, indent=1))
    ns = {name: (t.best * 1e9, t.median * 1e9) for name, t in timings.items()}
    lines = [f"# The placed call's cost, triad of {n} elements, kpc {commit}, load {info['load'][0]:.1f}", "",
             "| contender | best (ns) | median (ns) |", "|---|---|---|"]
    lines += [f"| {name} | {best:.0f} | {median:.0f} |" for name, (best, median) in ns.items()]
    lines += ["", f"placed - direct: {ns['placed'][0] - ns['direct'][0]:.0f} ns best, "
                  f"{ns['placed'][1] - ns['direct'][1]:.0f} ns median; kpc dropin / Numba (best): "
                  f"{ns['numba'][0] / ns['dropin'][0]:.2f}x"]
    (out / "placed_call.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
