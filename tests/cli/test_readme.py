"""The README's runnable examples run as written: every fenced ```sh or ```python block that follows a
``<!-- runnable -->`` line, in order, from one folder holding a copy of ``examples/``.

The folder sits at a fixed place beside the build cache, so a rerun finds the modules the
previous run compiled (cache keys include the source's path)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
MARKED_BLOCK = re.compile(r"<!-- runnable -->\n```(sh|python)\n(.*?)```", re.S)


def runnable_blocks(text: str) -> list:
    """``(language, code)`` of each block marked runnable.

    >>> runnable_blocks("x\\n<!-- runnable -->\\n```sh\\necho hi\\n```\\n```sh\\nnot me\\n```\\n")
    [('sh', 'echo hi\\n')]
    """
    return MARKED_BLOCK.findall(text)


def test_readme_marks_its_examples():
    kinds = [language for language, _ in runnable_blocks((REPO / "README.md").read_text())]
    assert kinds.count("sh") >= 2 and kinds.count("python") >= 3


@pytest.mark.compile
def test_readme_examples_run(kpc_cache_dir):
    work = Path(kpc_cache_dir) / "readme-examples"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(REPO / "examples", work / "examples")
    env = dict(os.environ, NO_COLOR="1", PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    for index, (language, code) in enumerate(runnable_blocks((REPO / "README.md").read_text())):
        if language == "sh":
            command = ["bash", "-euo", "pipefail", "-c", code]
        else:
            script = work / f"readme_block_{index}.py"
            script.write_text(code)
            command = [sys.executable, script.name]
        result = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"README block {index} ({language}) failed:\n{code}\n{result.stderr}"
    assert (work / "out" / "lennard_jones.kpc.json").is_file()
    assert (work / "out_pk" / "lennard_jones.py").is_file()
