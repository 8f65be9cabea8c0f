"""The compiler always terminates: rank rebindings are conflicts, and the pass budget stops what is left."""

from __future__ import annotations

import doctest
import importlib.util
import json
import textwrap
import time

import pytest

import kpc.passes.budget as budget_module
from kpc import cli
from kpc.build_file import build
from kpc.frontend import parse_module
from kpc.ir.printer import format_function
from kpc.passes.budget import PassBudgetExceeded, file_budget
from kpc.passes.manager import PASSES, PIPELINES, Pass, PassContext, run_pipeline

REBINDING = '''
import numpy as np
from numba import njit

@njit
def mgrid(xn, yn):
    Xi = np.empty((xn, yn)); Yi = np.empty((xn, yn))
    for i in range(xn):
        for j in range(yn):
            Xi[i, j] = i; Yi[i, j] = j
    return Xi, Yi

@njit
def flat(xn, yn):
    Xi, Yi = mgrid(xn, yn)
    Xi = np.reshape(Xi, (xn * yn))
    Yi = np.reshape(Yi, (xn * yn))
    return Xi.sum() + Yi.sum()

@njit
def second_row(xn, yn):
    Xi, Yi = mgrid(xn, yn)
    Xi = Xi[1]
    return Xi.sum()
'''


def _write(tmp_path, name: str, source: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def _import(path: str):
    spec = importlib.util.spec_from_file_location("rebinding_out", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_module_docstring_example():
    result = doctest.testmod(budget_module)
    assert result.attempted > 0 and result.failed == 0


def test_a_name_rebound_to_another_rank_builds_and_runs_under_a_new_name(tmp_path):
    started = time.monotonic()
    report = build(_write(tmp_path, "rebinding.py", REBINDING), target="kokkos", out=tmp_path / "out")
    assert time.monotonic() - started < 60  # it used to never finish
    # Numba types each binding of Xi on its own; kpc names the new one Xi_1 (split_rebindings)
    assert [report.kernel(name).status for name in ("mgrid", "flat", "second_row")] == ["translated"] * 3
    out = _import(report.output)
    assert out.flat(3, 4) == 30.0
    assert out.second_row(3, 4) == 4.0  # row 1 of Xi: four ones
    assert not out._kpc.fallbacks


def _rejection(source: str, kernel: str) -> str:
    """Why ``infer-types`` keeps ``kernel`` (typed without a signature) as Numba."""
    module = parse_module(textwrap.dedent(source), "ranks.py")
    run_pipeline(module, PassContext(), ["infer-types"])
    return module.rejected[kernel].diagnostic.message


def test_a_rebinding_with_a_known_rank_names_both_ranks():
    message = _rejection('''
            from numba import njit
            @njit
            def rows(a, k):
                n, m = a.shape
                if k > 0:
                    a = a[0]  # both bindings reach the return: Numba rejects it too
                return a.sum()
        ''', "rows")
    assert message == "variable 'a' in kernel 'rows' is bound to a 2-D array and a 1-D array"


def test_a_cycle_of_rebindings_is_a_conflict_not_a_hang():
    message = _rejection('''
            from numba import njit
            @njit
            def cycle(b, k):
                s = 0.0
                for i in range(k):
                    a = b[0]
                    b = a
                    s += b[0]
                return s
        ''', "cycle")
    assert "is bound to arrays of two ranks, one 1 above the other" in message


def test_a_rank_growing_past_the_top_of_the_lattice_is_a_conflict():
    message = _rejection('''
            import numpy as np
            from numba import njit
            @njit
            def grow(A):
                for i in range(3):
                    A += A[None]
                return A
        ''', "grow")
    assert "the rank of 'A' in kernel 'grow' grows past 32 dimensions" in message


class Stuck(Pass):
    """A test-only pass that never finishes on a kernel named ``stuck`` (as an endless fixpoint would)."""

    name = "stuck-on-one-kernel"
    transforms = False

    def apply(self, ctx, module) -> None:
        for function in module.functions.values():
            while function.name == "stuck":
                time.sleep(0.01)


STUCK = '''
from numba import njit

@njit
def fine(a):
    return a[0] + 1.0

@njit
def stuck(a):
    return a[0] * 2.0
'''

FINE = '''
from numba import njit

@njit
def total(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s
'''


@pytest.fixture
def stuck_pass(monkeypatch):
    monkeypatch.setitem(PASSES, Stuck.name, Stuck)
    monkeypatch.setitem(PIPELINES, "kokkos", PIPELINES["kokkos"] + [Stuck.name])


def test_the_budget_turns_a_pass_that_never_ends_into_a_diagnostic_naming_pass_and_kernel(tmp_path, stuck_pass):
    module = parse_module(textwrap.dedent(STUCK), str(tmp_path / "stuck.py"))
    with file_budget(0.5), pytest.raises(PassBudgetExceeded) as info:
        run_pipeline(module, PassContext())
    diagnostic = info.value.diagnostic
    assert diagnostic.message == ("pass 'stuck-on-one-kernel' did not finish kernel 'stuck' within the "
                                  "pass budget of 0.5 s (KPC_PASS_BUDGET)")
    assert diagnostic.source_line == "def stuck(a):"


def test_a_spent_file_budget_stops_later_runs_at_once(tmp_path, stuck_pass):
    module = parse_module(textwrap.dedent(STUCK), str(tmp_path / "stuck.py"))
    with file_budget(0.3):
        with pytest.raises(PassBudgetExceeded):
            run_pipeline(module, PassContext())
        again = parse_module(textwrap.dedent(STUCK), str(tmp_path / "stuck.py"))
        untyped = {name: format_function(f) for name, f in again.functions.items()}
        with pytest.raises(PassBudgetExceeded) as info:
            run_pipeline(again, PassContext())
        # at once: not even infer-types ran
        assert {name: format_function(f) for name, f in again.functions.items()} == untyped
    assert "did not finish kernel 'stuck'" in info.value.diagnostic.message


def test_kpc_build_j2_exits_when_one_file_runs_out_of_budget(tmp_path, stuck_pass, monkeypatch, capsys):
    monkeypatch.setenv("KPC_PASS_BUDGET", "1")
    stuck = _write(tmp_path, "stuck.py", STUCK)
    fine = _write(tmp_path, "fine.py", FINE)
    out = tmp_path / "out"
    status = cli.main(["build", "-j", "2", stuck, fine, "-o", str(out)])
    assert status == 0
    reports = {path.name: json.loads(path.read_text()) for path in out.glob("*.kpc.json")}
    kernels = {k["name"]: k for k in reports["stuck.kpc.json"]["kernels"]}
    assert kernels["stuck"]["status"] == "numba"
    assert "pass 'stuck-on-one-kernel' did not finish kernel 'stuck'" in kernels["stuck"]["reason"]
    assert [k["status"] for k in reports["fine.kpc.json"]["kernels"]] == ["translated"]
    assert (out / "stuck.py").exists() and (out / "fine.py").exists()


def test_a_bad_budget_value_is_refused(monkeypatch):
    monkeypatch.setenv("KPC_PASS_BUDGET", "soon")
    with pytest.raises(ValueError, match="KPC_PASS_BUDGET must be a positive number of seconds"):
        budget_module.budget_seconds()
