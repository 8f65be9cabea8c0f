"""Matrix products at a kernel's host level (kpc_blas.hpp) on the Kokkos target: BLAS from SciPy
(the library Numba calls) for float and complex operands of any layout, the parallel loop nest
without it (KPC_BLAS=0, as on CUDA or without SciPy), Numba's ValueError for extents that do
not fit, and empty extents."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kpc.check.runner import import_path

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "blas_kernels.py"
DTYPES = ("float64", "float32", "complex128")
SIGNATURES = {
    "mm": [f"mm({d}[:, :], {d}[:, :])" for d in DTYPES] + ["mm(int64[:, :], int64[:, :])"],
    "mv": [f"mv({d}[:, :], {d}[:])" for d in DTYPES],
    "vm": [f"vm({d}[:], {d}[:, :])" for d in DTYPES],
    "tmm": ["tmm(float64, float64[:, :], float64[:, :])"],
    "tmv": ["tmv(float64[:, :], float64[:])"],
}
RNG = np.random.default_rng(16)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from kpc.api import build

    out = tmp_path_factory.mktemp("blas_openmp")
    result = build(KERNELS, out, signatures=SIGNATURES, space="openmp", strict=True)
    assert not result.rejected, result.rejected
    return result.module_path


@pytest.fixture(scope="module")
def kokkos(built):
    return import_path(built, "kpc_blas_dropin")


def layouts(a):
    """The matrix C-ordered, Fortran-ordered and as a strided view of a larger one."""
    wide = np.zeros((a.shape[0] * 2, a.shape[1] * 3), dtype=a.dtype)[::2, ::3]
    wide[...] = a
    return [np.ascontiguousarray(a), np.asfortranarray(a), wide]


def random(shape, dtype):
    a = RNG.standard_normal(shape)
    if dtype == "complex128":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def cases():
    """(kernel, arguments, NumPy's result) over dtypes, layouts and extents 0, 1 and larger."""
    for dtype in DTYPES:
        for n, k, m in ((1, 1, 1), (7, 5, 3), (33, 20, 9), (0, 4, 3), (4, 0, 3), (4, 3, 0)):
            for A in layouts(random((n, k), dtype)):
                for B in layouts(random((k, m), dtype)):
                    yield "mm", (A, B), A @ B
                yield "mv", (A, random(k, dtype)), None
            for A in layouts(random((k, m), dtype)):
                yield "vm", (random(k, dtype), A), None
    A, B = random((6, 4), "float64"), random((5, 6), "float64")
    for a in layouts(A):
        for b in layouts(B):
            yield "tmm", (2.5, a, b), 2.5 * a.T @ b.T
        yield "tmv", (a, random(6, "float64")), None
    ints = RNG.integers(-9, 9, (5, 4)), RNG.integers(-9, 9, (4, 6))
    yield "mm", ints, ints[0] @ ints[1]


def check_all(module):
    for name, args, expected in cases():
        if expected is None:
            expected = args[0] @ args[1] if name != "tmv" else args[0].T @ args[1]
        got = getattr(module, name)(*args)
        assert got.dtype == expected.dtype and got.shape == expected.shape, name
        tol = 1e-5 if expected.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * max(1, args[-1].shape[0]), err_msg=name)


def test_products_match_numpy_through_blas(kokkos):
    check_all(kokkos)


def test_products_match_numpy_without_blas(built):
    """KPC_BLAS=0: the loop nest that CUDA and a missing SciPy use, on the same cases."""
    script = (f"import sys; sys.path.insert(0, {str(HERE)!r}); import test_blas as t; "
              f"from kpc.check.runner import import_path; "
              f"t.check_all(import_path({str(built)!r}, 'kpc_blas_loops'))")
    env = dict(os.environ, KPC_BLAS="0")
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.parametrize("name, args, kinds", [
    ("mm", (np.ones((3, 4)), np.ones((5, 2))), "matrix * matrix"),
    ("mv", (np.ones((3, 4)), np.ones(5)), "matrix * vector"),
    ("vm", (np.ones(5), np.ones((3, 4))), "vector * matrix"),
])
def test_incompatible_extents_raise_numbas_value_error(kokkos, name, args, kinds):
    import re

    message = re.escape(f"incompatible array sizes for np.dot(a, b) ({kinds})")
    with pytest.raises(ValueError, match=message):
        getattr(import_path(KERNELS, "kpc_blas_numba"), name)(*args)
    with pytest.raises(ValueError, match=message):
        getattr(kokkos, name)(*args)
