"""What the subcommands share: target and space choices, argument helpers, diagnostics, progress."""

from __future__ import annotations

import os
import sys
import threading
import time


TARGETS = ("kokkos", "pykokkos")
HOST_SPACES = ("openmp", "serial")
SPACES = HOST_SPACES + ("cuda",)

# the exit status of `kpc check` and `kpc bench` when the target cannot run here (pykokkos not importable)
EXIT_TARGET_UNAVAILABLE = 3


def use_color(stream=None) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    stream = stream if stream is not None else sys.stderr
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def print_diagnostic(error, prefix: str = "") -> None:
    """A ``KpcError`` (or any message) on stderr, coloured on a terminal."""
    from kpc.report import paint_diagnostic

    print(prefix + paint_diagnostic(str(error), use_color()), file=sys.stderr)


class Progress:
    """Progress of a batch of builds on stderr: a bar redrawn in place on a terminal, plain
    ``kpc: [i/n] ...`` lines otherwise (logs, CI)."""

    def __init__(self, total: int, stream=None):
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.live = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.done = 0
        self.started = 0
        self.running: dict = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker = None
        if self.live:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    def start(self, name: str, what: str) -> None:
        with self._lock:
            self.running[name] = (what, time.monotonic())
            self.started += 1
            if not self.live:
                print(f"kpc: [{self.started}/{self.total}] {what} {name} ...", file=self.stream, flush=True)

    def finish(self, name: str, outcome: str) -> None:
        with self._lock:
            what, since = self.running.pop(name, ("", time.monotonic()))
            self.done += 1
            line = f"kpc: [{self.done}/{self.total}] {name}: {outcome} ({time.monotonic() - since:.1f} s)"
            if self.live:
                self.stream.write("\r\033[K" + line + "\n")
                self._draw()
            else:
                print(line, file=self.stream, flush=True)

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            with self._lock:
                self.stream.write("\r\033[K")
                self.stream.flush()

    def _tick(self) -> None:
        while not self._stop.wait(0.25):
            with self._lock:
                self._draw()

    def _draw(self) -> None:
        width = 24
        filled = width * self.done // max(1, self.total)
        now = time.monotonic()
        busy = ", ".join(f"{what} {name} {now - since:.0f} s" for name, (what, since) in self.running.items())
        self.stream.write(f"\r\033[K[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {busy}")
        self.stream.flush()


def default_jobs() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def add_space_argument(parser) -> None:
    parser.add_argument("--space", choices=SPACES, default=None,
                        help="execution space (default: openmp for the kokkos target; for the pykokkos "
                             "target, PyKokkos's own default space, chosen when the output runs). "
                             "pykokkos + cuda: policies name pk.Cuda and the callers pass CuPy arrays "
                             "(the output needs cupy)")
