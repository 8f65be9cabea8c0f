"""np.linalg.solve/inv/cholesky, np.histogram and np.cov on the Kokkos target raise what Numba
raises, with Numba's message: numpy.linalg.LinAlgError for a singular matrix, one that is not
positive definite, infs or NaNs, sizes that do not fit; ValueError for histogram bins,
ranges and edges, and for np.cov(m, y) of arrays that do not fit; RuntimeError for the
covariance of a single row. Integer matrices are a typing error in Numba, so kpc does not
translate them either; the PyKokkos target keeps these kernels as Numba, and so does the
Kokkos target where the call sits inside a parallel loop."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kpc.frontend import parse_module
from kpc.ir.diagnostics import KpcError
from kpc.passes.manager import PassContext, run_pipeline
from kpc.check.runner import import_path
from numba_errors import assert_raises_as_numba

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "linalg_kernels.py"
SIGNATURES = {
    "solve": ["solve(float64[:, :], float64[:])", "solve(float32[:, :], float32[:, :])"],
    "inverse": ["inverse(float64[:, :])"],
    "factor": ["factor(float64[:, :])", "factor(float32[:, :])"],
    "histogram": ["histogram(float64[:], int64)"],
    "histogram_between": ["histogram_between(float64[:], int64, float64, float64)"],
    "histogram_edges": ["histogram_edges(float64[:], float64[:])", "histogram_edges(int64[:], float32[:])"],
    "covariance": ["covariance(float64[:, :])"],
    "covariance_xy": ["covariance_xy(float64[:], float64[:])", "covariance_xy(float64[:, :], float64[:])",
                      "covariance_xy(float64[:, :], float64[:, :])"],
    "covariance_columns": ["covariance_columns(float64[:, :], float64[:, :])",
                           "covariance_columns(float64[:], float64[:, :])"],
}
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
INDEFINITE = np.array([[1.0, 2.0], [2.0, 1.0]])



@pytest.fixture(scope="module")
def kokkos(tmp_path_factory):
    from kpc.api import build

    out = tmp_path_factory.mktemp("linalg_openmp")
    signatures = {name: sigs for name, sigs in SIGNATURES.items()}
    result = build(KERNELS, out, signatures=signatures, space="openmp", strict=False)
    assert set(result.rejected) <= {"inverses"}, result.rejected
    return import_path(result.module_path, "kpc_linalg_dropin_openmp")


@pytest.fixture(scope="module")
def numba():
    return import_path(KERNELS, "kpc_linalg_numba")


# (kernel, arguments, the exception type) on which Numba raises
ERRORS = [
    ("solve", (SINGULAR, np.ones(2)), np.linalg.LinAlgError),
    ("solve", (np.array([[1.0, np.nan], [0.0, 1.0]]), np.ones(2)), np.linalg.LinAlgError),
    ("solve", (np.eye(2), np.array([1.0, np.inf])), np.linalg.LinAlgError),
    ("solve", (np.eye(2), np.ones(3)), np.linalg.LinAlgError),
    ("solve", (np.zeros((3, 3), np.float32), np.ones((3, 2), np.float32)), np.linalg.LinAlgError),
    ("inverse", (SINGULAR,), np.linalg.LinAlgError),
    ("inverse", (np.zeros((3, 3)),), np.linalg.LinAlgError),
    ("inverse", (np.ones((2, 3)),), np.linalg.LinAlgError),
    ("inverse", (np.array([[np.nan, 1.0], [1.0, 1.0]]),), np.linalg.LinAlgError),
    ("factor", (INDEFINITE,), np.linalg.LinAlgError),
    ("factor", (-np.eye(3, dtype=np.float32),), np.linalg.LinAlgError),
    ("factor", (np.ones((2, 3)),), np.linalg.LinAlgError),
    ("histogram", (np.ones(4), 0), ValueError),
    ("histogram", (np.ones(4), -2), ValueError),
    ("histogram", (np.zeros(0), 3), ValueError),
    ("histogram_between", (np.ones(4), 3, 1.0, 0.0), ValueError),
    ("histogram_between", (np.ones(4), 3, np.nan, 1.0), ValueError),
    ("histogram_edges", (np.ones(4), np.array([0.0, 2.0, 1.0])), ValueError),  # decreasing edges
    ("histogram_edges", (np.ones(4), np.array([0.0, np.nan, 1.0])), ValueError),
    ("histogram_edges", (np.ones(4), np.zeros(0)), ValueError),  # no edges: a negative count of bins
    ("covariance", (np.ones((1, 5)),), RuntimeError),
    ("covariance_xy", (np.ones((1, 5)), np.ones(5)), RuntimeError),
    ("covariance_xy", (np.ones(4), np.ones(5)), ValueError),
    ("covariance_xy", (np.ones((2, 4)), np.ones((3, 5))), ValueError),
    ("covariance_columns", (np.ones((4, 2)), np.ones((5, 3))), ValueError),
]


@pytest.mark.compile
@pytest.mark.parametrize("kernel, args, error", ERRORS, ids=lambda v: v if isinstance(v, str) else "")
def test_errors_are_numbas(kokkos, numba, kernel, args, error):
    assert_raises_as_numba(getattr(kokkos, kernel), getattr(numba, kernel), args, error)


@pytest.mark.compile
def test_results_after_an_error_are_right(kokkos, numba):
    with pytest.raises(np.linalg.LinAlgError):
        kokkos.inverse(SINGULAR)
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(kokkos.inverse(a), numba.inverse(a), rtol=1e-14)
    np.testing.assert_allclose(kokkos.factor(INDEFINITE + 2 * np.eye(2)), numba.factor(INDEFINITE + 2 * np.eye(2)),
                               rtol=1e-14)


@pytest.mark.compile
def test_edge_cases_match_numba(kokkos, numba):
    cases = [
        ("inverse", (np.zeros((0, 0)),)),
        ("solve", (np.zeros((0, 0)), np.zeros(0))),
        ("factor", (np.array([[4.0, 100.0], [1.0, 3.0]]),)),  # only the lower triangle is read
        ("factor", (np.array([[np.nan, 1.0], [1.0, 1.0]]),)),  # NaN: no error, as with OpenBLAS
        ("histogram", (np.array([1.0, 1.0, 1.0]), 2)),  # a zero-width range: no counts
        ("histogram", (np.array([0.0, np.nan, 1.0, 0.5]), 2)),  # NaNs skipped
        ("histogram_between", (np.array([-1.0, 0.0, 0.25, 1.0, 2.0]), 4, 0.0, 1.0)),
        ("histogram_edges", (np.array([0.0, 1.0, 1.0, 2.0, 3.0, np.nan, -1.0]), np.array([0.0, 1.0, 1.0, 3.0]))),
        ("histogram_edges", (np.array([0.0, 1.0]), np.array([0.5]))),  # one edge: no bins
        ("histogram_edges", (np.arange(-3, 9), np.array([-0.5, 2.5, 2.5000001, 7.0], np.float32))),
        ("covariance", (np.zeros((3, 0)),)),  # no observations: NaN
        ("covariance", (np.arange(6.0).reshape(2, 3),)),
        ("covariance_xy", (np.zeros(0), np.zeros(0))),  # no observations: NaN
        ("covariance_xy", (np.array([1.0, 2.0, 4.0]), np.array([3.0, 1.0, 0.5]))),
        ("covariance_xy", (np.arange(8.0).reshape(2, 4) ** 2, np.arange(12.0).reshape(3, 4))),
        ("covariance_columns", (np.arange(6.0).reshape(3, 2) ** 2, np.array([[1.0, 5.0, 2.0]]))),  # one row of y
        ("covariance_columns", (np.array([1.0, 2.0, 4.0]), np.arange(6.0).reshape(3, 2) ** 2)),
    ]
    for kernel, args in cases:
        expected, actual = getattr(numba, kernel)(*args), getattr(kokkos, kernel)(*args)
        for e, a in zip(expected if isinstance(expected, tuple) else (expected,),
                        actual if isinstance(actual, tuple) else (actual,)):
            assert a.dtype == e.dtype and a.shape == e.shape, (kernel, args)
            np.testing.assert_allclose(a, e, rtol=1e-14, equal_nan=True, err_msg=kernel)


def pipeline(source: str, target: str = "kokkos"):
    module = parse_module(source, "m.py")
    run_pipeline(module, PassContext(target=target))
    return module


@pytest.mark.parametrize("call", ["np.linalg.inv(a)", "np.linalg.cholesky(a)", "np.linalg.solve(a, a[0])"])
def test_integer_matrices_are_a_typing_error_as_in_numba(call):
    with pytest.raises(KpcError, match="only supported on float and complex arrays"):
        pipeline(f"import numpy as np\nfrom numba import njit\n@njit('f8(i8[:, :])')\n"
                 f"def f(a):\n    return {call}.sum()\n")


@pytest.mark.parametrize("use", ["return np.cov(x)", "return float(np.cov(x))", "return np.cov(x) + x"])
def test_cov_of_one_vector_is_refused_where_not_read_as_a_scalar(use):
    # Numba's 0-d array: returned, it stays one (kpc has no 0-d arrays); float() of it and its
    # broadcast against an array are not taken as a scalar either (Numba: a typing error, a 1-D array).
    with pytest.raises(KpcError, match=r"np.cov\(\) of one 1-D array returns a 0-d array in Numba"):
        pipeline(f"import numpy as np\nfrom numba import njit\n@njit('f8(f8[::1])')\ndef f(x):\n    {use}\n")


def test_cov_of_one_vector_read_as_a_scalar_is_its_variance():
    module = pipeline("import numpy as np\nfrom numba import njit\n@njit('f8(f8[::1])')\n"
                      "def f(x):\n    return np.cov(x)[()] + np.sqrt(np.cov(x, ddof=0)) * 2.0\n")
    assert str(module.functions["f"].return_type) == "f64"


def test_cov_of_one_vector_on_cuda_is_refused_before_compiling(tmp_path):
    from kpc.pipeline import failing_requests

    path = tmp_path / "variance.py"
    path.write_text("import numpy as np\nfrom numba import njit\n\n\n@njit\ndef variance(x):\n"
                    "    return np.cov(x)[()]\n")
    requests = [("variance", (("array", "float64", 1, "C"),))]
    assert failing_requests(str(path), path.read_text(), requests, space="openmp") == {}
    assert "host execution spaces only" in failing_requests(str(path), path.read_text(), requests,
                                                            space="cuda")["variance"]


def test_a_loop_around_a_solve_is_never_parallelized_automatically():
    module = pipeline("import numpy as np\nfrom numba import njit\n"
                      "@njit('void(f8[:, :, :], f8[:, :])')\ndef solves(a, x):\n"
                      "    for i in range(a.shape[0]):\n        x[i] = np.linalg.solve(a[i], x[i])\n")
    loop = next(s for s in module.functions["solves"].body if type(s).__name__ == "For")
    assert loop.parallel is None
    assert "runs serially on the host" in loop.decision


def test_the_pykokkos_target_keeps_these_kernels_as_numba(tmp_path):
    from kpc.api import build_pykokkos

    result = build_pykokkos(KERNELS, tmp_path, signatures={name: s[0] for name, s in SIGNATURES.items()})
    reasons = {r.name: (r.status, r.reason or "") for r in result.kernels}
    for name in SIGNATURES:
        status, reason = reasons[name]
        assert status == "numba" and "kpc_linalg.hpp" in reason, (name, reason)


@pytest.mark.compile
def test_inside_a_parallel_loop_the_call_falls_back_to_numba(kokkos):
    from kpc.runtime.fallback import KpcFallbackWarning

    a = np.stack([np.eye(3) * (k + 1) for k in range(4)])
    out = np.empty_like(a)
    with pytest.warns(KpcFallbackWarning, match="kpc cannot emit Kokkos C\\+\\+"):
        kokkos.inverses(a, out)
    np.testing.assert_allclose(out, np.stack([np.eye(3) / (k + 1) for k in range(4)]))
