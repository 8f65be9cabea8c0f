"""What the PyKokkos templates print: decided by the emitter, laid out by ``*.py.j2``.

Bodies are lists of ``(depth, text)`` lines relative to the enclosing ``def``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FunctionModel:
    """A ``@pk.function`` helper: every parameter and the return annotated."""

    name: str
    params: list  # "name: annotation"
    returns: str
    body: list
    comment: list = field(default_factory=list)


@dataclass
class WorkunitModel:
    """A module-level ``@pk.workunit``: work index, accumulator/final flag, then keyword parameters."""

    name: str
    params: list
    body: list
    comment: list = field(default_factory=list)
    kernel: str = ""


@dataclass
class CallerModel:
    """The drop-in Python function: original name, signature and docstring."""

    name: str
    signature: str
    docstring: str | None
    body: list


@dataclass
class KeptModel:
    """A kernel re-exported from the Numba source, with why it was not translated."""

    name: str
    reason: str
    # its guessed types do not type: each call's types get a module of their own (per-call types)
    typed_at_call: bool = False


@dataclass
class ModuleModel:
    header: list
    imports: list
    helpers: list = field(default_factory=list)  # plain Python host helpers (text blocks)
    numba_source: str | None = None  # path of the Numba module, relative to the output file
    numba_source_absolute: str | None = None  # the same, absolute, at build time
    functions: list = field(default_factory=list)
    workunits: list = field(default_factory=list)
    callers: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    numba_now: bool = False  # kept kernels or host code use the source module at import
    kept_on_host: bool = False  # Cuda space: kept kernels take CuPy arrays through _on_host
    source_dunders: tuple = ()  # dunders the source assigns (``__version__``), resolved from it
    per_call: dict = field(default_factory=dict)  # caller -> types it was built for (no eager signature)
    options: dict = field(default_factory=dict)  # the build's options, for per-call specializations
    space: str | None = None
    process_guard: str | None = None  # the fork guard (helpers.PROCESS_GUARD), where PyKokkos is imported
