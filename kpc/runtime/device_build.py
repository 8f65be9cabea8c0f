"""The device build of a ``--space cuda`` specialization, compiled by a process of its own.

A first call returns from the host build while nvcc compiles the device build (20 to 50 s).
That compile runs in a child process in a session of its own, so a script that ends sooner
does not cut it off: the child finishes, puts the module in the build cache and its record
in the cache's index, and the next process that makes the call finds both (the parent, if it
is still running, loads the module when the child exits). The child runs the compiler the
drop-in module handed to its runtime (``ModuleRuntime.compiler``, named by module and
attribute: ``kpc:compiler``); the runtime itself imports none of it.

    python -m kpc.runtime.device_build REQUEST_JSON

``REQUEST_JSON``: ``{"compiler", "source", "function", "types", "options", "index_key", "record"}``; the
child writes ``record`` (the index record so far) with its ``"device"`` entry added: the build's
``{"key", "symbol", "written"}``, ``{"unavailable": why}`` when the device cannot run the
function, or ``{"failed": the first line of the error}``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .cache import BuildCache


def start(compiler, source: str, function: str, types: tuple, options: dict, index_key: str | None,
          record: dict):
    """Start the child compiling the device build with ``compiler`` (the drop-in module's
    callable that returns kpc's compiler); the ``subprocess.Popen``."""
    request = {"compiler": f"{compiler.__module__}:{compiler.__qualname__}", "source": source,
               "function": function, "types": [list(t) for t in types], "options": options,
               "index_key": index_key, "record": record}
    return subprocess.Popen([sys.executable, "-m", "kpc.runtime.device_build", json.dumps(request)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                            env=dict(os.environ))


def finish(process, index_key: str | None) -> dict:
    """Wait for the child; the ``"device"`` record it wrote (or one saying why it failed)."""
    _, errors = process.communicate()
    lines = errors.decode(errors="replace").strip().splitlines() if errors else []
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        record = BuildCache().read_index(index_key) if index_key is not None else None
        found = (record or {}).get("device")
        if found is None:
            found = {"failed": lines[-1] if lines else f"the device build exited with status {process.returncode}"}
        return found


def main(argv) -> int:
    import importlib

    request = json.loads(argv[0])
    module, name = request["compiler"].split(":")
    compiler = getattr(importlib.import_module(module), name)()
    types = tuple(tuple(t) for t in request["types"])
    from .placement import TierUnavailable

    try:
        found = compiler.compile_tier(request["source"], request["function"], types, "device", request["options"])
    except TierUnavailable as error:
        found = {"unavailable": str(error)}
    except Exception as error:  # noqa: BLE001 (the parent runs the host build and warns with this)
        found = {"failed": (str(error).splitlines() or [repr(error)])[0]}
    record = dict(request["record"], device=found)
    if request["index_key"] is not None:
        BuildCache().write_index(request["index_key"], record)
    print(json.dumps(found), file=sys.stderr)  # last: finish() reads it
    return 0 if "failed" not in found else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
