"""The pass budget: passes that run too long stop with a diagnostic naming the pass and the kernel.

Every fixpoint of the passes is bounded on its own (a rank lattice with a conflict at
the top, iteration caps that raise diagnostics); the budget is the net under what is
left, so that one file never blocks a multi-file ``kpc build``. ``run_pipeline`` runs
under the budget of the file being built (``file_budget``, entered by ``kpc.build`` for
each file: every pipeline run over that file draws from it, the C++ compile does not)
or, outside one, a budget of its own. Both hold ``KPC_PASS_BUDGET`` seconds (default
120). When it runs out, a watchdog thread raises ``PassBudgetExceeded`` (a ``KpcError``)
inside the thread running the passes, so the kernel falls back to Numba with the reason;
once a file's budget is spent, its later pipeline runs stop at once with that diagnostic.

>>> import os, time
>>> from kpc.frontend import parse_module
>>> from kpc.passes.manager import PASSES, Pass, PassContext, run_pipeline
>>> class Spin(Pass):
...     name = "spin"
...     def apply(self, ctx, module):
...         while True:  # a pass that never finishes
...             time.sleep(0.01)
>>> PASSES["spin"] = Spin
>>> m = parse_module("from numba import njit\\n@njit\\ndef f(a):\\n    return a[0]\\n", "m.py")
>>> with file_budget(0.2):
...     try:
...         run_pipeline(m, PassContext(), ["infer-types", "spin"])
...     except PassBudgetExceeded as error:
...         print(error.diagnostic.message)
pass 'spin' did not finish kernel 'f' within the pass budget of 0.2 s (KPC_PASS_BUDGET)
>>> del PASSES["spin"]
"""

from __future__ import annotations

import contextvars
import ctypes
import os
import sys
import threading
import time
from contextlib import contextmanager

from kpc.ir import nodes as n
from kpc.ir.diagnostics import Diagnostic, KpcError, source_line_at

ENV = "KPC_PASS_BUDGET"
DEFAULT_SECONDS = 120.0
# After the first interrupt the watchdog repeats it while the run goes on: a pass may catch
# KpcError (infer-types does, to reject one kernel and type the others).
_REPEAT_SECONDS = 1.0

_current: contextvars.ContextVar = contextvars.ContextVar("kpc_pass_budget", default=None)


class PassBudgetExceeded(KpcError):
    """The passes ran past the budget; the diagnostic names the pass and the kernel."""


def budget_seconds() -> float:
    """``KPC_PASS_BUDGET`` in seconds (default 120); a value that is not a positive number raises ValueError."""
    text = os.environ.get(ENV, "").strip()
    if not text:
        return DEFAULT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise ValueError(f"{ENV} must be a positive number of seconds, not {text!r}")
    return seconds


class Budget:
    """Seconds the pipeline runs of one file may take, and the diagnostic of the run that spent them."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.spent = 0.0
        self.exhausted: Diagnostic | None = None

    @property
    def remaining(self) -> float:
        return self.seconds - self.spent


@contextmanager
def file_budget(seconds: float | None = None):
    """Run the pipelines inside under one budget of ``seconds`` (default: ``KPC_PASS_BUDGET``)."""
    token = _current.set(Budget(budget_seconds() if seconds is None else seconds))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def current_budget() -> Budget:
    """The budget of the file being built, or a new one for a single run."""
    return _current.get() or Budget(budget_seconds())


class Watch:
    """One pipeline run under a budget: a watchdog interrupts the running thread when the budget ends.

    ``start()`` is called from ``run_pipeline``'s frame; the watchdog interrupts the thread only
    while that frame is on the thread's stack, so an interrupt never lands in the caller.
    """

    def __init__(self, budget: Budget, module):
        self.budget = budget
        self.module = module
        self.current_pass = ""
        self.lock = threading.Lock()
        self.active = False
        self.fired = False
        self.diagnostic: Diagnostic | None = None
        self.timer: threading.Timer | None = None

    def start(self) -> None:
        if self.budget.remaining <= 0:
            raise PassBudgetExceeded(self.budget.exhausted or self.spent_diagnostic())
        self.thread = threading.get_ident()
        self.frame = sys._getframe(1)
        self.started = time.monotonic()
        self.active = True
        self.arm(self.budget.remaining)

    def arm(self, seconds: float) -> None:
        self.timer = threading.Timer(seconds, self.expire)
        self.timer.daemon = True
        self.timer.start()

    def stop(self) -> None:
        """End the watch; a pending interrupt that was not delivered yet is withdrawn."""
        with self.lock:
            if not self.active:
                return
            self.active = False
            if self.timer is not None:
                self.timer.cancel()
            if self.fired:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.thread), None)
        self.budget.spent += time.monotonic() - self.started
        if self.fired:
            self.budget.exhausted = self.diagnostic

    def expire(self) -> None:
        with self.lock:
            if not self.active or not self.in_run():
                return
            if self.diagnostic is None:
                self.diagnostic = self.overrun_diagnostic()
            self.fired = True
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.thread),
                                                       ctypes.py_object(_interrupt(self.diagnostic)))
            self.arm(_REPEAT_SECONDS)

    def in_run(self) -> bool:
        frame = sys._current_frames().get(self.thread)
        while frame is not None and frame is not self.frame:
            frame = frame.f_back
        return frame is not None

    def overrun_diagnostic(self) -> Diagnostic:
        kernel = self.running_kernel()
        names = [kernel.name] if kernel is not None else _entry_names(self.module)
        loc = kernel.loc if kernel is not None else _first_loc(self.module, names)
        which = f"kernel '{names[0]}'" if len(names) == 1 else f"kernels {', '.join(map(repr, names))}"
        return Diagnostic(f"pass '{self.current_pass}' did not finish {which} within the pass budget of "
                          f"{self.budget.seconds:g} s ({ENV})", loc, "pass budget",
                          f"this is a kpc bug: please report it with the kernel; {ENV}=<seconds> gives "
                          f"large files more time", source_line_at(loc, self.module.source))

    def spent_diagnostic(self) -> Diagnostic:
        names = _entry_names(self.module)
        loc = _first_loc(self.module, names)
        return Diagnostic(f"the pass budget of {self.budget.seconds:g} s ({ENV}) for this file is spent; "
                          f"kernels {', '.join(map(repr, names))} were not compiled", loc, "pass budget",
                          f"{ENV}=<seconds> gives large files more time", source_line_at(loc, self.module.source))

    def running_kernel(self):
        """The function the interrupted pass works on: the innermost frame holding one (as a local or ``self.function``)."""
        frame = sys._current_frames().get(self.thread)
        while frame is not None and frame is not self.frame:
            for value in frame.f_locals.values():
                for candidate in (value, getattr(value, "function", None)):
                    if isinstance(candidate, n.Function):
                        return candidate
            frame = frame.f_back
        return None


def _interrupt(diagnostic: Diagnostic) -> type:
    """An exception class raising ``diagnostic``: the interpreter raises an interrupt from its class alone."""

    class Interrupt(PassBudgetExceeded):
        def __init__(self):
            super().__init__(diagnostic)

    Interrupt.__name__ = Interrupt.__qualname__ = "PassBudgetExceeded"
    return Interrupt


def _entry_names(module) -> list:
    names = [name for name in module.functions if not module.callers(name)]
    return names or list(module.functions)


def _first_loc(module, names: list) -> n.Loc:
    function = module.functions.get(names[0]) if names else None
    return function.loc if function is not None else n.Loc(module.path or "", 0, 0)
