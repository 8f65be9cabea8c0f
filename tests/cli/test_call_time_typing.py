"""Kernels without a signature are typed for each call's argument types; what kpc cannot type,
emit or compile for them runs as the Numba function, with a warning (issue 14, item 1).

Real builds, real Kokkos compiles (one, of ``hist`` for int64 keys, shared through the build
cache), real Numba for the fallbacks. Each test writes the user's module under its own
``tmp_path``: the cache's records are keyed by the source's path, so no run sees another's."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import warnings

import numba
import numpy as np
import pytest

from kpc.build_file import build
from kpc.report import validate
from kpc.runtime.fallback import KpcFallbackWarning

SOURCE = textwrap.dedent("""
    import numpy as np
    from numba import njit


    @njit
    def hist(keys, nbins):
        counts = np.zeros(nbins, dtype=np.int64)
        for i in range(keys.shape[0]):
            b = keys[i] % nbins
            counts[b] += 1
        return counts


    @njit
    def total(x):
        s = 0.0
        for i in range(len(x)):
            s += x[i]
        return s


    @njit
    def pick(values, order):
        s = 0.0
        for i in range(order.shape[0]):
            s += values[order][i]
        return s
""")
HIST_LINE = 11  # counts[b] += 1: b is a float for float64 keys
PICK_LINE = 27  # values[order][i]: an array used as an index, a float64 array under the guess


@pytest.fixture
def module(tmp_path, kpc_cache_dir):
    source = tmp_path / "user_hist.py"
    source.write_text(SOURCE)
    report = build(source, target="kokkos", out=tmp_path / "out")
    return source, report


def _import(path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    imported = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(imported)
    return imported


def test_a_kernel_untypable_under_assumed_types_is_lazy_with_its_assumptions(module):
    _, report = module
    hist = report.kernel("hist")  # keys[i] % nbins used as an index: both guessed integers
    assert hist.status == "translated"
    pick = report.kernel("pick")
    assert pick.status == "lazy" and pick.cache == "lazy"
    assert pick.location.endswith(f"user_hist.py:{PICK_LINE}:14")
    assert "array index must be an integer" in pick.reason
    assert any(a.startswith("order: f64[:]") and "dtype float64 assumed" in a for a in pick.assumptions)
    assert report.kernel("total").status == "translated"
    data = report.to_dict()
    assert validate(data) == [] and data["summary"]["lazy"] == 1 and data["summary"]["numba"] == 0
    table = report.format_table()
    assert "3 translated (1 typed at each call), 0 kept as Numba" in table
    assert "typed at each call: type error" in table and "under the assumed values: f64[:, :]" in table


@pytest.mark.compile
def test_the_call_types_it_and_it_matches_numba(module):
    source, report = module
    dropin = _import(report.output, "user_hist_kokkos")
    keys = np.random.default_rng(3).integers(0, 1000, 500)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KpcFallbackWarning)  # compiled, not Numba
        counts = dropin.hist(keys, 7)
    reference = _import(source, "user_hist_numba").hist(keys, 7)
    assert counts.dtype == reference.dtype and np.array_equal(counts, reference)
    assert dropin.hist.__module__ == dropin.__name__
    assert ("hist", (("array", "int64", 1, "C"), ("scalar", "int64"))) in dropin._kpc.specializations


def test_types_kpc_cannot_type_run_numba_with_a_warning_naming_the_place(module):
    source, report = module
    dropin = _import(report.output, "user_hist_float_keys")
    # Numba cannot type a float index either: the call gets Numba's own error, after kpc's warning.
    with pytest.warns(KpcFallbackWarning, match=rf"user_hist.py:{HIST_LINE}:9: kpc cannot type "
                                                r"hist\(float64\[::1\], int64\) \(type error in kernel 'hist': array index"):
        with pytest.raises(numba.core.errors.TypingError):
            dropin.hist(np.ones(4), 3)
    assert list(dropin._kpc.fallbacks) == [("hist", (("array", "float64", 1, "C"), ("scalar", "int64")))]


def test_arguments_kpc_does_not_take_run_numba(module):
    _, report = module
    dropin = _import(report.output, "user_hist_complex")
    z = [1 + 2j, 3 - 1j]  # a reflected list: Numba takes it, kpc does not
    with pytest.warns(KpcFallbackWarning, match=r"kpc cannot take the arguments of total\(list\) "
                                                r"\(argument type: argument 'x' must be a NumPy array or a number"):
        assert dropin.total(z) == 4 + 1j
    with warnings.catch_warnings():
        warnings.simplefilter("error", KpcFallbackWarning)  # once per signature
        assert dropin.total(z) == 4 + 1j


def test_strict_mode_raises_instead(module, monkeypatch):
    _, report = module
    dropin = _import(report.output, "user_hist_strict")
    monkeypatch.setenv("KPC_STRICT", "1")
    with pytest.raises(TypeError, match=r"hist\(\): kpc cannot compile it for the argument types .*array index"):
        dropin.hist(np.ones(4), 3)
    with pytest.raises(TypeError, match="argument 'x' must be a NumPy array or a number, got list"):
        dropin.total([1.0, 2.0])
    assert not dropin._kpc.fallbacks


@pytest.mark.compile
def test_a_compiler_failure_runs_numba_and_is_recorded_for_later_builds_and_processes(module, tmp_path,
                                                                                       monkeypatch, kpc):
    source, report = module
    header = tmp_path / "broken.h"
    header.write_text("#error kpc test: this compiler refuses every module\n")
    monkeypatch.setenv("KPC_CXXFLAGS", f"-include {header}")
    dropin = _import(report.output, "user_hist_broken")
    with pytest.warns(KpcFallbackWarning, match=r"the C\+\+ compiler failed on total\(float64\[::1\]\) .*"
                                                r"generated source kept at .*\.cpp"):
        assert dropin.total(np.arange(4.0)) == 6.0
    (record,) = dropin._kpc.fallbacks.values()
    assert record["kind"] == "compile" and os.path.isfile(record["generated"])
    assert "kpc test: this compiler refuses every module" in record["fallback"]

    # Another process does not compile it again: the cache's record sends the call to Numba.
    code = (f"import numpy as np, importlib.util as u; s = u.spec_from_file_location('m', {report.output!r}); "
            f"m = u.module_from_spec(s); s.loader.exec_module(m); print(m.total(np.arange(5.0)))")
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ))
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "10.0"
    assert "KpcFallbackWarning" in child.stderr and "recorded in kpc's build cache" in child.stderr

    # A later build of the same source reports it, and so does `kpc cache ls`.
    later = build(source, target="kokkos", out=tmp_path / "out")
    (line,) = later.kernel("total").fallbacks
    assert line.startswith("total(float64[::1]): ") and "C++ compiler" in line
    assert "ran as Numba at a call: total(float64[::1])" in later.format_table()
    data = json.loads(open(later.report_path).read())
    assert data["kernels"][1]["fallbacks"] == [line]
    listing = kpc("cache", "ls").stdout
    assert "user_hist.py: total(float64[::1]) ran as Numba" in listing
