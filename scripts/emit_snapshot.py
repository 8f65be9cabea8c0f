"""Write the generated sources of every corpus and collection file into a folder, to diff two kpc trees.

    python scripts/emit_snapshot.py OUT_DIR [FILE...]

For each file (default: tests/corpus/*.py and examples/collection/*.py) and each of its
``KPC_CASES`` signatures (none: the kernels' own eager signatures), it writes
``<stem>.<kernel>.openmp.cpp``, ``<stem>.<kernel>.cuda.cpp`` (the Kokkos C++ translation
units of each kernel's signatures, emitted
without compiling, so no CUDA Kokkos is needed) and ``<stem>.pykokkos.py``, or a
``.error`` file holding the error where a target refuses the file. A refactoring that
keeps the output the same leaves ``diff -r`` of two snapshots empty.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def signatures_of(path) -> list:
    """The ``KPC_CASES`` signatures of ``path`` ([] when it has none)."""
    from kpc.check.runner import case_signatures

    try:
        return case_signatures(path)
    except Exception:  # a file without KPC_CASES
        return []


def requests_of(path, source, signatures) -> dict:
    """kernel -> its argument-type tuples: the signatures given, else the eager ones."""
    from kpc import pipeline
    from kpc.ir.signature import parse_signature
    from kpc.ir.types import runtime_type

    entries: dict = {}
    for text in signatures:
        parsed = parse_signature(text)
        entries.setdefault(parsed.name, []).append(tuple(runtime_type(t) for t in parsed.args))
    if not entries:
        generic = pipeline.load_module(path, source=source)
        for name, function in generic.functions.items():
            for text in function.signatures:
                parsed = parse_signature(text)
                entries.setdefault(name, []).append(tuple(runtime_type(t) for t in parsed.args))
    return entries


def kokkos_source(path, source, name, variants, space) -> str:
    from kpc import pipeline
    from kpc.backend.kokkos.emitter import Specialization, emit_translation_unit

    specializations = []
    for types in variants:
        module = pipeline.typed_specialization(str(path), source, {name: types})
        specializations.append(Specialization(module, [name]))
    stem = Path(path).stem
    return emit_translation_unit(specializations, space=space, source=str(path),
                                 generated_name=f"{stem}.kokkos.cpp").source


def pykokkos_source(path, source, signatures) -> str:
    from kpc import pipeline

    result, _ = pipeline.emit_pykokkos(str(path), "/snapshot/" + Path(path).name, signatures or None, None,
                                       source, True)
    return result.source


def main(argv) -> int:
    out = Path(argv[0])
    files = [Path(f) for f in argv[1:]] or sorted(
        [p for p in (REPO / "tests" / "corpus").glob("*.py") if not p.name.startswith("test_")]
        + list((REPO / "examples" / "collection").glob("*.py")))
    out.mkdir(parents=True, exist_ok=True)
    for path in files:
        path = path.resolve()
        source = path.read_text()
        signatures = signatures_of(path)
        relative = os.path.relpath(path, REPO)
        jobs = {"pykokkos.py": lambda: pykokkos_source(relative, source, signatures)}
        for name, variants in requests_of(relative, source, signatures).items():
            for space in ("openmp", "cuda"):
                jobs[f"{name}.{space}.cpp"] = (lambda name=name, variants=variants, space=space:
                                               kokkos_source(relative, source, name, variants, space))
        for suffix, job in jobs.items():
            try:
                text = job().replace(str(REPO), "<repo>")  # the same in any checkout
                (out / f"{path.stem}.{suffix}").write_text(text)
            except Exception as error:  # the target refuses the file: keep the message
                message = "".join(traceback.format_exception_only(type(error), error))
                (out / f"{path.stem}.{suffix}.error").write_text(message)
        print(path.name, file=sys.stderr)
    return 0


if __name__ == "__main__":
    os.chdir(REPO)
    sys.exit(main(sys.argv[1:]))
