"""Differential checking of kernels: case specs, input generation, result comparison.

The corpus in ``tests/corpus`` runs every kernel under Numba and under each kpc
target on the same inputs; this package holds the parts of that harness that do
not depend on Numba or on a target (NumPy and the standard library only):

- ``spec``: read the ``KPC_CASES`` block of a kernel file statically;
- ``inputs``: deterministic arguments for a (kernel, dtype, sizes, layout);
- ``compare``: compare two outcomes, report the first difference.
"""

from kpc.check.compare import Mismatch, Outcome, compare_outcomes, compare_values, default_rtol
from kpc.check.inputs import KernelInputs, Variant, make_inputs, variants
from kpc.check.spec import CaseSpecError, CorpusFile, KernelCase, corpus_files, load_cases

__all__ = [
    "CaseSpecError", "CorpusFile", "KernelCase", "KernelInputs", "Mismatch", "Outcome", "Variant",
    "compare_outcomes", "compare_values", "corpus_files", "default_rtol", "load_cases", "make_inputs", "variants",
]
