"""A stand-in C++ compiler for the tests of what kpc builds once per toolchain (the PCH, the
support library): a script that logs its calls, takes a moment and writes its ``-o`` file."""

from __future__ import annotations

import stat

import pytest

FAKE_COMPILER = """#!/bin/sh
# Stand-in for GCC: log the call, take a moment, write the -o file.
echo "$@" >> "{log}"
sleep {delay}
out=""
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out="$2"; fi
  shift
done
printf 'fake-compiler-output' > "$out"
"""


@pytest.fixture
def fake_compiler(tmp_path):
    """``make(delay=0.0, fail=False)`` -> (the script's path, the log of its calls, one a line);
    a failing one prints ``error: no`` and exits 1."""

    def make(delay=0.0, fail=False):
        log = tmp_path / ("failing-calls.log" if fail else "calls.log")
        script = tmp_path / ("failing-c++" if fail else "fake-c++")
        text = FAKE_COMPILER.format(log=log, delay=delay)
        if fail:
            text = f'#!/bin/sh\necho "$@" >> "{log}"\necho "error: no" >&2\nexit 1\n'
        script.write_text(text)
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        return str(script), log

    return make
