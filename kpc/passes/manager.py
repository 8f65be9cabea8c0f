"""Pass manager: runs a named pipeline over a module, optionally stopping after a pass.

A pass is a class with a ``name``, a one-line docstring with a before/after
example, and ``apply(ctx, module)``. Passes register themselves with
``@register``; pipelines are lists of names (data), one per target, printed by
``kpc ir --passes``. Analyses are cached in ``ctx.analyses`` and invalidated
after every transformation.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .budget import PassBudgetExceeded, Watch, current_budget

PASSES: dict = {}

PIPELINES = {
    "kokkos": [
        "infer-types",
        "infer-view-dims",
        "error-model",
        "inline-array-calls",
        "double-buffer",
        "lower-numpy",
        "propagate-constants",
        "parallelize",
        "recognize-reductions",
        "infer-dispatch",
        "cost-guard",
        "simplify-powers",
        "if-convert",
        "periodic-neighbors",
        "hoist-invariants",
        "hoist-division-checks",
        "choose-schedule",
        "local-accumulators",
        "choose-teams",
        "choose-host-forms",
        "choose-device-forms",
        "one-thread-regions",
        "choose-placement",
    ],
    "pykokkos": [
        "infer-types",
        "infer-view-dims",
        "inline-array-calls",
        "double-buffer",
        "lower-numpy",
        "propagate-constants",
        "parallelize",
        "recognize-reductions",
        "infer-dispatch",
        "cost-guard",
        "simplify-powers",
        "flatten-mdrange",
        "fold-triangular",
        "materialize-subviews",
    ],
}


def register(cls):
    """Class decorator: make a pass available to pipelines under ``cls.name``."""
    PASSES[cls.name] = cls
    return cls


@dataclass
class PassContext:
    """Options and shared state of one pipeline run.

    ``target``: ``kokkos`` | ``pykokkos``; ``auto_parallel``: parallelize plain
    ``range`` loops when provably independent; ``warnings``: diagnostics that do
    not stop the build (races in ``prange``, ...); ``analyses``: cached results;
    ``teams``: let ``choose-teams`` give regions a TeamPolicy (off when the environment
    variable ``KPC_TEAMS`` is ``0``); ``vectors``: let it run loops inside the team loops across
    vector lanes (off when ``KPC_TEAMS`` is ``novector``).
    """

    target: str = "kokkos"
    auto_parallel: bool = True
    teams: bool = field(default_factory=lambda: os.environ.get("KPC_TEAMS", "") != "0")
    vectors: bool = field(default_factory=lambda: os.environ.get("KPC_TEAMS", "") != "novector")
    verify: bool = False
    warnings: list = field(default_factory=list)
    analyses: dict = field(default_factory=dict)

    def analysis(self, name: str, module, compute):
        if name not in self.analyses:
            self.analyses[name] = compute(module)
        return self.analyses[name]


class Pass:
    """Base class of passes. ``transforms`` = False for passes that only annotate."""

    name = ""
    transforms = True

    def apply(self, ctx: PassContext, module) -> None:
        raise NotImplementedError


class UnknownPass(KeyError):
    pass


def pipeline(target: str) -> list:
    return list(PIPELINES[target])


def run_pipeline(module, ctx: PassContext, names: list | None = None, after: str | None = None,
                 verifier=None):
    """Run ``names`` (default: the target's pipeline) over ``module`` in place.

    Stops after the pass named ``after``; calls ``verifier(module)`` after every
    pass when ``ctx.verify`` is set. Returns the module. Runs under the pass budget
    (``kpc.passes.budget``): past it, ``PassBudgetExceeded`` names the pass and the kernel.
    """
    names = names if names is not None else pipeline(ctx.target)
    if after is not None and after not in names:
        raise UnknownPass(f"pass {after!r} is not in the {ctx.target} pipeline: {', '.join(names)}")
    _load_all()
    for name in names:
        if name not in PASSES:
            raise UnknownPass(f"unknown pass {name!r}")
    watch = Watch(current_budget(), module)
    watch.current_pass = names[0] if names else ""
    watch.start()
    try:
        for name in names:
            watch.current_pass = name
            PASSES[name]().apply(ctx, module)
            if PASSES[name].transforms:
                ctx.analyses.clear()
            if ctx.verify and verifier is not None:
                verifier(module)
            if name == after:
                break
    finally:
        watch.stop()
    if watch.fired:  # the passes ended (or swallowed the interrupt) after the budget ran out
        raise PassBudgetExceeded(watch.diagnostic)
    return module


def _load_all() -> None:
    """Import every pass module of this package so that ``@register`` has run."""
    import importlib
    import pkgutil

    from . import __path__ as package_path

    for info in pkgutil.iter_modules(package_path):
        if info.name != "manager":
            importlib.import_module(f"{__package__}.{info.name}")
