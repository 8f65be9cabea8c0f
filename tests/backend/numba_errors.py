"""Helpers of the backend tests that compare a translation's exceptions with Numba's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from kpc.check.runner import import_path


def kokkos_dropin(tmp_path_factory, kernels, signatures: dict, name: str, strict: bool = True):
    """The drop-in module of ``kernels`` built for OpenMP, imported as ``kpc_<name>_dropin_openmp``."""
    from kpc.api import build

    out = tmp_path_factory.mktemp(f"{name}_openmp")
    result = build(kernels, out, signatures=signatures, space="openmp", strict=strict)
    return import_path(result.module_path, f"kpc_{name}_dropin_openmp"), result


def assert_raises_as_numba(translated, numba_function, args, error=ValueError) -> None:
    """``translated(*args)`` raises what ``numba_function(*args)`` raises, type and message,
    without falling back to Numba (Numba is given copies: a kernel may write its arguments)."""
    with pytest.raises(error) as expected:
        numba_function(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to Numba: the translation raises
        with pytest.raises(error) as actual:
            translated(*args)
    assert type(actual.value) is type(expected.value)
    assert str(actual.value) == str(expected.value)
