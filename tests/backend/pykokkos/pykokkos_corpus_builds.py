"""Build a corpus file for the PyKokkos target once per case dtype, with signatures from ``KPC_CASES``.

An emitted PyKokkos module is typed (view annotations, accumulators): one build serves one
element type, as an eager Numba signature would. ``signatures_for(path, dtype)`` writes
the signature of every kernel whose cases include ``dtype``; kernels without that dtype
stay generic (float64 assumed).
"""

from __future__ import annotations

import os

from kpc.api import build_pykokkos, load_module
from kpc.check.spec import ArrayParam, IndexParam, ScalarParam, load_cases


def _rank(shape) -> str:
    return ", ".join(":" for _ in shape)


def _param_type(param, dtype: str) -> str:
    if isinstance(param, ArrayParam):
        element = dtype if param.dtype == "case" else param.dtype
        return f"{element}[{_rank(param.shape)}]"
    if isinstance(param, IndexParam):
        return f"{param.dtype}[{_rank(param.shape)}]"
    if isinstance(param, ScalarParam):
        if param.dtype is None:
            return "float64" if isinstance(param.value, float) else "int64"
        return dtype if param.dtype == "case" else param.dtype
    raise TypeError(param)


def case_signature(case, dtype: str) -> str:
    return f"{case.kernel}({', '.join(_param_type(p, dtype) for p in case.params)})"


def dtypes_of(path) -> list:
    seen = []
    for case in load_cases(path).cases.values():
        for dtype in case.dtypes:
            if dtype not in seen:
                seen.append(dtype)
    return seen


def signatures_for(path, dtype: str) -> list:
    """Signatures of the kernels with cases in ``dtype`` (not of kernels the frontend rejects)."""
    rejected = set(load_module(path).rejected)
    return [case_signature(case, dtype) for case in load_cases(path).cases.values()
            if dtype in case.dtypes and case.kernel not in rejected]


def build_for_dtype(path, dtype: str, out_root: str):
    """The ``PyKokkosBuild`` of ``path`` specialised to ``dtype``, written under ``out_root/dtype``."""
    return build_pykokkos(path, os.path.join(out_root, dtype), signatures=signatures_for(path, dtype))
