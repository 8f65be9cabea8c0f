"""Rewrite the golden files from what kpc prints now; the tests only compare against them.

    python scripts/regen_goldens.py [frontend] [pykokkos]

``frontend``: the golden IR of tests/frontend/sources (tests/frontend/golden/*.ir);
``pykokkos``: the golden PyKokkos modules, default and Cuda space
(tests/backend/pykokkos/golden/*.py). Neither given: both. It names each file it changed:
review those diffs by eye before committing them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def write(path: str, text: str) -> bool:
    """Write ``text`` to ``path``; whether that changed the file."""
    if os.path.exists(path) and Path(path).read_text(encoding="utf-8") == text:
        return False
    Path(path).write_text(text, encoding="utf-8")
    return True


def frontend() -> list:
    sys.path.insert(0, str(REPO / "tests" / "frontend"))
    from frontend_support import GOLDEN, golden_cases, render_golden

    return [path for source, signatures, golden in golden_cases()
            if write(path := os.path.join(GOLDEN, golden), render_golden(source, signatures))]


def pykokkos() -> list:
    sys.path.insert(0, str(REPO / "tests" / "backend" / "pykokkos"))
    from kpc.backend.pykokkos import check
    from pykokkos_goldens import CASES, golden_path, render_golden

    changed = []
    for stem, space in CASES:
        text = render_golden(stem, space)
        violations = check(text, space=space)
        if violations:
            raise SystemExit(f"regen_goldens: {stem} ({space or 'default'}) breaks the PyKokkos contract, "
                             f"not written:\n" + "\n".join(map(str, violations)))
        if write(golden_path(stem, space), text):
            changed.append(golden_path(stem, space))
    return changed


def main(argv: list) -> int:
    kinds = {"frontend": frontend, "pykokkos": pykokkos}
    unknown = [a for a in argv if a not in kinds]
    if unknown:
        print(f"regen_goldens: unknown golden set {', '.join(unknown)} (choose from frontend, pykokkos)", file=sys.stderr)
        return 2
    changed = [path for kind in (argv or list(kinds)) for path in kinds[kind]()]
    for path in changed:
        print(f"changed {os.path.relpath(path, REPO)}")
    print(f"regen_goldens: {len(changed)} file(s) changed" + ("; review the diff" if changed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
