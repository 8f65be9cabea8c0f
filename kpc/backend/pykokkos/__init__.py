"""PyKokkos backend: an annotated IR module -> one readable PyKokkos Python module.

``emit_module(module, output_path, space=None)`` returns the text and a per-kernel
report; ``check(text)`` lists violations of upstream PyKokkos's rules
(PYKOKKOS_CONTRACT.md) in a module.
"""

from .checker import Violation, check
from .emitter import EmitResult, KernelReport, emit_module

__all__ = ["EmitResult", "KernelReport", "Violation", "check", "emit_module"]
